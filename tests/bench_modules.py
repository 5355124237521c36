"""The bench scripts' battle generators, for tests that analyse the same battles (bench/ is not a
package: its scripts are loaded by path, once each)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` as a module (e.g. "rulesets_analysis": `federico_battle`,
    `attila_battle`, `BATTLES`; "engine_analysis": `battle`)."""
    key = f"_campo_bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]
