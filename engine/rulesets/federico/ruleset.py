"""The Federico ruleset object (engine.ruleset.Ruleset protocol)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from campo.engine.geometry.drawing import ring_coords
from campo.engine.results import Allowance
from campo.engine.ruleset import Problem, Ruleset, placement_problems, vocabulary_problems
from campo.engine.rulesets.federico.attacks import Attack, candidates
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.fire import arc_drawing
from campo.engine.rulesets.federico.melee import judge
from campo.engine.rulesets.federico.morale import army_problems
from campo.engine.rulesets.federico.movement import (
    MOVES,
    Ground,
    barred,
    base_rate_cm,
    halving,
    terrain_exempt,
)
from campo.engine.rulesets.federico.reference import terrain_effects
from campo.engine.rulesets.federico.settings import GAP_PREFIX, FedericoSettings
from campo.engine.rulesets.federico.units import HALVED_MOVE, MM_PER_CM
from campo.engine.rulesets.federico.vocabulary import VOCABULARY
from campo.engine.rulesets.federico.warmup import WARMUP_SCENARIO
from campo.engine.state import GameState


class FedericoRuleset(Ruleset):
    """Federico — measures in centimetres (Federico "Raggio di tiro": «9CM Corta»)."""

    package = "campo.engine.rulesets.federico"
    settings_model = FedericoSettings
    name = "federico"
    unit = "cm"
    mm_per_unit = MM_PER_CM
    title = "Federico"
    vocabulary = VOCABULARY
    terrain_kinds: Mapping[str, str] = terrain_effects(FedericoSettings())
    page_module = Path(__file__).with_name("page.js")
    warmup_scenario = WARMUP_SCENARIO

    # --- judging a moment ------------------------------------------------------------------
    def problems(self, state: GameState) -> list[Problem]:
        out = vocabulary_problems(state, VOCABULARY)
        if out:
            return out
        board = Board.of(state)
        for key, message in army_problems(board):
            out.append(Problem(key, message))
        for n, b in enumerate(state.bases):
            out.extend(self._base_warnings(board, n, b))
        for key, message, bases in board.regiments.problems():
            out.append(Problem(key, message, "warning", bases))
        out += placement_problems(state)
        return out

    @staticmethod
    def _base_warnings(board: Board, n: int, b: Any) -> list[Problem]:
        p, s = board.pieces[b.id], board.settings
        out = []
        key = f"bases[{n}]({b.id})"
        if p.formation == "limbered" and p.arm != "artillery":
            out.append(Problem(f"{key}.traits.formation", "only artillery is limbered "
                               "(read as line)", "warning", (b.id,)))
        if p.arm in ("cavalry", "artillery") and p.weight is None:
            out.append(Problem(f"{key}.traits.weight", f"{p.arm} needs traits.weight "
                               "(heavy, medium, light); read as medium", "warning", (b.id,)))
        if p.is_commander and p.rank == "chief" and p.ability is None:
            out.append(Problem(f"{key}.traits.ability", "the Commander in Chief needs "
                               "traits.ability 1-4 (Federico \"Comandanti\")", "warning", (b.id,)))
        if s.f14_base_sizes == "warn_if_mixed" and p.is_troop:
            w, d = getattr(s, f"base_size_{p.arm}_mm")
            tol = s.base_size_tolerance_mm
            if abs(b.width_mm - w) > tol or abs(b.depth_mm - d) > tol:
                out.append(Problem(f"{key}.width_mm", f"{p.arm} base is {b.width_mm:g} x "
                                   f"{b.depth_mm:g} mm, the group's basing is {w:g} x {d:g} mm "
                                   "(base_size_" + p.arm + "_mm; Federico F14)",
                                   "warning", (b.id,)))
        return out

    def charge(self, state: GameState, charger: str, target: str) -> Attack:
        return judge(Board.of(state), [(charger, target)])[0]

    def charge_candidates(self, state: GameState, charger: str) -> list[str]:
        return candidates(Board.of(state), [charger])[charger]

    def overlay_geometry(self, state: GameState, base_id: str) -> dict[str, Any]:
        """Arc, range bands and attack paths of one base, and a commander's command radius (the
        setting ``command_radius_cm``, when one is set), table mm."""
        board = Board.of(state)
        out: dict[str, Any] = {"id": base_id, "polygon": ring_coords(state.rect(base_id).polygon)}
        radius = board.mm(board.settings.command_radius_cm)
        if board.pieces[base_id].is_commander and 0 < radius < math.inf:
            out["command_radius_mm"] = radius
        if board.pieces[base_id].can_fire:
            drawing = arc_drawing(board, base_id)
            out["arc"] = ring_coords(drawing["arc"])
            out["bands"] = [{"band": b["band"], "upto": b["upto"],
                             "polygon": ring_coords(b["polygon"])} for b in drawing["bands"]]
        near = candidates(board, [base_id])[base_id]
        out["charges"] = [{"target": c.target, "legal": c.legal,
                           "path": [[round(x, 1), round(y, 1)] for x, y in c.path]}
                          for c in judge(board, [(base_id, t) for t in near]) if c.path]
        return out

    def movement_allowance(self, state: GameState, base_id: str,
                           terrain_kinds: Sequence[str]) -> Allowance:
        """Federico "Movimenti": the rate by arm and formation (`movement.base_rate_cm`), halved
        on broken ground, across an obstacle or a fordable stream except for Light Infantry and
        Indians (F16; the kinds are the settings ``broken_ground``, ``obstacles``,
        ``stream_kinds``); woods and villages only in march column along a road (else 0)."""
        board = Board.of(state)
        p, s = board.pieces[base_id], board.settings
        rate = base_rate_cm(board, base_id)
        touched = Ground.of_kinds(s, terrain_kinds)
        gap = p.arm == "artillery" and p.formation == "line"   # a gap setting gives its move
        kind = ("light infantry" if p.light_infantry else "Indians" if p.skirmisher
                else p.arm)
        if p.is_commander:
            what = "commander"
        elif p.arm == "artillery":
            what = {"line": "artillery in battery", "limbered": "limbered artillery"}.get(
                p.formation, "artillery in march column")
        else:
            what = f"{kind} in {'march column' if p.march_column else 'line'}"
        gap_note = ("; artillery in battery limbers first (a turn): its move is the setting "
                    f"artillery_in_battery_move_cm, {GAP_PREFIX}" if gap else "")
        closed = barred(p, touched.closed, touched.road)
        if closed:
            return Allowance(0.0, self.unit, f"{what}: may enter {', '.join(closed)} only in "
                             "march column along a road", (MOVES,))
        halved = halving(s, touched)
        ground = ", ".join(sorted(set(terrain_kinds) - {"open"})) or "open ground"
        if not halved:
            text = f"{what}, {ground}: {rate:g} cm"
        elif terrain_exempt(p):
            text = f"{what}, {ground}: {rate:g} cm (not halved: {kind})"
        else:
            text = f"{what}, {ground}: half of {rate:g} cm"
            rate *= HALVED_MOVE
        if touched.broken and s.f16_halved_move == "portion_only" and not terrain_exempt(p):
            text += " (F16 portion_only: the way on broken ground counts double, not applied here)"
        cites = (MOVES, "Federico F16") if halved or touched.broken else (MOVES,)
        return Allowance(rate, self.unit, text + gap_note, cites, gap)

    # --- a live game -----------------------------------------------------------------------
    def manoeuvre_test(self, state: GameState, unit: str) -> Any:
        """Federico has no test a single base takes to move or rally (its morale test is the
        defender's, in a melee: `melee_test`)."""
        from campo.errors import CampoInputError

        raise CampoInputError("Federico has no manoeuvre or rally test for one base (the "
                              "defender's morale test belongs to a melee)", key="manoeuvre")

    def roster_catalogue(self, settings: Mapping[str, Any]) -> Any:
        """Base sizes from the group's settings (F14 leaves them to the players)."""
        from campo.engine.rulesets.federico.catalogue import roster_catalogue

        return roster_catalogue(self.load_settings(dict(settings)))


RULESET = FedericoRuleset()
