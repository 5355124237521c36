"""The "L'Italia s'è desta!" ruleset object (engine.ruleset.Ruleset protocol)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campo.engine.geometry.arcs import arc_to_range, band_rings
from campo.engine.results import Allowance
from campo.engine.ruleset import Problem, Ruleset, placement_problems, vocabulary_problems
from campo.engine.rulesets.italia.board import MM_PER_IN, Board
from campo.engine.rulesets.italia.charges import Charge, charge_arc, charges_of
from campo.engine.rulesets.italia.fire import fire_arc
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_fire import bands
from campo.engine.rulesets.italia.terrain_effects import terrain_kinds
from campo.engine.state import GameState
from campo.engine.rulesets.italia.vocabulary import VOCABULARY
from campo.engine.rulesets.italia.warmup import WARMUP_SCENARIO
from campo.engine.geometry.drawing import ring_coords
from campo.engine.geometry.rect import Rect


class ItaliaRuleset(Ruleset):
    """L'Italia s'è desta! — measures in inches of 25 mm (ISD Intro)."""

    package = "campo.engine.rulesets.italia"
    settings_model = ItaliaSettings
    name = "italia-se-desta"
    unit = "in"
    mm_per_unit = MM_PER_IN
    title = "L'Italia s'è desta!"
    vocabulary = VOCABULARY
    terrain_kinds = terrain_kinds()
    page_module = None
    warmup_scenario = WARMUP_SCENARIO

    def problems(self, state: GameState) -> list[Problem]:
        out = vocabulary_problems(state, VOCABULARY)
        for n, b in enumerate(state.bases):
            if b.type == "E" and "arm" not in b.traits:
                out.append(Problem(f"bases[{n}]({b.id}).traits.arm",
                                   "letter E is infantry or cavalry: say which (read as infantry)",
                                   "warning", (b.id,)))
        if any(p.severity == "error" for p in out):
            return out
        out += placement_problems(state)
        return out

    def overlay_geometry(self, state: GameState, base_id: str) -> dict[str, Any]:
        """Arc, range bands, charge arc and charge paths of one base, and a general's command
        radius (ISD §3, under the weather), table mm."""
        from campo.engine.rulesets.italia.troops import command_radius_in

        board = Board.of(state)
        info = board.infos[base_id]
        out: dict[str, Any] = {"id": base_id, "polygon": ring_coords(state.rect(base_id).polygon)}
        if info.is_general:
            out["command_radius_mm"] = board.mm(command_radius_in(info.rank or "division",
                                                                  weather=board.settings.weather))
        if info.can_fire:
            front = board.front(base_id)
            arc = fire_arc(board, base_id, info.fire_range_in)
            rows = bands(info.is_gun)
            rings = band_rings(arc, front.left, front.right, [board.mm(r.upper_in) for r in rows])
            out["arc"] = ring_coords(arc_to_range(arc, front.left, front.right,
                                              board.mm(info.fire_range_in)))
            out["bands"] = [{"band": r.band.value, "upto": r.upper_in, "polygon": ring_coords(ring)}
                            for r, ring in zip(rows, rings)]
        if info.can_charge:
            out["charge_arc"] = ring_coords(charge_arc(board, base_id))
            out["charges"] = [_charge_drawing(state, base_id, c)
                              for c in charges_of(board, [base_id])[base_id] if c.path]
        return out

    def movement_allowance(self, state: GameState, base_id: str,
                           terrain_kinds: Sequence[str]) -> Allowance:
        """ISD §8 movement table (`tables_movement.movement_allowance`, A19–A21 and A23
        readings, weather ISD §13). Kinds the table does not know (crest, orchard ...) do not
        change the move and are named in the basis; 0 where the table says «non può entrare»."""
        from campo.engine.rulesets.italia import tables_movement as tm

        board = Board.of(state)
        base, info, s = state.base(base_id), board.infos[base_id], board.settings
        arm = info.arm if info.kind == "unit" else None
        horse = info.moves_as_horse_artillery
        formation = "march_column" if info.march_column else "line"
        kinds = sorted({k for k in terrain_kinds if k in tm.TERRAIN_KIND_CLASS} - {"open"})
        ignored = sorted({k for k in terrain_kinds if k not in tm.TERRAIN_KIND_CLASS})
        amount, _ = tm.movement_allowance(base.type, arm, formation, kinds or "open",
                                          horse=horse, rank=info.rank, settings=s)
        mover = tm.mover_for(base.type, arm, horse=horse, rank=info.rank, settings=s)
        row = tm.movement_row(mover, s)
        cites = [*row.cites.split(", ")] + (["ISD A23"] if info.is_general else [])
        classes = {tm.terrain_class(k) for k in kinds}
        cites += (["ISD A20"] if tm.TerrainClass.LINEAR in classes else []) + \
            (["ISD A21"] if tm.TerrainClass.AREA in classes else [])
        what = (f"{info.rank} general" if info.is_general else
                f"{base.type} {mover.value.replace('_', ' ')}, {formation.replace('_', ' ')}")
        ground = ", ".join(kinds) or "open ground"
        blocked = [k for k in kinds if not tm.can_enter(mover, k, s)]
        if blocked:
            text = f"{what}: cannot enter {', '.join(blocked)} («non può entrare»)"
        else:
            row_text = [f"open {row.move_in:g}", f"road column {row.road_march_column_in:g}",
                        f"obstacle -{row.linear_deduction_in:g}"]
            row_text += [f"{name} ≤ {v:g}" for name, v in (("area", row.area_cap_in),
                                                           ("marsh", row.marsh_cap_in))
                         if v is not None]
            text = f"{what}, {ground}: {amount:g} in (table row: {', '.join(row_text)})"
            cut = tm.weather_deduction_in(mover, s.weather, on_hill="hill" in kinds, settings=s)
            if cut:
                text += f"; {s.weather}: -{cut:g}"
                cites.append("ISD §13")
        if ignored:
            text += f"; no effect on moves: {', '.join(ignored)}"
        return Allowance(amount, self.unit, text, tuple(dict.fromkeys(cites)))


RULESET = ItaliaRuleset()


def _charge_drawing(state: GameState, charger: str, c: Charge) -> dict[str, Any]:
    """A charge as the overlay draws it: its path, the charger's outline at contact (after the
    flush pivot, ISD A30) and where an interception stops it (ISD A29)."""
    out: dict[str, Any] = {"target": c.target, "legal": c.legal, "path": c.path}
    pose = c.flush_pose or c.final_pose
    if pose:
        r = state.rect(charger)
        at = Rect(pose["x_mm"], pose["y_mm"], pose["heading_deg"], r.width, r.depth)
        out["contact_outline"] = ring_coords(at.polygon)
    if c.intercepted_at:
        out["intercepted_at"] = [round(v, 1) for v in c.intercepted_at]
    return out
