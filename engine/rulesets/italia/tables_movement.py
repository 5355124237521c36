"""ISD §8 "Tabella della capacita' di Movimento" as data, and move allowances in inches.

The table has one row per mover (infantry and Corps commanders share a row, cavalry and Division
generals another) and five columns: open move, road in march column, linear obstacles / ford
(a deduction), area terrain / hills (a cap), marshes or rice fields (a cap). The artillery rows
print only four values: where they go is ISD A19 (setting ``a19_artillery_terrain_columns``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.troops import Arm, resolve_arm
from campo.engine.rulesets.italia.weather import weather_effects
from campo.errors import CampoInputError


class Mover(str, Enum):
    """A row of the movement table (ISD §8)."""

    INFANTRY = "infantry"  # «Fanteria/Comandanti di Corpo»
    CAVALRY = "cavalry"  # «Cavalleria/Generali di Divisione»
    FOOT_ARTILLERY = "foot_artillery"  # «Artiglieria a piedi»
    HORSE_ARTILLERY = "horse_artillery"  # «Artiglieria a cavallo»


class TerrainClass(str, Enum):
    """How a terrain feature acts on movement (ISD §8 "Tipologie di terreno", table columns)."""

    OPEN = "open"
    ROAD = "road"  # «Su strada in colonna di marcia»
    LINEAR = "linear"  # «Ostacoli lineari / Guado»: a deduction
    AREA = "area"  # «Terreni ad area / Colline»: a cap (ISD A21: woods and towns too)
    MARSH = "marsh"  # «Aquitrini o risaie»: a cap
    IMPASSABLE = "impassable"


TERRAIN_KIND_CLASS: dict[str, TerrainClass] = {
    "open": TerrainClass.OPEN,
    "road": TerrainClass.ROAD,
    "bridge": TerrainClass.ROAD,
    "ford": TerrainClass.LINEAR,
    "stream": TerrainClass.LINEAR,
    "hedge": TerrainClass.LINEAR,
    "wall": TerrainClass.LINEAR,
    "low_wall": TerrainClass.LINEAR,
    "tree_row": TerrainClass.LINEAR,
    "parapet": TerrainClass.LINEAR,
    "stone_wall": TerrainClass.LINEAR,           # «Ostacoli LINEARI» (ISD §8): any linear
    "fortification_line": TerrainClass.LINEAR,   # obstacle, stone walls and field works too
    "tree_lined_road": TerrainClass.ROAD,        # «strade alberate» (ISD §7): a road
    "wood": TerrainClass.AREA,
    "town": TerrainClass.AREA,
    "village": TerrainClass.AREA,
    "farm": TerrainClass.AREA,
    "hill": TerrainClass.AREA,
    "rough": TerrainClass.AREA,
    "cultivated": TerrainClass.AREA,
    "marsh": TerrainClass.MARSH,
    "rice": TerrainClass.MARSH,
    "water": TerrainClass.IMPASSABLE,
    "river": TerrainClass.IMPASSABLE,
}
"""Scenario terrain kinds (interfaces.md) to table columns. Rivers are crossed only at bridges and
fords, by assault column (ISD §9); a ``stream`` is read as fordable along its length."""


@dataclass(frozen=True)
class MovementRow:
    """One row of the table, inches. ``None`` in a cap column = cannot enter («non può entrare»)."""

    move_in: float
    road_march_column_in: float
    linear_deduction_in: float
    area_cap_in: float | None
    marsh_cap_in: float | None
    cites: str = "ISD §8"


MOVEMENT_TABLE: dict[Mover, MovementRow] = {
    Mover.INFANTRY: MovementRow(6.0, 12.0, 2.0, 3.0, 3.0),
    Mover.CAVALRY: MovementRow(12.0, 18.0, 3.0, 6.0, 6.0),
    # ISD A19 "merged_cells" (default): third printed value spans linear/ford, fourth spans
    # area/hills and marshes.
    Mover.FOOT_ARTILLERY: MovementRow(6.0, 12.0, 3.0, None, None, cites="ISD §8, ISD A19"),
    Mover.HORSE_ARTILLERY: MovementRow(12.0, 18.0, 6.0, 3.0, 3.0, cites="ISD §8, ISD A19"),
}
"""ISD §8 movement table, artillery rows by the proposed reading of ISD A19."""

ARTILLERY_ROWS_RIGHT_ALIGNED: dict[Mover, MovementRow] = {
    Mover.FOOT_ARTILLERY: MovementRow(6.0, 12.0, 0.0, 3.0, None, cites="ISD §8, ISD A19"),
    Mover.HORSE_ARTILLERY: MovementRow(12.0, 18.0, 0.0, 6.0, 3.0, cites="ISD §8, ISD A19"),
}
"""ISD A19 alternative: values right-aligned; the ford value is then missing (no deduction)."""


def movement_row(mover: Mover | str, settings: ItaliaSettings | None = None) -> MovementRow:
    """The table row for a mover under the A19 reading in force."""
    mover = Mover(mover)
    s = settings or ItaliaSettings()
    if s.a19_artillery_terrain_columns == "right_aligned" and mover in ARTILLERY_ROWS_RIGHT_ALIGNED:
        return ARTILLERY_ROWS_RIGHT_ALIGNED[mover]
    return MOVEMENT_TABLE[mover]


def mover_for(
    unit_type: str,
    arm: str | None = None,
    *,
    horse: bool = False,
    rank: str | None = None,
    settings: ItaliaSettings | None = None,
) -> Mover:
    """Which row a base moves on (ISD §8; generals by ISD A23).

    Corps (and army) commanders use the infantry row and Division generals the cavalry row; with
    ``a23_commander_move = "six_inch_limit_all"`` every general uses the infantry row (6").
    Rocket batteries are horse artillery (ISD Lists: «Batteria di Razzi, a cavallo»).
    """
    s = settings or ItaliaSettings()
    if unit_type == "general":
        if rank == "division" and s.a23_commander_move == "table":
            return Mover.CAVALRY
        return Mover.INFANTRY
    resolved = resolve_arm(unit_type, arm)
    if resolved is Arm.ARTILLERY:
        return Mover.HORSE_ARTILLERY if horse else Mover.FOOT_ARTILLERY
    return Mover.CAVALRY if resolved is Arm.CAVALRY else Mover.INFANTRY


def terrain_class(kind: str) -> TerrainClass:
    """Table column of a scenario terrain kind; unknown kinds are an error naming the kind."""
    try:
        return TERRAIN_KIND_CLASS[kind]
    except KeyError:
        known = ", ".join(sorted(TERRAIN_KIND_CLASS))
        raise CampoInputError(f"unknown terrain kind {kind!r}; known: {known}", key="kind") from None


def can_enter(mover: Mover | str, kind: str, settings: ItaliaSettings | None = None) -> bool:
    """False where the table says «non può entrare» or the terrain is impassable."""
    row = movement_row(mover, settings)
    cls = terrain_class(kind)
    if cls is TerrainClass.IMPASSABLE:
        return False
    if cls is TerrainClass.AREA:
        return row.area_cap_in is not None
    if cls is TerrainClass.MARSH:
        return row.marsh_cap_in is not None
    return True


def weather_deduction_in(
    mover: Mover | str, weather: str, *, on_hill: bool = False, settings: ItaliaSettings | None = None
) -> float:
    """ISD §13: storm/mud and snow cut every move by the ford amount; snow cuts hills 1" more
    (`weather.WEATHER`, which the modifiers read too)."""
    effects = weather_effects(weather)
    if not effects.moves_less_ford_amount:
        return 0.0
    cut = movement_row(mover, settings).linear_deduction_in
    return cut + effects.hill_extra_deduction_in if on_hill else cut


def movement_allowance(
    unit_type: str,
    arm: str | None = None,
    formation: str = "line",
    terrain: str | Iterable[str] = "open",
    *,
    horse: bool = False,
    rank: str | None = None,
    settings: ItaliaSettings | None = None,
) -> tuple[float, list[str]]:
    """(full move in inches for a base whose front crosses ``terrain`` during the move, why it
    is less than the open move in the table's words) (ISD §8, §13).

    ``terrain`` is a kind or the kinds the front touches, enters or leaves during the move
    (scenario kinds: wood, town, hill, marsh, road, hedge, wall, stream ...). Rules applied:
    road rate only in march column and only if every kind crossed is road; linear obstacles /
    fords deduct once per move (ISD A20, or per obstacle); area and marsh values cap the whole
    move (ISD A21); weather cuts by the ford amount (ISD §13). The move is 0.0 where the mover
    cannot enter («non può entrare», impassable). Charge reach before the Manoeuvre roll is this
    move (a "Well led" result moves normally, ISD ManTab).

    >>> movement_allowance("B")[0], movement_allowance("C")[0], movement_allowance("B", terrain="wood")[0]
    (6.0, 12.0, 3.0)
    >>> movement_allowance("D", formation="march_column", terrain="road")[0]
    12.0
    >>> movement_allowance("E", "cavalry", terrain=["hedge", "stream"])[0]
    9.0
    >>> movement_allowance("C", terrain=["rough"])
    (6.0, ['6" area-terrain cap (rough)'])
    >>> movement_allowance("B", terrain=["wall", "wood"])
    (3.0, ['-2" linear obstacle (wall)', '3" area-terrain cap (wood)'])
    """
    s = settings or ItaliaSettings()
    mover = mover_for(unit_type, arm, horse=horse, rank=rank, settings=s)
    row = movement_row(mover, s)
    kinds = [terrain] if isinstance(terrain, str) else list(terrain)
    classes = [terrain_class(k) for k in kinds] or [TerrainClass.OPEN]
    blocked = [k for k in kinds if not can_enter(mover, k, s)]
    if blocked:
        return 0.0, [f"cannot enter {', '.join(blocked)}"]
    non_open = [c for c in classes if c is not TerrainClass.OPEN]
    on_road_only = bool(non_open) and all(c is TerrainClass.ROAD for c in non_open)
    allowance = (
        row.road_march_column_in
        if formation == "march_column" and on_road_only and unit_type != "general"
        else row.move_in
    )
    limits = []
    linear = [k for k, c in zip(kinds, classes) if c is TerrainClass.LINEAR]
    if linear:
        cut = row.linear_deduction_in * (1 if s.a20_linear_deduction == "once_per_move"
                                         else len(linear))
        allowance -= cut
        limits.append(f'-{cut:g}" linear obstacle ({", ".join(linear)})')
    for cls, cap, name in ((TerrainClass.AREA, row.area_cap_in, "area-terrain"),
                           (TerrainClass.MARSH, row.marsh_cap_in, "marsh")):
        within = [k for k, c in zip(kinds, classes) if c is cls]
        if within and cap is not None:
            allowance = min(allowance, cap)
            if cap < row.move_in:
                limits.append(f'{cap:g}" {name} cap ({", ".join(within)})')
    cut = weather_deduction_in(mover, s.weather, on_hill="hill" in kinds, settings=s)
    if cut:
        allowance -= cut
        limits.append(f'-{cut:g}" {s.weather}')
    return max(0.0, allowance), limits


LIMBERED_ABOUT_FACE_COST_IN = 3.0
"""ISD §8: limbered artillery about-faces on the spot at a cost of 3" of movement."""

GENERAL_DETACH_DISTANCE_IN = 2.0
"""ISD §8: detached commanders are placed 2" from the unit."""

SIDESTEP_MAX_ANGLE_DEG = 30.0
"""ISD §8 "Traslare": at most 30° off the flank direction; cannot contact enemies."""

OBLIQUE_MAX_ANGLE_DEG = 45.0
"""ISD §8 "Movimento obliquo": up to 45° right or left; no wheel while moving obliquely."""

BACKWARD_FRACTION = 0.5
"""ISD §8: any troops may move back up to half their move, facing the enemy."""

ARTILLERY_ORIENT_MAX_DEG = 30.0
"""ISD §8: a battery in battery turns up to 30° pivoting on a corner (ISD A48)."""
