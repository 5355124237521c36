"""What each terrain kind the engine knows does under ATTILA, one line each for the terrain
editor (`Ruleset.terrain_kinds`), read from the classes in `tables` that the verdicts use.

>>> TERRAIN_EFFECTS["ford"]
'ford: a crossing of rivers and streams; reaching it stops the unit, its next move is 1D6 less (ATT 5.B); groups move along or over it in column (ATT 4.B)'
"""

from __future__ import annotations

from campo.engine.rulesets.attila.tables import (
    COLUMN_FEATURES, CROSSINGS, DEFENCES, DEFENDED_AREAS, HILLS, MARSHES, ROUGH, WATER_AREAS,
    WATER_LINES, WOODS,
)
from campo.engine.terrain import TERRAIN_KINDS

NO_EFFECT = "open ground: no rule of ATTILA names it"


def _effects(kind: str) -> list[str]:
    out = []
    if kind in WOODS:
        out += ["only infantry and Generals enter; entering stops the unit, a move inside is "
                "1D6 less (ATT 5.B)",
                "no shooting through it; only bases on its edge shoot out or can be shot, in "
                "cover (ATT 6.A, 6.C, AT8)",
                "cavalry or pikemen attacking into it: a draw disorders them (ATT T); mounted "
                "units need not charge into it (ATT 13)"]
    if kind in MARSHES:
        out.append("only infantry and Generals enter; entering stops the unit, a move inside "
                   "is 1D6 less (ATT 5.B)")
    if kind in ROUGH:
        out.append("difficult terrain: entering stops the unit, a move inside is 1D6 less, the "
                   "whole move counts as inside once the front line is on it (ATT 5.B, 5.F, "
                   "AT16, AT17); mounted units need not charge into it (ATT 13)")
    if kind in HILLS:
        out.append("no shooting across it unless shooter or target stands on it (ATT 6.A); "
                   "attacking uphill, a draw disorders cavalry and heavy foot (ATT 7.B, AT23)")
    if kind in WATER_LINES:
        out.append("crossed only at bridges or fords (ATT 5.B)")
    if kind in WATER_AREAS:
        out.append("no unit enters it (ATT 5.B)")
    if kind in CROSSINGS:
        out.append("a crossing of rivers and streams"
                   + ("; reaching it stops the unit, its next move is 1D6 less (ATT 5.B)"
                      if kind == "ford" else " (ATT 5.B)"))
    if kind in DEFENCES:
        out.append("cover for bases behind it: a hit is saved on 4-6 (ATT 6.C)")
    if kind in DEFENDED_AREAS:
        out.append("cover for bases inside: a hit is saved on 4-6 (ATT 6.C)")
    if kind in COLUMN_FEATURES:
        out.append("groups move along or over it in column (ATT 4.B)")
    return out


TERRAIN_EFFECTS: dict[str, str] = {
    kind: f"{kind}: {'; '.join(_effects(kind)) or NO_EFFECT}" for kind in TERRAIN_KINDS}
"""Every terrain kind of `campo.engine.terrain.TERRAIN_KINDS` -> what it does under ATTILA."""
