"""Assemble ``campo analyze --json`` for Federico (shared/interfaces.md) plus its extra members:
regiments, isolated bases, fire modifiers and odds, melee odds, objectives, initiative, army
morale. Lists are sorted so two analyses of the same state are identical.
"""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.contacts import (
    commander_status,
    commanded_by,
    contacts_of,
    supported_by,
)
from campo.engine.rulesets.federico.fire import targets_of
from campo.engine.rulesets.federico.fire_batch import all_targets
from campo.engine.rulesets.federico.melee import engagements, judge_attack
from campo.engine.rulesets.federico.morale import army_morale
from campo.engine.rulesets.federico.movement import fall_back, movement_of
from campo.engine.rulesets.federico.objectives import initiative, objectives
from campo.engine.rulesets.federico.reach import candidates, prepare_reaches
from campo.engine.rulesets.federico.regiments import Regiments


def analyze_board(board: Board) -> dict[str, Any]:
    regs = Regiments.of(board)
    ids = sorted(board.pieces)
    if board.state.use_index:
        targets = all_targets(board)
        prepare_reaches(board, [(i, t) for i in ids for t in candidates(board, i)])
    else:   # the plain reference path, firer by firer, attack by attack
        targets = {i: targets_of(board, i) for i in ids}
    bases: dict[str, Any] = {}
    for i in ids:
        p = board.pieces[i]
        entry: dict[str, Any] = {
            "targets": [t.to_dict() for t in targets[i]],
            "contacts": contacts_of(board, i),
            "charges": [judge_attack(board, i, t).to_dict() for t in candidates(board, i)],
            "supported_by": supported_by(board, i) if p.is_troop else [],
            "commanded_by": commanded_by(board, i),
            "movement": movement_of(board, i),
        }
        if p.is_troop:
            entry["regiment"] = regs.of_base[i]
            entry["class"] = regs.regiment(i).klass
            entry["isolated"] = i in regs.regiment(i).isolated
            if p.can_fire:
                entry["fire_dice"] = p.dice
            foes = [c["id"] for c in entry["contacts"]]
            if foes:
                entry["fall_back"] = fall_back(board, i, foes[0])
        else:
            entry["commander"] = commander_status(board, i)
        if p.stale:
            entry["stale"] = True
        bases[i] = entry
    regiments: dict[str, Any] = {}
    for name, r in sorted(regs.by_name.items()):
        d = r.to_dict()
        by_base = board.settings.f12_target_unit == "base"   # F12: whole units or single bases
        d["targets"] = sorted({t.id if by_base else t.regiment
                               for m in r.bases for t in targets[m] if t.legal})
        d["contacts"] = sorted({c["regiment"] for m in r.bases for c in bases[m]["contacts"]})
        d["supported_by"] = sorted({s for m in r.bases for s in bases[m]["supported_by"]})
        d["commanded_by"] = sorted({c for m in r.bases for c in bases[m]["commanded_by"]})
        regiments[name] = d
    objs = objectives(board)
    return {"bases": bases, "regiments": regiments, "isolated": regs.isolated,
            "melees": engagements(board), "objectives": objs,
            "initiative": initiative(board, objs), "army_morale": army_morale(board)}
