"""Assemble the per-base answers of ``campo analyze --json`` for ISD (shared/interfaces.md)."""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charges import candidates, judge_charge
from campo.engine.rulesets.italia.conduct import hidden_of, manoeuvre_of, movement_of, pursuit_of, retreat_of
from campo.engine.rulesets.italia.fire import TargetLists, shots
from campo.engine.rulesets.italia.melee import melee_of
from campo.engine.rulesets.italia.relations import (
    command_of,
    contacts_of,
    group_leader,
    groups,
    supported_by,
)


def analyze_board(board: Board, *, details: bool = True,
                  asked: list[str] | None = None) -> dict[str, Any]:
    """``{"bases": {...}, "groups": [...], "batteries": [...]}`` (the bases ``asked``, every
    base when None: then the table-level members too); lists sorted, so two analyses of the
    same state are identical (the server diffs them)."""
    ids = sorted(board.infos) if asked is None else list(asked)
    fire = shots(board, ids)       # the targets of the bases asked, measured together
    targets = TargetLists(board, fire)
    group_list = groups(board)
    group_of = {m: g for g in group_list for m in g}
    bases: dict[str, Any] = {}
    for i in ids:
        info = board.infos[i]
        command = command_of(board, i)
        entry: dict[str, Any] = {
            "targets": fire.dicts(i),
            "contacts": contacts_of(board, i),
            "charges": [judge_charge(board, i, t).to_dict() for t in candidates(board, i)],
            "supported_by": supported_by(board, i, targets),
            "commanded_by": [c["id"] for c in command],
        }
        if details:
            entry["command"] = command
            entry["fire_priority"] = fire.priority_ids(i)
            if i in group_of:
                entry["group"] = group_of[i]
                entry["group_leader"] = group_leader(board, group_of[i])
            if i in board.batteries:
                entry["battery"] = list(board.batteries[i])
            for key, value in (("manoeuvre", manoeuvre_of(board, i)),
                               ("movement", movement_of(board, i)),
                               ("retreat", retreat_of(board, i)),
                               ("pursuit", pursuit_of(board, i)),
                               ("hidden", hidden_of(board, i)),
                               ("melee", melee_of(board, i))):
                if value:
                    entry[key] = value
            if info.stale:
                entry["stale"] = True
        bases[i] = entry
    out: dict[str, Any] = {"bases": bases}
    if details and asked is None:
        out["groups"] = [g for g in group_list if len(g) > 1]
        out["batteries"] = sorted({b for b in board.batteries.values() if len(b) > 1})
        out["batteries"] = [list(b) for b in out["batteries"]]
    return out
