"""Assemble Federico's answers (shared/interfaces.md, ``campo analyze --json``) for the bases
asked: each base's full entry (targets, contacts, attacks with their melee, supports,
commanders, movement ...), the compact summaries the board draws without a tap, and the
table-level facts (regiments, isolated bases, melees, objectives, initiative, army morale).

A base's entry is the same whether asked alone or with every other: the targets and attacks
come from `fire.targets` and `melee.judge`, which work on arrays of the bases asked and keep
their answers on the board. Lists are sorted so two analyses of the same state are identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campo.engine.rulesets.federico.attacks import candidates
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.fire import targets
from campo.engine.rulesets.federico.melee import engagements, judge
from campo.engine.rulesets.federico.morale import army_morale
from campo.engine.rulesets.federico.movement import fall_back, movement_of
from campo.engine.rulesets.federico.objectives import initiative, objectives
from campo.engine.summary import base_summary


def entries(board: Board, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The full analysis entry of each base asked."""
    regs, rel = board.regiments, board.relations
    fire = targets(board, ids)
    near = candidates(board, ids)
    attacks = judge(board, [(i, t) for i in ids for t in near[i]])
    by_attacker: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
    for v in attacks:
        by_attacker[v.attacker].append(v.to_dict())
    moves = movement_of(board, ids)
    out: dict[str, dict[str, Any]] = {}
    for i in ids:
        p = board.pieces[i]
        entry: dict[str, Any] = {
            "targets": [t.to_dict() for t in fire[i]],
            "contacts": rel.contacts_of(i),
            "charges": by_attacker[i],
            "supported_by": list(rel.supporters[i]) if p.is_troop else [],
            "commanded_by": rel.commanded_by(i),
            "movement": moves[i],
        }
        if p.is_troop:
            entry["regiment"] = regs.of_base[i]
            entry["class"] = regs.regiment(i).klass
            entry["isolated"] = i in regs.regiment(i).isolated
            if p.can_fire:
                entry["fire_dice"] = p.dice
            if entry["contacts"]:
                entry["fall_back"] = fall_back(board, i, entry["contacts"][0]["id"])
        else:
            entry["commander"] = rel.commander_status(i)
        if p.stale:
            entry["stale"] = True
        out[i] = entry
    return out


def analyze_board(board: Board, ids: Sequence[str] | None = None) -> dict[str, Any]:
    """``{"bases": ...}`` for ``ids``; for the whole table (None) also the table-level members,
    regiments with the enemy units they may fire at."""
    if ids is not None:
        return {"bases": entries(board, ids)}
    every = sorted(board.pieces)
    bases = entries(board, every)
    out = board_summary(board)
    by_base = board.settings.f12_target_unit == "base"   # F12: whole units or single bases
    for name, d in out["regiments"].items():
        r = board.regiments.by_name[name]
        d["targets"] = sorted({t["id"] if by_base else t["regiment"]
                               for m in r.bases for t in bases[m]["targets"] if t["legal"]})
        d["contacts"] = sorted({c["regiment"] for m in r.bases for c in bases[m]["contacts"]})
        d["supported_by"] = sorted({s for m in r.bases for s in bases[m]["supported_by"]})
        d["commanded_by"] = sorted({c for m in r.bases for c in bases[m]["commanded_by"]})
    return {"bases": bases, "regiments": out["regiments"], "isolated": out["isolated"],
            "melees": engagements(board), "objectives": out["objectives"],
            "initiative": out["initiative"], "army_morale": out["army_morale"]}


def summaries(board: Board, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The compact facts of each base asked (`campo.engine.summary.base_summary`): enemies in
    contact with the aspect touched, commanders, supports, and the badges "isolated" (must
    rejoin its regiment, F17), "lost commander" (isolated next to the enemy, F27)."""
    regs, rel = board.regiments, board.relations
    out = {}
    for i in ids:
        p = board.pieces[i]
        badges = []
        if p.is_troop and i in regs.regiment(i).isolated:
            badges.append("isolated")
        if p.is_commander and rel.commander_status(i)["lost"]:
            badges.append("lost commander")
        out[i] = base_summary(
            contacts={c["id"]: c["aspect"] for c in rel.contacts_of(i)},
            commanded_by=rel.commanded_by(i),
            supported_by=rel.supporters[i] if p.is_troop else (), badges=badges)
    return out


def summary_reach_mm(board: Board) -> float:
    """How far (edge to edge) a change can reach another base's summary: the farthest a
    relation looks (contact, cohesion, a commander's adjacency, the command radius) plus the
    close-call tolerance, plus the widest regiment (a base that leaves or joins its regiment
    changes which of its mates are isolated, and its commanders command them all)."""
    s = board.settings
    look = max(board.contact_tol, board.mm(s.f17_cohesion_tolerance_cm),
               board.mm(s.f27_commander_adjacent_cm), board.mm(s.command_radius_cm))
    return look + board.close_call + board.regiments.extent_mm()


def board_summary(board: Board) -> dict[str, Any]:
    """The table-level facts the page draws without a tap: regiments (without target lists),
    isolated bases, objectives, initiative, army morale."""
    objs = objectives(board)
    return {"regiments": {name: r.to_dict()
                          for name, r in sorted(board.regiments.by_name.items())},
            "isolated": board.regiments.isolated, "objectives": objs,
            "initiative": initiative(board, objs), "army_morale": army_morale(board)}
