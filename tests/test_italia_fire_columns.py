"""The column shortcuts of `fire_batch.verdict_table` (bands, reasons, clear arcs) give exactly
the answers of the row-by-row functions they replace (`fire.band_of`, `fire.fire_reasons`,
`fire.arc_clear`)."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.fire import EPS_IN, arc_clear, band_of, fire_reasons
from campo.engine.rulesets.italia.fire_columns import (
    arc_clear_many,
    bands_many,
    fire_reasons_many,
    tenths_texts,
)
from campo.engine.state import GameState


def _board(edges: str) -> Board:
    state = GameState.from_dict({"ruleset": "italia-se-desta",
                                 "table": {"width_mm": 700, "depth_mm": 600}, "bases": []})
    board = Board.of(state)
    return dataclasses.replace(board, settings=board.settings.model_copy(
        update={"a7_band_edges": edges}))


def _distances(rng: random.Random) -> np.ndarray:
    edges = [3.0, 6.0, 12.0, 18.0, 24.0]
    near = [e + d for e in edges for d in (0.0, EPS_IN, -EPS_IN, 2 * EPS_IN, -2 * EPS_IN,
                                           EPS_IN / 2, -EPS_IN / 2, 1e-12, -1e-12)]
    return np.array(near + [rng.uniform(0, 30) for _ in range(3000)] + [0.0, np.inf, 40.0])


@pytest.mark.parametrize("edges", ["upper_inclusive", "upper_exclusive"])
def test_bands_many_is_band_of(edges: str) -> None:
    board = _board(edges)
    rng = random.Random(3)
    d = _distances(rng)
    gun = np.array([rng.random() < 0.5 for _ in d], dtype=bool)
    want = [band_of(board, float(x), bool(g)) for x, g in zip(d.tolist(), gun.tolist())]
    assert bands_many(board, d, gun) == want
    assert bands_many(board, np.zeros(0), np.zeros(0, dtype=bool)) == []


def test_fire_reasons_many_is_fire_reasons() -> None:
    rng = random.Random(5)
    n = 4000
    cols = [np.array([rng.random() < 0.6 for _ in range(n)], dtype=bool) for _ in range(4)]
    margins = [rng.choice([rng.uniform(-30, 30), -0.05, -0.15, -0.25, 0.05, -1e-9, 0.0, -2.45])
               for _ in range(n)]
    in_arc, in_range, sight, clear = cols
    want = [fire_reasons(a, r, m, s, c) for a, r, m, s, c in zip(
        in_arc.tolist(), in_range.tolist(), margins, sight.tolist(), clear.tolist())]
    assert fire_reasons_many(in_arc, in_range, margins, sight, clear) == want


def test_fired_over_kinds_at_is_fired_over_kind() -> None:
    """Every battery shot of the snapshot battles (hills: shots across levels; rockets)."""
    from campo.engine.rulesets.italia.fire import fired_over_kind
    from campo.engine.rulesets.italia.sight_batch import fired_over_kinds_at

    seen_kinds: set[int] = set()
    for scenario in _snapshot_scenarios(6):
        board = Board.of(GameState.from_dict(scenario))
        guns = [i for i, o in board.infos.items() if o.is_gun]
        pairs = [(g, t) for g in guns for t in board.infos
                 if board.infos[t].side != board.infos[g].side]
        want = [fired_over_kind(board, g, t) for g, t in pairs]
        fresh = Board.of(GameState.from_dict(scenario))   # caches filled in another order
        position = {i: k for k, i in enumerate(fresh.state.index.ids)}
        got = fired_over_kinds_at(fresh, np.array([position[g] for g, _ in pairs], dtype=np.int64),
                                  np.array([position[t] for _, t in pairs], dtype=np.int64))
        assert got.tolist() == want
        seen_kinds |= set(want)
    assert len(seen_kinds) >= 2



def _snapshot_scenarios(count: int) -> list[dict]:
    import gzip
    import json
    from pathlib import Path

    files = sorted((Path(__file__).parent / "data" / "engine" / "italia_snapshots")
                   .glob("*.json.gz"))[:count]
    assert files
    out = []
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            out.append(json.load(f)["scenario"])
    return out


def test_arc_clear_many_is_arc_clear() -> None:
    """Every musketry shot of the snapshot battles at every enemy, to its whole base."""
    seen: set[bool] = set()
    for scenario in _snapshot_scenarios(6):
        board = Board.of(GameState.from_dict(scenario))
        shots = [(s, t) for s, o in board.infos.items() if o.can_fire and not o.is_gun
                 for t in board.infos if board.infos[t].side != o.side]
        parts = [board.rect(t).polygon for _, t in shots]
        want = [arc_clear(board, s, t, p) for (s, t), p in zip(shots, parts)]
        got = arc_clear_many(board, [s for s, _ in shots], [t for _, t in shots], parts)
        assert got == want
        seen |= set(want)
    assert seen == {True, False}


def test_tenths_texts_match_python_format() -> None:
    rng = random.Random(11)
    values = [k / 20 for k in range(-2000, 2001)] + [k / 100 for k in range(-600, 601)]
    values += [0.05, 0.15, 0.25, 2.45, -0.04, -0.05, -0.0, 0.0, 1e-9, -1e-9, 1e300, -1e17,
               math.inf, -math.inf, math.nan]
    values += [rng.uniform(-100, 100) for _ in range(20000)]
    assert tenths_texts(np.array(values)) == [f"{v:.1f}" for v in values]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(), max_size=50))
def test_tenths_texts_property(values: list[float]) -> None:
    assert tenths_texts(np.array(values, dtype=float)) == [f"{v:.1f}" for v in values]


def test_sight_origins_many_is_sight_origins() -> None:
    from campo.engine.rulesets.italia.fire import sight_origins
    from campo.engine.rulesets.italia.sight_batch import _sight_origins_many

    for scenario in _snapshot_scenarios(4):
        board = Board.of(GameState.from_dict(scenario))
        ids = sorted(board.infos)
        want = np.array([sight_origins(board, i) for i in ids])
        assert np.array_equal(_sight_origins_many(board, ids), want)
