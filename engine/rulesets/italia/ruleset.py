"""The "L'Italia s'è desta!" ruleset object (engine.ruleset.Ruleset protocol)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import shapely

from engine.geometry.arcs import arc_to_range, band_rings
from engine.ruleset import Problem
from engine.rulesets.italia.board import MM_PER_IN, Board
from engine.rulesets.italia.charges import Charge, candidates, charge_arc, judge_charge
from engine.rulesets.italia.fire import ARTILLERY_BANDS, MUSKETRY_BANDS, fire_arc
from engine.rulesets.italia.settings import ItaliaSettings, load_settings
from engine.state import GameState
from engine.vocabulary import ITALIA


class ItaliaRuleset:
    """L'Italia s'è desta! — measures in inches of 25 mm (ISD Intro)."""

    name = "italia-se-desta"
    unit = "in"
    mm_per_unit = MM_PER_IN

    def load_settings(self, values: Mapping[str, Any] | None) -> ItaliaSettings:
        return load_settings(values)

    def problems(self, state: GameState) -> list[Problem]:
        out: list[Problem] = []
        for n, b in enumerate(state.bases):
            for key, message in ITALIA.base_problems(b.type, b.traits):
                out.append(Problem(f"bases[{n}]({b.id}).{key}", message, "error", (b.id,)))
            if b.type == "E" and "arm" not in b.traits:
                out.append(Problem(f"bases[{n}]({b.id}).traits.arm",
                                   "letter E is infantry or cavalry: say which (read as infantry)",
                                   "warning", (b.id,)))
        if any(p.severity == "error" for p in out):
            return out
        table = shapely.box(-1.0, -1.0, state.scenario.table.width_mm + 1.0,
                            state.scenario.table.depth_mm + 1.0)
        shapely.prepare(table)
        for b in state.bases:
            if not table.covers(state.rect(b.id).polygon):
                out.append(Problem(f"bases({b.id})", "base lies partly off the table",
                                   "warning", (b.id,)))
        for a, b in state.index.pairs_within(0.0):
            inter = shapely.intersection(state.rect(a).polygon, state.rect(b).polygon)
            if inter.area > 25.0:   # more than 5 x 5 mm: not tracking noise
                out.append(Problem(f"bases({a},{b})", f"{a} and {b} overlap by "
                                   f"{inter.area:.0f} mm²", "warning", (a, b)))
        return out

    def analyze(self, state: GameState) -> dict[str, Any]:
        from engine.rulesets.italia.analysis import analyze_board

        return analyze_board(Board.of(state))

    def charge(self, state: GameState, charger: str, target: str) -> Charge:
        return judge_charge(Board.of(state), charger, target)

    def charge_candidates(self, state: GameState, charger: str) -> list[str]:
        return candidates(Board.of(state), charger)

    def overlay_geometry(self, state: GameState, base_id: str) -> dict[str, Any]:
        """Arc, range bands, charge arc and charge paths of one base, table mm."""
        board = Board.of(state)
        info = board.infos[base_id]
        out: dict[str, Any] = {"id": base_id, "polygon": _coords(state.rect(base_id).polygon)}
        if info.can_fire:
            front = board.front(base_id)
            arc = fire_arc(board, base_id, info.fire_range_in)
            edges = [u for u, _ in (ARTILLERY_BANDS if info.is_gun else MUSKETRY_BANDS)]
            rings = band_rings(arc, front.left, front.right, [board.mm(e) for e in edges])
            out["arc"] = _coords(arc_to_range(arc, front.left, front.right,
                                              board.mm(info.fire_range_in)))
            out["bands"] = [{"band": b.value, "upto": u, "polygon": _coords(ring)}
                            for (u, b), ring in zip(ARTILLERY_BANDS if info.is_gun
                                                    else MUSKETRY_BANDS, rings)]
        if info.can_charge:
            out["charge_arc"] = _coords(charge_arc(board, base_id))
            out["charges"] = [{"target": c.target, "legal": c.legal, "path": c.path}
                              for c in (judge_charge(board, base_id, t)
                                        for t in candidates(board, base_id)) if c.path]
        return out


def _coords(geom: Any) -> list[list[float]]:
    """Exterior ring of a polygon (largest part if several) as [[x, y], ...]."""
    if geom.is_empty:
        return []
    if hasattr(geom, "geoms"):
        geom = max(geom.geoms, key=lambda g: g.area)
    if geom.geom_type != "Polygon":
        return []
    return [[round(x, 1), round(y, 1)] for x, y in list(geom.exterior.coords)[:-1]]


RULESET = ItaliaRuleset()
