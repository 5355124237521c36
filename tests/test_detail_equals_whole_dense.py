"""A tap on one base gives that base's entry of the whole table's analysis, on the crowded
100-base battles of every rulebook (shared/interfaces.md: `GET /api/bases/{id}/analysis` is
`analysis.bases[id]`). A tap asks a few shots and charges where the whole table asks thousands,
so a question answered a cheaper way for a small batch shows here, where the small golden
scenarios agree by luck: Federico's sight once traced a tap's lines without the whole table's
shortest-line-first pass, and the shared sight sweep (`geometry/sight_bodies.suspects`, taken
from `FEW_PAIRS` on) once named the body certain to cross a line without asking whether a
nearer one crossed it too; both named other blockers than a tap did."""

from __future__ import annotations

import pytest

from campo.engine.live import LiveAnalysis
from campo.engine.registry import ruleset_names
from tests.bench_modules import bench_module

battles = bench_module("battles")


@pytest.mark.slow
@pytest.mark.parametrize("bases", [100, 200])
@pytest.mark.parametrize("ruleset", ruleset_names())
def test_every_base_alone_equals_its_whole_table_entry(ruleset: str, bases: int) -> None:
    scenario = battles.dense_battle(ruleset, bases)
    whole = LiveAnalysis().update(scenario).analysis()["bases"]
    differ = [base for base in whole
              if LiveAnalysis().update(scenario).base_analysis(base) != whole[base]]
    assert differ == []
