"""Melee (Federico "Mischie"): the defender's morale test, the melee roll's modifiers with
outnumbering (F20), and the odds of each result (F21), for attacks judged by `attacks.reach`
(distance, space and aspect: F15, F18, F19); and the engagements already on the table.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import shapely

from campo.engine.results import Aspect
from campo.engine.rulesets.federico.attacks import Attack, reach
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.modifiers import Modifier, probability, rounded, total
from campo.engine.rulesets.federico.movement import base_rate_cm, fall_back
from campo.engine.rulesets.federico.units import (
    LINE_CLASS,
    MELEE_MODIFIERS,
    MELEE_RESULTS,
    MORALE_MODIFIERS,
)

MELEE = 'Federico "Mischie"'
_ASPECT_RANK = {"rear": 0, "flank": 1, "front": 2}   # the worst aspect struck decides the test


def favourable(board: Board, defender: str, attacker: str) -> str | None:
    """«terreno favorevole (su collina o dietro torrente guadabile)»."""
    hill = board.on_hill(defender)
    if hill and board.on_hill(attacker) != hill:
        return f"on hill {hill}"
    stream = board.lines_between([(defender, attacker)], board.settings.stream_kinds)[0]
    return f"behind stream {stream}" if stream else None


def morale_test(board: Board, defender: str, aspect: Aspect | None,
                attackers: list[str]) -> dict[str, Any]:
    """The defender regiment's 1D6 morale test on being attacked by ``attackers`` (bases):
    modifiers, class, odds (F1, F19). Favourable terrain counts when it holds against every
    attacker (a stream in front does not shelter a unit attacked from the flank)."""
    rows = MORALE_MODIFIERS
    shelters = [favourable(board, defender, a) for a in attackers]
    shelter = shelters[0] if shelters and all(shelters) else None
    pieces = [board.pieces[a] for a in attackers]
    highlanders = any(p.highlanders for p in pieces)
    ambush = not highlanders and any(
        p.arm == "infantry" and p.indians and board.areas_holding(a, ("wood",))
        for a, p in zip(attackers, pieces))
    mods: list[Modifier] = []
    if aspect in (Aspect.FLANK, Aspect.REAR):
        mods.append(Modifier(f"defender attacked in the {aspect.value}",
                             rows["flank_or_rear"].delta, f"{MELEE}; Federico F19"))
    if shelter:
        mods.append(Modifier(f"defender in favourable terrain ({shelter})",
                             rows["favourable"].delta, MELEE))
    if cmd := board.relations.regiment_commanders[board.regiments.of_base[defender]]:
        mods.append(Modifier(f"commander attached ({', '.join(cmd)})", rows["commander"].delta,
                             f"{MELEE}; Federico F27"))
    if highlanders:
        mods.append(Modifier("attacked by a Highlander clan",
                             rows["highlanders_or_ambush"].delta, MELEE))
    elif ambush:
        mods.append(Modifier("attacked by Indians out of a wood in ambush",
                             rows["highlanders_or_ambush"].delta, MELEE))
    klass = board.regiments.regiment(defender).klass or LINE_CLASS
    m = total(mods)
    falls_back = probability(lambda r: r > klass, m)
    out: dict[str, Any] = {"modifiers": [x.to_dict() for x in mods], "modifier_total": m,
                           "class": klass,
                           "odds": rounded({"falls_back": falls_back,
                                            "stands": 1.0 - falls_back})}
    if auto := automatic_result(board, defender):
        out["automatic"] = auto
    return out


def automatic_result(board: Board, defender: str) -> str | None:
    """«Unità in Colonna di Marcia sono eliminate automaticamente»; artillery in battery is
    eliminated unless the attacker falls back or is eliminated; limbered as march column (F22)."""
    p = board.pieces[defender]
    if p.march_column:
        return "eliminated (march column)"
    if p.arm == "artillery" and p.formation == "limbered":
        return "eliminated (limbered artillery, as a march column: Federico F22)"
    if p.arm == "artillery":
        return ("eliminated unless it passes the test, fires again and the attacker falls back "
                "or is eliminated")
    return None


def melee_modifiers(board: Board, attacker: str, defender: str, aspect: Aspect | None,
                    counts: tuple[int, int]) -> list[Modifier]:
    """The attacker's melee die modifiers (Federico "Mischie")."""
    rows = MELEE_MODIFIERS
    a, d = board.pieces[attacker], board.pieces[defender]
    mods: list[Modifier] = []
    if (a.heavy_cavalry or a.elite_infantry) and not (d.heavy_cavalry or d.elite_infantry):
        mods.append(Modifier("attacker is Heavy Cavalry or Elite Infantry",
                             rows["heavy_or_elite"].delta, MELEE))
    if (a.light_cavalry or a.light_infantry) and not (d.light_cavalry or d.light_infantry):
        mods.append(Modifier("attacker is Light Cavalry or Light Infantry", rows["light"].delta,
                             MELEE))
    n_att, n_def = counts
    if n_att > n_def:
        mods.append(Modifier(f"attacker outnumbers the defender ({n_att} to {n_def})",
                             rows["attacker_outnumbers"].delta, f"{MELEE}; Federico F20"))
    elif n_def > n_att:
        mods.append(Modifier(f"defender outnumbers the attacker ({n_def} to {n_att})",
                             rows["defender_outnumbers"].delta, f"{MELEE}; Federico F20"))
    cover = board.lines_between([(defender, attacker)], board.settings.light_cover_lines)[0]
    if cover:
        mods.append(Modifier(f"defender behind light cover ({cover})",
                             rows["cover_or_favourable"].delta, MELEE))
    elif where := favourable(board, defender, attacker):
        mods.append(Modifier(f"defender in favourable terrain ({where})",
                             rows["cover_or_favourable"].delta, MELEE))
    if aspect in (Aspect.FLANK, Aspect.REAR):
        mods.append(Modifier(f"defender taken in the {aspect.value}", rows["flank_or_rear"].delta,
                             f"{MELEE}; Federico F19"))
    return mods


@functools.lru_cache(maxsize=64)
def _melee_odds(modifier: int) -> tuple[tuple[str, float], ...]:
    low = -float("inf")
    out = []
    for high, result, _ in MELEE_RESULTS:
        out.append((result, probability(lambda r, lo=low, hi=high: lo < r <= hi, modifier)))
        low = high
    return tuple(out)


def melee_odds(modifier: int) -> dict[str, float]:
    """Per attacker die: 1-2 (or less, F21) defender eliminated; 3-4 defender falls back; 5-6
    attacker falls back; 7+ attacker eliminated (`units.MELEE_RESULTS`)."""
    return rounded(dict(_melee_odds(modifier)))


def _with_supports(board: Board, bases: set[str]) -> tuple[int, list[str]]:
    """F20: the bases and the friends that count for them (not already among them)."""
    sup: set[str] = set()
    if board.settings.f20_outnumbering == "contact_plus_adjacent":
        for b in bases:
            sup |= {o for o in board.relations.adjacent_friends[b] if o not in bases}
    return len(bases) + len(sup), sorted(sup)


def judge(board: Board, pairs: Sequence[tuple[str, str]]) -> list[Attack]:
    """The full verdict on each (attacker, target): reach, aspect, the defender's morale test
    and the melee roll (an estimate of the numbers). The reaches are measured in one batch
    with the nearest attack of each regiment mate the estimate may need (`_engaged`)."""
    todo = [p for p in dict.fromkeys(pairs) if ("attack", *p) not in board.memo]
    if todo:
        regs = board.regiments
        queues = _mates_attacks(board, sorted({
            (a, regs.of_base[t]) for a, t in todo if board.pieces[t].is_troop
            and board.pieces[a].can_attack and board.is_enemy(a, t)}))
        verdicts = reach(board, todo + [(m, q[0]) for (_, _, m), q in queues.items()])
        melees = [(p, v) for p, v in zip(todo, verdicts) if v.distance is not None
                  and v.reasons[:1] != [f"already in contact with {p[1]}"]]
        engaged = _engaged(board, queues, {(a, regs.of_base[t]) for (a, t), _ in melees})
        for p, v in zip(todo, verdicts):
            board.memo[("attack", *p)] = v
        for (a, t), v in melees:
            _add_melee(board, v, engaged[(a, regs.of_base[t])])
    return [board.memo[("attack", *p)] for p in pairs]


def _mates_attacks(board: Board, wanted: list[tuple[str, str]]
                   ) -> dict[tuple[str, str, str], list[str]]:
    """(attacker, defender regiment, mate) -> the bases of that regiment the attacker's
    regiment mate may attack, nearest first (F20's estimate): those no farther than the mate's
    full move plus the close-call tolerance (no path is shorter than the gap), measured in one
    call."""
    regs, pieces = board.regiments, board.pieces
    tried = sorted({(m, t) for a, d_reg in wanted for m in regs.mates(a)
                    if m != a and pieces[m].can_attack and not pieces[m].stale
                    for t in regs.by_name[d_reg].bases
                    if pieces[t].is_troop and board.is_enemy(m, t)})
    gap = shapely.distance(board.shapes[[board.pos[m] for m, _ in tried]],
                           board.shapes[[board.pos[t] for _, t in tried]])
    move = np.array([board.mm(base_rate_cm(board, m)) for m, _ in tried]) + board.close_call
    nearest = {p: g for p, g, ok in zip(tried, gap.tolist(), (gap <= move).tolist()) if ok}
    queues = {(a, d_reg, m): sorted((t for t in regs.by_name[d_reg].bases if (m, t) in nearest),
                                    key=lambda t, m=m: (nearest[(m, t)], t))
              for a, d_reg in wanted for m in regs.mates(a) if m != a}
    return {k: q for k, q in queues.items() if q}


def _engaged(board: Board, queues: dict[tuple[str, str, str], list[str]],
             needed: set[tuple[str, str]]) -> dict[tuple[str, str], set[str]]:
    """(attacker, defender regiment) -> the attacker and those of its regiment mates that may
    legally attack a base of that regiment (F20's estimate), for the keys ``needed``. Each
    mate's nearest attack (`_mates_attacks`) is judged first (`judge` did, with its own
    batch); the rest of the queues of the mates it leaves unsettled in one more batch (a batch
    costs far more than an attack in it)."""
    out = {k: {k[0]} for k in needed}
    queues = {k: q for k, q in queues.items() if k[:2] in needed}

    def count_legal(tried: list[tuple[tuple[str, str, str], str]]) -> None:
        for (k, _), v in zip(tried, reach(board, [(k[2], t) for k, t in tried])):
            if v.legal:
                out[k[:2]].add(k[2])

    count_legal([(k, q[0]) for k, q in queues.items()])
    count_legal([(k, t) for k, q in queues.items() if k[2] not in out[k[:2]] for t in q[1:]])
    return out


def _add_melee(board: Board, v: Attack, engaged: set[str]) -> None:
    """The defender's morale test and the melee roll of an attack that may reach."""
    regs = board.regiments
    n_att, a_sup = _with_supports(board, engaged)
    n_def, d_sup = _with_supports(board, set(regs.group_of(v.target)))
    v.morale = morale_test(board, v.target, v.contact_aspect, [v.attacker])
    mods = melee_modifiers(board, v.attacker, v.target, v.contact_aspect, (n_att, n_def))
    v.melee = {"modifiers": [m.to_dict() for m in mods], "modifier_total": total(mods),
               "counts": {"attacker": n_att, "defender": n_def,
                          "attacker_supports": a_sup, "defender_supports": d_sup,
                          "estimate": "the attacking bases of the regiment that can reach "
                                      "the defender, against the defender's group"},
               "odds_per_die": melee_odds(total(mods))}


def engagements(board: Board) -> list[dict[str, Any]]:
    """Melees on the table: each regiment touched by enemies, as the defender against every
    enemy base touching it (one attack by «uno o più gruppi»), counted as F20 says. Every
    regiment in contact appears once as defender: the geometry cannot tell who attacked."""
    regs = board.regiments
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
            aspect = _aspect(board, d, a)
            mods = melee_modifiers(board, a, d, aspect, (n_att, n_def))
            dice.append({"attacker_base": a, "defender_base": d, "aspect": aspect.value,
                         "modifiers": [m.to_dict() for m in mods], "modifier_total": total(mods),
                         "odds": melee_odds(total(mods))})
        att_regs = sorted({regs.of_base[a] for a in att})
        if board.settings.f21_melee_dice == "per_base_of_regiment":
            n_dice = sum(len(regs.by_name[r].bases) for r in att_regs)
        else:
            n_dice = len(att)
        worst_a, worst_d = min(sorted(pairs),
                               key=lambda ad: _ASPECT_RANK[_aspect(board, ad[1], ad[0]).value])
        aspect = _aspect(board, worst_d, worst_a)
        out.append({"defender": d_reg, "attackers": att_regs,
                    "attacker_bases": sorted(att), "defender_bases": sorted(dfd),
                    "counts": {"attacker": n_att, "defender": n_def,
                               "attacker_supports": a_sup, "defender_supports": d_sup},
                    "dice": n_dice, "per_die": dice,
                    "repeats_next_turn": board.settings.f23_melee_repeats == "while_in_contact",
                    "defender_morale": morale_test(board, worst_d, aspect, sorted(att)),
                    "defender_fall_back": fall_back(board, worst_d, worst_a)})
    return out


def _aspect(board: Board, defender: str, attacker: str) -> Aspect:
    """The aspect of ``defender`` that ``attacker`` touches."""
    edge = board.edges[(defender, attacker)]
    return Aspect.FLANK if edge in ("left", "right") else Aspect(edge)
