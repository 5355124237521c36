"""Assemble ATTILA's answers: ``campo analyze --json`` (shared/interfaces.md) with its extra
members, one base's full detail, the compact per-base summaries and the table-level facts.

Extra members: ``groups`` (ATT 4), ``mandatory_charges`` (ATT 13), ``control_points`` (ATT 4,
10.A), ``deployment`` (ATT 11, 12), ``army_morale`` and ``victory`` (ATT 10, 15), ``gaps`` (the
values the rulebook lacks that this analysis used). Lists are sorted so two analyses of one
state are identical, and a base's entry is the same whether asked alone or with every other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.charges import all_candidates, judge_charges
from campo.engine.rulesets.attila.contact import commanded_by, contacts_of, melee_of
from campo.engine.rulesets.attila.control_points import control_points, reorganisation
from campo.engine.rulesets.attila.deployment import deployment, deployment_zones
from campo.engine.rulesets.attila.groups import Groups, supported_by
from campo.engine.rulesets.attila.mandatory import mandatory_charges, obligations
from campo.engine.rulesets.attila.morale import army_morale, victory
from campo.engine.rulesets.attila.moves import move_budget
from campo.engine.rulesets.attila.settings import GAP_PREFIX
from campo.engine.rulesets.attila.shooting import targets_of_many
from campo.engine.summary import base_summary


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


def morale(board: Board) -> dict[str, dict[str, Any]]:
    return board.state.cached("attila.morale",
                              lambda: {side: army_morale(board, side) for side in ("A", "B")})


def points(board: Board) -> dict[str, Any]:
    return board.state.cached("attila.control_points",
                              lambda: control_points(board, morale(board)))


def base_entries(board: Board, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The full entries of ``ids``: their targets and charges judged together."""
    ids = sorted(dict.fromkeys(ids))
    targets = targets_of_many(board, ids)
    found = all_candidates(board, ids)
    charges = judge_charges(board, [(i, t) for i in ids for t in found[i]])
    groups = Groups.of(board)
    pcs = points(board)
    mood = morale(board)
    out: dict[str, dict[str, Any]] = {}
    for i in ids:
        u = board.units[i]
        entry: dict[str, Any] = {
            "targets": [t.to_dict() for t in targets[i]],
            "contacts": contacts_of(board, i),
            "charges": [charges[(i, t)].to_dict() for t in found[i]],
            "supported_by": supported_by(board, i),
            "commanded_by": commanded_by(board, i),
        }
        if u.is_troops:
            entry["move"] = move_budget(board, i).to_dict(board.rect(i).width)
        elif u.is_general:   # 24 cm, 10 cm once wounded (ATT 5.E, 8.C); no wheel limit
            budget = move_budget(board, i)
            entry["move"] = {"normal_cm": round(budget.normal_cm, 2),
                             "available_cm": round(budget.available_cm, 2)}
        g = groups.group_of.get(i)
        if g is not None:
            entry["group"] = g.id
            entry["move_cost"] = pcs[u.side]["groups"][g.id]["cost"]
        elif u.is_general:
            entry["move_cost"] = 0
        melee = melee_of(board, i)
        if melee is not None:
            entry["melee"] = melee
        rally = reorganisation(board, i, mood[u.side]["demoralised"])
        if rally is not None:
            entry["reorganisation"] = rally
        if u.disordered:
            entry["disordered"] = True
        if u.wounded:
            entry["wounded"] = True
        if u.absent:
            entry["stale"] = True
        out[i] = entry
    return out


def analyze_board(board: Board, ids: Sequence[str] | None = None) -> dict[str, Any]:
    """The ``bases`` of ``ids`` (every base when None, with the table-level members)."""
    if ids is not None:
        return {"bases": base_entries(board, ids)}
    out: dict[str, Any] = {"bases": base_entries(board, board.ids)}
    out.update(board_summary(board))
    out["deployment"] = deployment(board)
    out["gaps"] = gaps_used(board)
    return out


def summaries(board: Board, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The compact facts the board draws without a tap: contacts, Generals in command, support
    (ATT 8.D), and badges: "disordered", "must charge" (ATT 13), "wounded" (ATT 8.C)."""
    must = obligations(board)
    out = {}
    for i in ids:
        u = board.units[i]
        badges = [word for word, on in (("disordered", u.disordered),
                                        ("must charge", bool(must.get(i, {}).get("targets"))),
                                        ("wounded", u.wounded)) if on]
        out[i] = base_summary(contacts={c["id"]: c["aspect"] for c in contacts_of(board, i)},
                              commanded_by=commanded_by(board, i),
                              supported_by=supported_by(board, i), badges=badges)
    return out


def board_summary(board: Board) -> dict[str, Any]:
    """The table-level facts the page draws without a tap (no targets): groups and their
    splits, mandatory charges, Control Points, morale, victory, and the deployment zones (the
    whole analysis adds each base's and terrain piece's placement)."""
    groups = Groups.of(board)
    return {"groups": [g.to_dict() for g in groups.groups],
            "group_splits": groups.split_labels(),
            "mandatory_charges": mandatory_charges(board),
            "control_points": points(board),
            "army_morale": morale(board),
            "victory": victory(board, morale(board)),
            "deployment": deployment_zones(board)}
