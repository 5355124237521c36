"""Melee (Federico "Mischie"): the defender's morale test, the melee roll's modifiers with
outnumbering (F20), and the odds of each result (F21), for attacks judged by `reach` (distance,
space and aspect: F15, F18, F19). Also the engagements already on the table.
"""

from __future__ import annotations

import functools
from typing import Any

from campo.engine.results import Aspect
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.contacts import regiment_commanders, supports
from campo.engine.rulesets.federico.modifiers import Modifier, probability, rounded, total
from campo.engine.rulesets.federico.movement import fall_back
from campo.engine.rulesets.federico.reach import Attack, candidates, reach
from campo.engine.rulesets.federico.regiments import Regiments

MELEE = 'Federico "Mischie"'

# --- the defender's morale test and the melee roll ---------------------------------------------
def favourable(board: Board, defender: str, attacker: str) -> str | None:
    """«terreno favorevole (su collina o dietro torrente guadabile)» (cached per pair: the
    morale test and the melee roll both ask)."""
    cache = board.__dict__.setdefault("_favourable", {})
    key = (defender, attacker)
    if key not in cache:
        cache[key] = _favourable(board, defender, attacker)
    return cache[key]


def _favourable(board: Board, defender: str, attacker: str) -> str | None:
    hill = board.on_hill(defender)
    if hill and board.on_hill(attacker) != hill:
        return f"on hill {hill}"
    stream = board.line_between(defender, attacker, board.settings.stream_kinds)
    return f"behind stream {stream}" if stream else None


def morale_test(board: Board, defender: str, aspect: Aspect | None,
                attackers: list[str]) -> dict[str, Any]:
    """The defender regiment's 1D6 morale test on being attacked by ``attackers`` (bases):
    modifiers, class, odds (F1, F19). Favourable terrain counts when it holds against every
    attacker (a stream in front does not shelter a unit attacked from the flank)."""
    shelters = [favourable(board, defender, a) for a in attackers]
    shelter = shelters[0] if shelters and all(shelters) else None
    pieces = [board.pieces[a] for a in attackers]
    highlanders = any(p.highlanders for p in pieces)
    ambush = not highlanders and any(
        p.arm == "infantry" and p.indians and board.areas_under(a, ("wood",))
        for a, p in zip(attackers, pieces))
    # the same test for every attacker that strikes the same aspect from the same kind of
    # ground: built once per board (callers do not change the dict)
    cache = board.__dict__.setdefault("_morale_tests", {})
    key = (defender, aspect, shelter, highlanders, ambush)
    if key not in cache:
        cache[key] = _morale_test(board, defender, aspect, shelter, highlanders, ambush)
    return cache[key]


def _morale_test(board: Board, defender: str, aspect: Aspect | None, shelter: str | None,
                 highlanders: bool, ambush: bool) -> dict[str, Any]:
    regs = Regiments.of(board)
    d_reg = regs.regiment(defender)
    mods: list[Modifier] = []
    if aspect in (Aspect.FLANK, Aspect.REAR):
        mods.append(Modifier(f"defender attacked in the {aspect.value}", +2,
                             f"{MELEE}; Federico F19"))
    if shelter:
        mods.append(Modifier(f"defender in favourable terrain ({shelter})", -1, MELEE))
    if cmd := regiment_commanders(board, defender):
        mods.append(Modifier(f"commander attached ({', '.join(cmd)})", -1,
                             f"{MELEE}; Federico F27"))
    if highlanders:
        mods.append(Modifier("attacked by a Highlander clan", +1, MELEE))
    elif ambush:
        mods.append(Modifier("attacked by Indians out of a wood in ambush", +1, MELEE))
    klass = d_reg.klass or 4
    m = total(mods)
    falls_back = probability(lambda r: r > klass, m)
    out: dict[str, Any] = {"modifiers": [x.to_dict() for x in mods], "modifier_total": m,
                           "class": klass,
                           "odds": rounded({"falls_back": falls_back,
                                            "stands": 1.0 - falls_back})}
    auto = automatic_result(board, defender)
    if auto:
        out["automatic"] = auto
    return out


def automatic_result(board: Board, defender: str) -> str | None:
    """«Unità in Colonna di Marcia sono eliminate automaticamente»; artillery in battery is
    eliminated unless the attacker falls back or is eliminated; limbered as march column (F22)."""
    p = board.pieces[defender]
    if p.march_column or (p.arm == "artillery" and p.formation == "limbered"):
        return "eliminated (march column)" if p.march_column else \
            "eliminated (limbered artillery, as a march column: Federico F22)"
    if p.arm == "artillery":
        return ("eliminated unless it passes the test, fires again and the attacker falls back "
                "or is eliminated")
    return None


def melee_modifiers(board: Board, attacker: str, defender: str, aspect: Aspect | None,
                    counts: tuple[int, int]) -> list[Modifier]:
    """The attacker's melee die modifiers (Federico "Mischie")."""
    a, d = board.pieces[attacker], board.pieces[defender]
    mods: list[Modifier] = []
    if (a.heavy_cavalry or a.elite_infantry) and not (d.heavy_cavalry or d.elite_infantry):
        mods.append(Modifier("attacker is Heavy Cavalry or Elite Infantry", -1, MELEE))
    if (a.light_cavalry or a.light_infantry) and not (d.light_cavalry or d.light_infantry):
        mods.append(Modifier("attacker is Light Cavalry or Light Infantry", +1, MELEE))
    n_att, n_def = counts
    if n_att > n_def:
        mods.append(Modifier(f"attacker outnumbers the defender ({n_att} to {n_def})", -1,
                             f"{MELEE}; Federico F20"))
    elif n_def > n_att:
        mods.append(Modifier(f"defender outnumbers the attacker ({n_def} to {n_att})", +1,
                             f"{MELEE}; Federico F20"))
    cover = board.line_between(defender, attacker, board.settings.light_cover_lines)
    if cover:
        mods.append(Modifier(f"defender behind light cover ({cover})", +1, MELEE))
    elif where := favourable(board, defender, attacker):
        mods.append(Modifier(f"defender in favourable terrain ({where})", +1, MELEE))
    if aspect in (Aspect.FLANK, Aspect.REAR):
        mods.append(Modifier(f"defender taken in the {aspect.value}", -2, f"{MELEE}; Federico F19"))
    return mods


def melee_odds(modifier: int) -> dict[str, float]:
    """Per attacker die: 1-2 (or less, F21) defender eliminated; 3-4 defender falls back; 5-6
    attacker falls back; 7+ attacker eliminated."""
    return dict(_melee_odds(modifier))


@functools.lru_cache(maxsize=64)
def _melee_odds(modifier: int) -> dict[str, float]:
    return rounded({
        "defender_eliminated": probability(lambda r: r <= 2, modifier),
        "defender_falls_back": probability(lambda r: 3 <= r <= 4, modifier),
        "attacker_falls_back": probability(lambda r: 5 <= r <= 6, modifier),
        "attacker_eliminated": probability(lambda r: r >= 7, modifier),
    })


def _with_supports(board: Board, bases: set[str]) -> tuple[int, list[str]]:
    sup: set[str] = set()
    if board.settings.f20_outnumbering == "contact_plus_adjacent":
        for b in bases:
            sup |= {o for o in board.touching[b] if o not in bases and supports(board, o, b)}
    return len(bases) + len(sup), sorted(sup)


def _regiment_side(board: Board, base_id: str) -> set[str]:
    regs = Regiments.of(board)
    reg = regs.regiment(base_id)
    return set(next(g for g in reg.groups if base_id in g))


def _attacking_numbers(board: Board, attacker: str, target: str) -> tuple[int, list[str]]:
    """F20 estimate for an attack not yet made: the bases of the attacker's regiment that can
    reach the defender's regiment, with their supports (cached per attacker and regiment)."""
    regs = Regiments.of(board)
    cache = board.__dict__.setdefault("_attacking_numbers", {})
    key = (attacker, regs.of_base[target])
    if key not in cache:
        d_bases = set(regs.regiment(target).bases)
        engaged = {attacker} | {m for m in regs.mates(attacker) if m != attacker and any(
            reach(board, m, t).legal for t in d_bases if t in candidates(board, m))}
        cache[key] = _with_supports(board, engaged)
    n, sup = cache[key]
    return n, list(sup)


def _defending_numbers(board: Board, target: str) -> tuple[int, list[str]]:
    """F20: the defender's group with its supports (cached per base)."""
    cache = board.__dict__.setdefault("_defending_numbers", {})
    if target not in cache:
        cache[target] = _with_supports(board, _regiment_side(board, target))
    n, sup = cache[target]
    return n, list(sup)


def judge_attack(board: Board, attacker: str, target: str) -> Attack:
    """The full verdict: reach, aspect, defender's morale test and the melee roll (estimate)."""
    cache = board.__dict__.setdefault("_attacks", {})
    key = (attacker, target)
    if key in cache:
        return cache[key]
    v = reach(board, attacker, target)
    if v.distance is not None and v.reasons[:1] != [f"already in contact with {target}"]:
        n_att, a_sup = _attacking_numbers(board, attacker, target)
        n_def, d_sup = _defending_numbers(board, target)
        v.morale = morale_test(board, target, v.contact_aspect, [attacker])
        mods = melee_modifiers(board, attacker, target, v.contact_aspect, (n_att, n_def))
        v.melee = {"modifiers": [m.to_dict() for m in mods], "modifier_total": total(mods),
                   "counts": {"attacker": n_att, "defender": n_def,
                              "attacker_supports": a_sup, "defender_supports": d_sup,
                              "estimate": "the attacking bases of the regiment that can reach "
                                          "the defender, against the defender's group"},
                   "odds_per_die": melee_odds(total(mods))}
    cache[key] = v
    return v


def engagements(board: Board) -> list[dict[str, Any]]:
    """Melees on the table: each regiment touched by enemies, as the defender against every
    enemy base touching it (one attack by «uno o più gruppi»), counted as F20 says. Every
    regiment in contact appears once as defender: the geometry cannot tell who attacked."""
    regs = Regiments.of(board)
    by_defender: dict[str, set[tuple[str, str]]] = {}
    for d in board.troops():
        for a in board.touching[d]:
            if board.is_enemy(a, d):
                by_defender.setdefault(regs.of_base[d], set()).add((a, d))
    out = []
    for d_reg, pairs in sorted(by_defender.items()):
        att = {a for a, _ in pairs}
        dfd = {d for _, d in pairs}
        n_att, a_sup = _with_supports(board, att)
        n_def, d_sup = _with_supports(board, dfd)
        dice = []
        for a, d in sorted(pairs):
            aspect = Aspect(_edge_aspect(board.edge_touched(d, a)))
            mods = melee_modifiers(board, a, d, aspect, (n_att, n_def))
            dice.append({"attacker_base": a, "defender_base": d, "aspect": aspect.value,
                         "modifiers": [m.to_dict() for m in mods], "modifier_total": total(mods),
                         "odds": melee_odds(total(mods))})
        att_regs = sorted({regs.of_base[a] for a in att})
        if board.settings.f21_melee_dice == "per_base_of_regiment":
            n_dice = sum(len(regs.by_name[r].bases) for r in att_regs)
        else:
            n_dice = len(att)
        worst_a, worst_d = min(sorted(pairs), key=lambda ad: _ASPECT_RANK[
            _edge_aspect(board.edge_touched(ad[1], ad[0]))])
        aspect = Aspect(_edge_aspect(board.edge_touched(worst_d, worst_a)))
        out.append({"defender": d_reg, "attackers": att_regs,
                    "attacker_bases": sorted(att), "defender_bases": sorted(dfd),
                    "counts": {"attacker": n_att, "defender": n_def,
                               "attacker_supports": a_sup, "defender_supports": d_sup},
                    "dice": n_dice, "per_die": dice,
                    "repeats_next_turn": board.settings.f23_melee_repeats == "while_in_contact",
                    "defender_morale": morale_test(board, worst_d, aspect, sorted(att)),
                    "defender_fall_back": fall_back(board, worst_d, worst_a)})
    return out


_ASPECT_RANK = {"rear": 0, "flank": 1, "front": 2}   # the worst aspect struck decides the test


def _edge_aspect(edge: str) -> str:
    return "flank" if edge in ("left", "right") else edge
