"""After a melee: the loser's retreat, the winner's advance, a General's fate (ATT 7.E, 8.C;
readings AT19, AT20, AT25). Used by the overlay to draw where bases would go.
"""

from __future__ import annotations

import math

import numpy as np

from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.geometry import slide
from campo.engine.rulesets.attila.tables import GENERAL_WOUNDED_FROM, RETREAT_CM

_AWAY = {"front": 180.0, "rear": 0.0, "left": -90.0, "right": 90.0}   # from the heading


def retreat_pose(board: Board, loser: str, winner: str) -> Rect:
    """Where a Disordered loser ends: 5 cm straight away from the edge the winner touches; with
    its back to the enemy (AT19 'back_to_enemy') or keeping its facing ('keep_facing')."""
    r = board.rect(loser)
    side = board.side_touched(loser, winner)
    away = (r.heading_deg + _AWAY[side]) % 360.0
    dist = board.mm(RETREAT_CM * board.settings.at18_distance_scale)
    dx, dy = math.cos(math.radians(away)) * dist, math.sin(math.radians(away)) * dist
    if board.settings.at19_retreat == "back_to_enemy":
        return Rect(r.cx + dx, r.cy + dy, away, r.width, r.depth)
    return r.moved(dx, dy)


def advance_pose(board: Board, winner: str, loser: str) -> Rect:
    """The winner moves straight ahead into the vacated space, up to at20_winner_advance_cm,
    stopping at contact with any other base (AT20)."""
    r = board.rect(winner)
    reach = board.mm(board.settings.at20_winner_advance_cm)
    others = [board.pos[o] for o in board.near(winner, reach)
              if o not in (winner, loser) and not board.units[o].absent]
    stop = reach
    if others:
        me = board.frames.take(np.full(len(others), board.pos[winner]))
        stop = min(stop, float(slide(me.corners, board.frames.corners[others], me.front).min()))
    f = r.front
    return r.moved(f[0] * stop, f[1] * stop)


def general_in_lost_melee(roll_d8: int, *, wounded: bool, killed_from: int) -> str:
    """ATT 8.C, ATT T: 1-2 'no effect' (retires 5 cm), 3 up to ``killed_from`` - 1 wounded (killed
    if already wounded), ``killed_from`` or more killed (AT25: 6-8)."""
    if not 1 <= roll_d8 <= 8:
        raise ValueError(f"a d8 roll is 1 to 8, got {roll_d8}")
    if roll_d8 >= killed_from:
        return "killed"
    if roll_d8 >= GENERAL_WOUNDED_FROM:
        return "killed" if wounded else "wounded"
    return "retires"
