"""Contacts by side and what they mean in melee (ATT 7, 8; readings AT1-AT3, AT22-AT24).

Up to four attackers, one per side of the base (ATT 7.A); a base is attacked in flank only when
in melee with enemies on two different sides (ATT 7.C, AT3); Generals touching a friend are
attached (AT24); commanded_by lists the Generals within 40 cm (ATT 4.C).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.tables import (
    ATTACKERS_PER_SIDE, GENERAL_REACH_CM, HILLS, UPHILL_DRAW_TYPES, WOODS,
)

SIDES = ("front", "left", "right", "rear")


def contacts_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Enemies touching this base, with the aspect (and side) of THIS base they touch (none
    for a base the camera has lost: it touches nobody on the board)."""
    if board.units[base_id].absent:
        return []
    return [{"id": c.other, "aspect": c.aspect, "side": c.side,
             **({"close_calls": ["contact"]} if c.close else {})}
            for c in board.contacts(base_id)]


def flank_attackers(board: Board, base_id: str) -> list[str]:
    """Enemies that add 1d4 -1 for attacking this base in the flank (ATT 7.C, ATT T, AT3)."""
    contacts = board.contacts(base_id)
    sides = {c.side for c in contacts}
    if board.settings.at3_flank_attack == "two_sides" and len(sides) < 2:
        return []
    return sorted(c.other for c in contacts if c.side != "front")


def over_subscribed_sides(board: Board, base_id: str) -> list[str]:
    """Sides touched by more than one enemy: only one of them may attack per phase (ATT 7.A)."""
    counts: dict[str, int] = {}
    for c in board.contacts(base_id):
        counts[c.side] = counts.get(c.side, 0) + 1
    return [s for s in SIDES if counts.get(s, 0) > ATTACKERS_PER_SIDE]


def general_gaps(board: Board) -> dict[str, list[tuple[str, float]]]:
    """Every base -> (own General, gap mm) of each own General within the command reach or the
    attachment distance, in id order: one STRtree query from the Generals (once per state). A
    live game's moment takes over from the moment before, while the Generals are those given
    as then, the entries of the bases given as then (`GameState.changes`), and measures only
    the others."""
    def build() -> dict[str, list[tuple[str, float]]]:
        out: dict[str, list[tuple[str, float]]] = {i: [] for i in board.ids}
        generals = [i for i in board.ids if board.units[i].is_general]
        if not generals:
            return out
        reach = max(command_reach_mm(board), board.settings.at24_general_attached_mm) + 1e-6
        changed = board.state.changes.changed
        scene = (reach, generals)
        before = board.state.handed_on("attila.general_gaps")
        rows = np.array([board.pos[g] for g in generals])
        if before is not None and before[0] == scene and changed.isdisjoint(generals):
            fresh = [i for i in board.ids if i in changed]
            out.update((i, v) for i, v in before[1].items() if i in out and i not in changed)
            gi = np.repeat(np.arange(len(rows)), len(fresh))
            bi = np.tile(np.array([board.pos[i] for i in fresh], dtype=int), len(rows))
            near = board.within_pairs(rows[gi], bi, reach)
            gi, bi = gi[near], bi[near]
        else:
            fresh = board.ids
            gi, bi = board.within(rows, reach)
        own = (board.sides[bi] == board.sides[rows[gi]]) & (bi != rows[gi])
        gi, bi = gi[own], bi[own]
        gaps = shapely.distance(board.shapes[rows[gi]], board.shapes[bi])
        for g, b, gap in zip(gi.tolist(), bi.tolist(), gaps.tolist()):
            out[board.order[b]].append((generals[g], gap))
        for i in fresh:
            out[i].sort()
        board.state.hand_on("attila.general_gaps", (scene, out))
        return out
    return board.state.cached("attila.general_gaps", build)


def command_reach_mm(board: Board) -> float:
    """ATT 4.C: 40 cm (AT18 scaled)."""
    return board.mm(GENERAL_REACH_CM * board.settings.at18_distance_scale)


def commanded_by(board: Board, base_id: str) -> list[str]:
    """Own Generals within 40 cm (nearest points, AT14) of this base."""
    if board.units[base_id].is_general:
        return []
    reach = command_reach_mm(board) + 1e-6
    return [g for g, gap in general_gaps(board)[base_id] if gap <= reach]


def attached_generals(board: Board, base_id: str) -> list[str]:
    """The own Generals touching this unit, in id order (AT24)."""
    if not board.units[base_id].is_troops:
        return []
    tol = board.settings.at24_general_attached_mm + 1e-6
    return [g for g, gap in general_gaps(board)[base_id] if gap <= tol]


def attached_general(board: Board, base_id: str) -> str | None:
    """The own General touching this unit, if any (AT24)."""
    return next(iter(attached_generals(board, base_id)), None)


def helping_general(board: Board, base_id: str) -> str | None:
    """ATT 7.D «Generali che non sono a contatto con nemici, ma sono in contatto con proprie
    basette in mischia»: the first attached General touching no enemy (another attached General
    in contact with the enemy does not stop him)."""
    return next((g for g in attached_generals(board, base_id) if not board.contacts(g)), None)


def draw_disorders_attacker(board: Board, attacker: str, defender: str) -> list[str]:
    """Why a draw would disorder ``attacker`` (ATT 7.B, ATT T, AT23): uphill, or cavalry or
    pikemen attacking into woods."""
    ua = board.units[attacker]
    why = []
    hill = board.area_holding(defender, HILLS)
    if hill is not None and board.level(defender) > board.level(attacker):
        # ATT 7.B «Cavallerie e Fanterie Pesanti (escluse FMP)»: CP, CL and FP, not FLP.
        if board.settings.at23_uphill == "any_attacker" or ua.type in UPHILL_DRAW_TYPES:
            why.append(f"attacking uphill onto {hill!r} (ATT 7.B, AT23)")
    if board.area_holding(defender, WOODS) and (ua.cavalry or ua.pikes):
        why.append("cavalry or pikemen attacking in woods (ATT T)")
    return why


def melee_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """Melee facts for a base in contact with the enemy (None when not in contact)."""
    contacts = board.contacts(base_id)
    if not contacts:
        return None
    u = board.units[base_id]
    s = board.settings
    general = helping_general(board, base_id)
    out: dict[str, Any] = {
        "die": u.current_melee_die(s),
        "may_attack": u.is_troops and not u.disordered,
        "flanked_by": flank_attackers(board, base_id),
        "crowded_sides": over_subscribed_sides(board, base_id),
        "draw_disorders_if_attacking": sorted({c.other for c in contacts
                                               if draw_disorders_attacker(board, base_id,
                                                                          c.other)}),
    }
    if general is not None:
        out["general_adds_d4_minus_1"] = general     # ATT 7.D
    if u.is_general:
        out["may_attack"] = False                      # ATT 7.D «mai ... volontariamente»
    if u.disordered:
        out["reasons"] = ["Disordered units cannot start melees (ATT 8.A)"]
    if u.is_camp:
        out["may_attack"] = False                      # ATT 8.B «non possono mai ... attaccare»
    return out
