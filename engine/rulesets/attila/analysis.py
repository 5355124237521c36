"""Assemble ``campo analyze --json`` for ATTILA (shared/interfaces.md) plus its extra members.

Extra members: ``groups`` (ATT 4), ``mandatory_charges`` (ATT 13), ``control_points`` (ATT 4,
10.A), ``deployment`` (ATT 11, 12), ``army_morale`` and ``victory`` (ATT 10, 15), ``gaps`` (the
values the rulebook lacks that this analysis used). Lists are sorted so two analyses of one
state are identical.
"""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.charges import candidates, judge_charge
from campo.engine.rulesets.attila.contact import commanded_by, contacts_of, melee_of
from campo.engine.rulesets.attila.control_points import control_points, reorganisation
from campo.engine.rulesets.attila.deployment import deployment
from campo.engine.rulesets.attila.groups import Groups, supported_by
from campo.engine.rulesets.attila.mandatory import mandatory_charges
from campo.engine.rulesets.attila.morale import army_morale, victory
from campo.engine.rulesets.attila.moves import move_budget
from campo.engine.rulesets.attila.settings import GAP_PREFIX
from campo.engine.rulesets.attila.shooting import all_targets, targets_of


def gaps_used(board: Board) -> dict[str, Any]:
    """The 'not in the rulebook' settings this state depends on, with their values."""
    used: dict[str, Any] = {}
    for u in board.units.values():
        if not u.is_troops:
            continue
        key = f"move_cm_{u.type.lower()}"
        used[key] = getattr(board.settings, key)
        b = board.state.base(u.id)
        if not b.traits.get("melee_die") and not u.pikes:
            key = f"melee_die_{u.type.lower()}"
            used[key] = getattr(board.settings, key)
    return {"note": GAP_PREFIX, "rates_confirmed": board.settings.at11_rates_confirmed,
            "settings": dict(sorted(used.items()))}


def analyze_board(board: Board) -> dict[str, Any]:
    groups = Groups.of(board)
    morale = {side: army_morale(board, side) for side in ("A", "B")}
    pcs = control_points(board, morale)
    if board.state.use_index:
        targets = all_targets(board)
    else:   # the plain reference path, shooter by shooter
        targets = {i: targets_of(board, i) for i in board.ids}
    bases: dict[str, Any] = {}
    for i in board.ids:
        u = board.units[i]
        entry: dict[str, Any] = {
            "targets": [t.to_dict() for t in targets[i]],
            "contacts": contacts_of(board, i),
            "charges": [judge_charge(board, i, t).to_dict() for t in candidates(board, i)],
            "supported_by": supported_by(board, i),
            "commanded_by": commanded_by(board, i),
        }
        if u.is_troops:
            entry["move"] = move_budget(board, i).to_dict(board.rect(i).width)
        g = groups.group_of.get(i)
        if g is not None:
            entry["group"] = g.id
            entry["move_cost"] = pcs[u.side]["groups"][g.id]["cost"]
        elif u.is_general:
            entry["move_cost"] = 0
        melee = melee_of(board, i)
        if melee is not None:
            entry["melee"] = melee
        rally = reorganisation(board, i, morale[u.side]["demoralised"])
        if rally is not None:
            entry["reorganisation"] = rally
        if u.disordered:
            entry["disordered"] = True
        if u.absent:
            entry["stale"] = True
        bases[i] = entry
    return {
        "bases": bases,
        "groups": [g.to_dict() for g in groups.groups],
        "group_splits": groups.split_labels(),
        "mandatory_charges": mandatory_charges(board),
        "control_points": pcs,
        "army_morale": morale,
        "victory": victory(board, morale),
        "deployment": deployment(board),
        "gaps": gaps_used(board),
    }
