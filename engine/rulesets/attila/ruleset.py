"""The ATTILA ruleset object (engine.ruleset.Ruleset protocol)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.ruleset import Problem
from engine.rulesets.attila.board import Board
from engine.rulesets.attila.charges import Charge, candidates, judge_charge
from engine.rulesets.attila.deployment import zones
from engine.rulesets.attila.melee import advance_pose, retreat_pose
from engine.rulesets.attila.settings import AttilaSettings, load_settings
from engine.rulesets.attila.shooting import arc_drawing
from engine.rulesets.attila.units import MM_PER_CM
from engine.state import GameState
from engine.vocabulary import ATTILA


class AttilaRuleset:
    """ATTILA — measures in centimetres (ATT 0.2 of the digest: «Distanze in cm»)."""

    name = "attila"
    unit = "cm"
    mm_per_unit = MM_PER_CM

    def load_settings(self, values: Mapping[str, Any] | None) -> AttilaSettings:
        return load_settings(values)

    def problems(self, state: GameState) -> list[Problem]:
        from engine.rulesets.attila.checks import state_problems

        out: list[Problem] = []
        for n, b in enumerate(state.bases):
            for key, message in ATTILA.base_problems(b.type, b.traits):
                out.append(Problem(f"bases[{n}]({b.id}).{key}", message, "error", (b.id,)))
        if any(p.severity == "error" for p in out):
            return out
        return out + state_problems(Board.of(state))

    def analyze(self, state: GameState) -> dict[str, Any]:
        from engine.rulesets.attila.analysis import analyze_board

        return analyze_board(Board.of(state))

    def charge(self, state: GameState, charger: str, target: str) -> Charge:
        return judge_charge(Board.of(state), charger, target)

    def charge_candidates(self, state: GameState, charger: str) -> list[str]:
        return candidates(Board.of(state), charger)

    def overlay_geometry(self, state: GameState, base_id: str) -> dict[str, Any]:
        """Arc, range bands, charge paths, retreats and advances after melee, and the own
        deployment zone of one base (table mm)."""
        board = Board.of(state)
        u = board.units[base_id]
        out: dict[str, Any] = {"id": base_id, "polygon": _coords(state.rect(base_id).polygon)}
        if u.missile is not None:
            drawing = arc_drawing(board, base_id)
            out["arc"] = _coords(drawing["arc"])
            out["bands"] = [{"band": b["band"], "upto": b["upto"], "polygon": _coords(b["polygon"])}
                            for b in drawing["bands"]]
        contacts = board.contacts(base_id)
        if contacts:
            # ATT 7.E: where this base retreats if it loses to each enemy touching it, and
            # where it advances if it wins (AT19, AT20).
            out["retreats"] = [{"from": c.other, "polygon": _coords(
                retreat_pose(board, base_id, c.other).polygon)} for c in contacts]
            out["advances"] = [{"into": c.other, "polygon": _coords(
                advance_pose(board, base_id, c.other).polygon)} for c in contacts
                if c.side == "front"]
        if u.is_troops:
            out["deployment_zone"] = _coords(zones(board)[u.side]["legal"])
        out["charges"] = [{"target": c.target, "legal": c.legal,
                           "path": [[round(x, 1), round(y, 1)] for x, y in c.path]}
                          for c in (judge_charge(board, base_id, t)
                                    for t in candidates(board, base_id)) if c.path]
        return out


def _coords(geom: Any) -> list[list[float]]:
    """Exterior ring of a polygon (largest part if several) as [[x, y], ...]."""
    if geom is None or geom.is_empty:
        return []
    if hasattr(geom, "geoms"):
        geom = max(geom.geoms, key=lambda g: g.area)
    if geom.geom_type != "Polygon":
        return []
    return [[round(x, 1), round(y, 1)] for x, y in list(geom.exterior.coords)[:-1]]


RULESET = AttilaRuleset()
