"""Assemble the per-base answers of ``campo analyze --json`` for ISD (shared/interfaces.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charges import charges_of
from campo.engine.rulesets.italia.fire import shots, shots_and_probes
from campo.engine.rulesets.italia.melee import battery_shots
from campo.engine.rulesets.italia.relations import command_of, contacts_of, group_leader
# the Ruleset protocol reads a rulebook's summaries from its analysis module
from campo.engine.rulesets.italia.summaries import summaries, summary_reach_mm  # noqa: F401

CONDUCT = ("manoeuvre", "movement", "retreat", "pursuit", "hidden")


def analyze_board(board: Board, ids: Sequence[str] | None = None) -> dict[str, Any]:
    """``{"bases": {...}, "groups": [...], "batteries": [...]}`` for every base, or the
    ``bases`` of ``ids`` only (each entry the same as in the whole table's); lists sorted, so
    two analyses of the same state are identical (the server diffs them)."""
    whole = ids is None
    asked = sorted(board.infos) if ids is None else list(ids)
    charges = charges_of(board, asked)
    # the shots of the bases asked, and those of the batteries supporting their charges, together
    targets = shots(board) if whole else shots_and_probes(board, asked, battery_shots(board, asked))
    conduct = {name: board.conduct.of(name, asked) for name in CONDUCT}
    melees = board.melee_book.entries(asked)
    relations = board.relations
    bases: dict[str, Any] = {}
    for i in asked:
        command = command_of(board, i)
        entry: dict[str, Any] = {
            "targets": targets.dicts(i),
            "contacts": contacts_of(board, i),
            "charges": [c.to_dict() for c in charges[i]],
            "supported_by": relations.supported_by(i),
            "commanded_by": [c["id"] for c in command],
            "command": command,
            "fire_priority": targets.priority_ids(i),
        }
        group = relations.group_of.get(i)
        if group is not None:
            entry["group"] = list(group)
            entry["group_leader"] = group_leader(board, group)
        if i in board.batteries:
            entry["battery"] = list(board.batteries[i])
        for key in CONDUCT:
            if conduct[key][i]:
                entry[key] = conduct[key][i]
        if melees[i]:
            entry["melee"] = melees[i]
        if board.infos[i].stale:
            entry["stale"] = True
        bases[i] = entry
    out: dict[str, Any] = {"bases": bases}
    if whole:
        out.update(board_summary(board))
    return out


def board_summary(board: Board) -> dict[str, Any]:
    """The table-level facts: Groups of more than one unit and batteries of more than one gun
    (ISD §1, §6, §8)."""
    return {"groups": [list(g) for g in board.relations.groups if len(g) > 1],
            "batteries": [list(b) for b in sorted({b for b in board.batteries.values()
                                                   if len(b) > 1})]}

