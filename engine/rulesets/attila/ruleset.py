"""The ATTILA ruleset object (`campo.engine.ruleset.Ruleset` protocol)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from campo.engine.geometry.drawing import ring_coords
from campo.engine.results import Allowance
from campo.engine.ruleset import Problem, Ruleset, vocabulary_problems
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.charges import all_candidates
from campo.engine.rulesets.attila.settings import AttilaSettings
from campo.engine.rulesets.attila.tables import CROSSINGS, MM_PER_CM, WATER_LINES
from campo.engine.rulesets.attila.terrain import TERRAIN_EFFECTS
from campo.engine.rulesets.attila.vocabulary import VOCABULARY
from campo.engine.rulesets.attila.warmup import WARMUP_SCENARIO
from campo.engine.state import GameState


class AttilaRuleset(Ruleset):
    """ATTILA: measures in centimetres (ATT 0.2 of the digest: «Distanze in cm»)."""

    package = "campo.engine.rulesets.attila"
    settings_model = AttilaSettings
    name = "attila"
    unit = "cm"
    mm_per_unit = MM_PER_CM
    title = "ATTILA"
    vocabulary = VOCABULARY
    terrain_kinds: Mapping[str, str] = TERRAIN_EFFECTS
    page_module = Path(__file__).with_name("page.js")
    warmup_scenario = WARMUP_SCENARIO

    # --- judging a moment ------------------------------------------------------------------
    def problems(self, state: GameState) -> list[Problem]:
        from campo.engine.rulesets.attila.checks import state_problems

        out = vocabulary_problems(state, VOCABULARY)
        if out:
            return out
        return state_problems(Board.of(state))

    def summary_reach_mm(self, state: GameState) -> float:
        """How far a base's summary reaches: the Generals' 40 cm (commanded_by, ATT 4.C), an
        obliged base's charge ("must charge", ATT 13: `mandatory.charge_reach_mm`), and
        contacts and support (the contact tolerance)."""
        from campo.engine.rulesets.attila.contact import command_reach_mm
        from campo.engine.rulesets.attila.mandatory import charge_reach_mm

        board = Board.of(state)
        return max(command_reach_mm(board), board.settings.at24_general_attached_mm,
                   charge_reach_mm(board)) + 1.0

    def overlay_geometry(self, state: GameState, base_id: str) -> dict[str, Any]:
        """Arc, range bands, charge paths, retreats and advances after melee, and the own
        deployment zone of one base (table mm)."""
        from campo.engine.rulesets.attila.charges import judge_charges
        from campo.engine.rulesets.attila.deployment import zones
        from campo.engine.rulesets.attila.melee import advance_pose, retreat_pose
        from campo.engine.rulesets.attila.shooting import arc_drawing

        board = Board.of(state)
        u = board.units[base_id]
        out: dict[str, Any] = {"id": base_id, "polygon": ring_coords(board.poly(base_id))}
        if u.missile is not None:
            drawing = arc_drawing(board, base_id)
            out["arc"] = ring_coords(drawing["arc"])
            out["bands"] = [{"band": b["band"], "upto": b["upto"],
                             "polygon": ring_coords(b["polygon"])} for b in drawing["bands"]]
        contacts = board.contacts(base_id)
        if contacts:
            # ATT 7.E: where this base retreats if it loses to each enemy touching it, and
            # where it advances if it wins (AT19, AT20).
            out["retreats"] = [{"from": c.other, "polygon": ring_coords(
                retreat_pose(board, base_id, c.other).polygon)} for c in contacts]
            out["advances"] = [{"into": c.other, "polygon": ring_coords(
                advance_pose(board, base_id, c.other).polygon)} for c in contacts
                if c.side == "front"]
        if u.is_troops:
            out["deployment_zone"] = ring_coords(zones(board)[u.side]["legal"])
        found = all_candidates(board, [base_id])[base_id]
        charges = judge_charges(board, [(base_id, t) for t in found])
        out["charges"] = [{"target": c.target, "legal": c.legal,
                           "path": [[round(x, 1), round(y, 1)] for x, y in c.path]}
                          for c in charges.values() if c.path]
        return out

    def movement_allowance(self, state: GameState, base_id: str,
                           terrain_kinds: Sequence[str]) -> Allowance:
        """The normal move (`units.Unit.move_cm`): the General's 24 cm (ATT 5.E; wounded 10 cm,
        8.C), the Camp never (8.B), troops the group's ``move_cm_<type>`` setting — not in the
        rulebook (AT11), so ``gap``. Terrain (ATT 5.B, 5.F) does not shorten the move, it stops
        the unit on entering, so the allowance stays the normal move and the basis says so;
        terrain the base may not enter (charges' reading, AT16) or water without a crossing
        gives 0."""
        from campo.engine.rulesets.attila.moves import move_budget
        from campo.engine.rulesets.attila.paths import forbidden_kinds, stopping_kinds
        from campo.engine.rulesets.attila.settings import GAP_PREFIX

        board = Board.of(state)
        u, s = board.units[base_id], board.settings
        if u.is_camp:
            return Allowance(0.0, self.unit, "the Camp never moves", ("ATT 8.B",))
        rate = u.move_cm(s)
        kinds = set(terrain_kinds)
        if u.is_general:
            what, cites = (("wounded General", ["ATT 8.C"]) if u.wounded
                           else ("General", ["ATT 5.E"]))
        else:
            what, cites = f"{u.type}", ["ATT 5", "ATT AT11"]
        if s.at18_distance_scale != 1.0:
            cites.append("ATT AT18")
        forbidden = sorted(kinds & forbidden_kinds(board, u.mounted))
        water = sorted(kinds & WATER_LINES)
        if forbidden or (water and not kinds & CROSSINGS):
            why = (f"{'mounted units may not' if u.mounted else 'no unit may'} enter "
                   f"{', '.join(forbidden)}" if forbidden
                   else f"crosses {', '.join(water)} only at bridges or fords")
            return Allowance(0.0, self.unit, f"{what}: {why}",
                             ("ATT 5.B", "ATT AT16") if "rough" in forbidden else ("ATT 5.B",))
        ground = ", ".join(sorted(kinds - {"open"})) or "open ground"
        text = f"{what}, {ground}: {rate:g} cm"
        if u.move_is_gap():
            text += (f" (move_cm_{u.type.lower()}: {GAP_PREFIX}"
                     f"{'; agreed by the group' if s.at11_rates_confirmed else ''})")
        stops = sorted(kinds & stopping_kinds(board, u.mounted))
        if stops:
            text += f"; entering {', '.join(stops)} stops the unit, a move inside is 1D6 less"
            cites += ["ATT 5.B", "ATT 5.F"]
        if "ford" in kinds:
            text += "; reaching the ford stops the unit, its next move is 1D6 less"
            cites.append("ATT 5.B")
        budget = move_budget(board, base_id)
        if budget.roll is not None:
            rate = budget.available_cm
            text += f"; {rate:g} cm after the 1D6 rolled ({budget.roll})"
            cites.append("ATT 5.B")
        if u.is_troops:
            text += (f"; wheels up to {budget.wheel_limit_cm:g} cm of the moving corner's arc "
                     f"({budget.wheel_phrase()}), forwards only")
            cites += ["ATT 5.G", "ATT 5.I", "ATT AT15"]
        return Allowance(rate, self.unit, text, tuple(dict.fromkeys(cites)), u.move_is_gap())

    # --- a live game -----------------------------------------------------------------------
    def memory(self) -> Any:
        """Groups that split stay split (ATT 4.M): `memory.GroupMemory`."""
        return self.module("memory").GroupMemory()

    def umpire_tool(self, seed: int | None) -> Any:
        """The deck of cards that sequences each turn (ATT 14): `deck.DeckTool`."""
        return self.module("deck").DeckTool(seed)


RULESET = AttilaRuleset()
