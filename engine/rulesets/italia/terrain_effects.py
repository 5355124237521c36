"""What each terrain kind does under "L'Italia s'è desta!", one line per kind for the terrain
editor (`ItaliaRuleset.terrain_kinds`), read from the tables the verdicts use (movement, cover,
melee), never retyped.

>>> lines = terrain_kinds()
>>> sorted(lines) == sorted(TERRAIN_KINDS)
True
>>> lines["wood"].split("; ")[0]
'area terrain: moves capped at 3" (infantry), 6" (cavalry), foot artillery cannot enter'
"""

from __future__ import annotations

from campo.engine.rulesets.italia.tables_melee import (FLANK_COVER_AREAS, GARRISONS,
                                                       LINEAR_OBSTACLES, SOFT_GROUND)
from campo.engine.rulesets.italia.tables_movement import (MOVEMENT_TABLE, TERRAIN_KIND_CLASS,
                                                          Mover, TerrainClass)
from campo.engine.terrain import TERRAIN_KINDS

_ROWS = ((Mover.INFANTRY, "infantry"), (Mover.CAVALRY, "cavalry"),
         (Mover.FOOT_ARTILLERY, "foot artillery"), (Mover.HORSE_ARTILLERY, "horse artillery"))


def _movement(kind: str) -> str:
    """ISD §8 table: the column the kind falls in, with each mover's value."""
    cls = TERRAIN_KIND_CLASS.get(kind)
    if cls is None:
        return "no effect on moves"
    if cls is TerrainClass.OPEN:
        return "open ground"
    if cls is TerrainClass.IMPASSABLE:
        return "impassable (crossed only at bridges and fords)"
    if cls is TerrainClass.ROAD:
        rates = {f'{MOVEMENT_TABLE[m].road_march_column_in:g}" ({name})' for m, name in _ROWS[:2]}
        return "road: march columns move " + ", ".join(sorted(rates))
    if cls is TerrainClass.LINEAR:
        cuts = [f'{MOVEMENT_TABLE[m].linear_deduction_in:g}" ({name})' for m, name in _ROWS]
        return "linear obstacle: crossing costs " + ", ".join(cuts)
    caps, barred = [], []
    for m, name in _ROWS:
        row = MOVEMENT_TABLE[m]
        cap = row.area_cap_in if cls is TerrainClass.AREA else row.marsh_cap_in
        if cap is None:
            barred.append(name)
        elif cap < row.move_in and name in ("infantry", "cavalry"):
            caps.append(f'{cap:g}" ({name})')
    what = "area terrain" if cls is TerrainClass.AREA else "marsh"
    text = f"{what}: moves capped at " + ", ".join(caps)
    return text + (f", {' and '.join(barred)} cannot enter" if barred else "")


def _cover(kind: str) -> str:
    """ISD §6, §7: the cover it gives against musketry and bombardment (A35: in melee too)."""
    from campo.engine.rulesets.italia.fire import ARTILLERY_COVER, MUSKETRY_COVER

    musketry, guns = MUSKETRY_COVER.get(kind), ARTILLERY_COVER.get(kind)
    if not (musketry or guns):
        return ""
    parts = [f"{musketry} cover from musketry" if musketry else "",
             f"{guns} cover from artillery" if guns else ""]
    return ", ".join(p for p in parts if p)


def _melee(kind: str) -> list[str]:
    """ISD §1, §9: what it changes in charges and melees."""
    out = []
    if kind in FLANK_COVER_AREAS:
        out.append("a unit wholly inside cannot be attacked in the flank")
    if kind in LINEAR_OBSTACLES:
        out.append("defended: +1 in melee, and no flank attack on a unit along it")
    if kind in GARRISONS:
        out.append("cavalry may not charge infantry garrisoned in it")
    if kind in SOFT_GROUND:
        out.append("cavalry fights at -2 in it")
    if kind == "hill":
        out.append("uphill: +1 (gentle) or +2 (steep) in melee; levels for fire over")
    return out


def _sight(kind: str) -> str:
    """ISD §6: what it does to lines of sight (the sight field's obstacles)."""
    from campo.engine.rulesets.italia.board import DEEP_AREAS, SIGHT_BLOCKING_LINES

    if kind in SIGHT_BLOCKING_LINES:
        return "blocks lines of sight across it"
    if kind in DEEP_AREAS:
        return "blocks lines of sight running deep inside it"
    if kind == "hill":
        return "its crest blocks lines of sight"
    return ""


def terrain_kinds() -> dict[str, str]:
    """Every kind the engine knows -> what it does under ISD, in one line."""
    out = {}
    for kind in TERRAIN_KINDS:
        parts = [_movement(kind), _cover(kind), _sight(kind), *_melee(kind)]
        out[kind] = "; ".join(p for p in parts if p)
    return out
