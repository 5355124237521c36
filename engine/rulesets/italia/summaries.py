"""The compact per-base facts the board draws without a tap (`Ruleset.summaries`), and how far
a base's move can change another's (`Ruleset.summary_reach_mm`): contacts, command, support and
a few state badges, from the board's contact pairs and one query from the generals; never
targets or charge paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campo.engine.geometry.contact import edge_aspect
from campo.engine.geometry.rect import EDGE_NAMES
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.relations import out_of_command
from campo.engine.rulesets.italia.tables_melee import ARTILLERY_SUPPORT_RANGE_IN
from campo.engine.rulesets.italia.troops import COMMAND_RADIUS_IN, command_radius_in
from campo.engine.summary import base_summary


def summaries(board: Board, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """`engine.summary.base_summary` of each base: the enemies touching it and the aspect of
    this base each touches (ISD A33), the generals commanding it (ISD §3), its supports (ISD
    §1, by fire too), and badges: "disordered", "shaken", "dispersed" (ISD §4),
    "out of command"."""
    relations = board.relations
    out = {}
    for i in ids:
        info = board.infos[i]
        contacts = {o: edge_aspect(EDGE_NAMES[int(board.contacts.edge[board.contact_row(i, o)])])
                    for o in relations.foes[i]}
        badges = [word for word, on in (("disordered", info.disordered),
                                        ("shaken", info.shaken),
                                        ("dispersed", info.dispersed),
                                        ("out of command", out_of_command(board, i))) if on]
        out[i] = base_summary(contacts=contacts,
                              commanded_by=[c["id"] for c in relations.commanders.get(i, ())],
                              supported_by=relations.supported_by(i), badges=badges)
    return out


def summary_reach_mm(board: Board) -> float:
    """How far (edge to edge, mm) another base can be and still change a base's summary: a
    general commanding it (the widest radius under the weather, ISD §3, §13), or a battery
    supporting it by fire (ISD §1: within 3" of the enemy touching it, that enemy and the
    battery's neighbour in line between), each with the contact tolerance and the margin of
    a close call. A general joined to a unit (``traits.attached_to``) is taken to stand by it."""
    largest = max((float((r.width ** 2 + r.depth ** 2) ** 0.5)
                   for r in (board.rect(i) for i in board.infos)), default=0.0)
    slack = board.contact_tol + board.settings.close_call_mm + 1.0
    command = board.mm(max(command_radius_in(rank.value, weather=board.settings.weather)
                           for rank in COMMAND_RADIUS_IN))
    support = board.mm(ARTILLERY_SUPPORT_RANGE_IN) + 2 * largest + board.contact_tol
    return max(command, support) + slack
