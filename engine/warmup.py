"""Analyse each rulebook's small warm-up scenario (`Ruleset.warmup_scenario`) once, so the
first real analysis does not pay the imports and first-call costs. `campo serve` runs it while
it starts."""

from __future__ import annotations

import time

from campo.engine.analysis import analyze
from campo.engine.registry import get_ruleset, ruleset_names


def prepare(names: tuple[str, ...] | None = None) -> float:
    """Analyse the warm-up scenario of each rulebook in ``names`` (all when None); seconds."""
    start = time.perf_counter()
    for name in names or ruleset_names():
        analyze(get_ruleset(name).warmup_scenario)
    return time.perf_counter() - start
