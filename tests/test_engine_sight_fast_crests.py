"""Crests running through the bases (batteries on a hill's crest, lines along it): the walk
leaves the crests cut by a firer or target to GEOS, line by line, and the analysis still equals
the plain path's (`use_index=False`), with both GEOS rounds of `sight_batch.sight_many` used."""

from __future__ import annotations

import collections
import sys
from pathlib import Path
from typing import Any

import pytest

from campo.engine.geometry.sight import SightField
from campo.engine.state import GameState

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from engine_analysis import battle  # noqa: E402


def _crested_battle() -> dict[str, Any]:
    sc = battle(40, 900.0)
    rows = collections.Counter(round(b["y_mm"], 1) for b in sc["bases"])
    guns = {round(b["y_mm"], 1) for b in sc["bases"] if b["type"] == "gun"}
    for k, y in enumerate(sorted(guns | {y for y, _ in rows.most_common(4)})):
        bend = 300.0 if k % 2 else -300.0     # along the bases, then across the field
        sc["terrain"].append({"id": f"crest-{k}", "kind": "hill",
                              "polygon_mm": [[0, y - 30], [450, y - 30], [900, y + bend],
                                             [450, y + 30], [0, y + 30]],
                              "crest_mm": [[0, y], [450, y], [900, y + bend]]})
    return sc


def test_crests_through_bases_equal_plain_path(monkeypatch: pytest.MonkeyPatch) -> None:
    sc = _crested_battle()
    asked: list[int] = []
    clear_of_terrain = SightField.clear_of_terrain

    def counted(self: SightField, lines: Any, *args: Any) -> Any:
        asked.append(len(lines))
        return clear_of_terrain(self, lines, *args)

    monkeypatch.setattr(SightField, "clear_of_terrain", counted)
    fast = GameState.from_dict(sc).analyze()
    assert len(asked) == 2 and min(asked) > 0        # GEOS decided lines in both rounds
    plain = GameState.from_dict(sc, use_index=False).analyze()
    assert fast == plain
