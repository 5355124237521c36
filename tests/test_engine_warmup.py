"""`engine.warmup.prepare` reaches every numba kernel an analysis uses: after it, the bench
battles of all three rulebooks compile nothing more (a kernel it missed would be compiled during
a user's first live frame instead)."""

from __future__ import annotations

import gc

from numba.core.registry import CPUDispatcher

from campo import engine
from campo.engine.warmup import prepare
from tests.bench_modules import bench_module


def _signatures() -> dict[str, int]:
    return {f"{d.py_func.__module__}.{d.py_func.__name__}": len(d.signatures)
            for d in gc.get_objects() if isinstance(d, CPUDispatcher)}


def test_bench_battles_compile_nothing_after_warmup() -> None:
    prepare()
    before = _signatures()
    isd, others = bench_module("engine_analysis"), bench_module("rulesets_analysis")
    for scenario in (isd.battle(50, 450.0), others.federico_battle(50), others.attila_battle(50)):
        engine.analyze(scenario)
    after = _signatures()
    assert {k: v for k, v in after.items() if v > before.get(k, 0)} == {}
