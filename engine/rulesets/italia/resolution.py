"""ISD tests resolved with the dice: a gun's 2d6 on the §6 artillery (or rocket) table, a unit's
musketry dice on §7, from the modifiers the fire verdict computed (`fire.probe`) and the numbers
of `tables_fire`; a melee's two d6 with each side's §9 modifiers (`melee.side_entry`) on the §9
results table (`tables_melee`); a unit's 2d6 on the Manoeuvre Table (`tables_manoeuvre`). The
effects proposed are losses (counted against the Efficacy table, ISD §4), disorder gained or
recovered, a move back (a gun limbers up to fall back, ISD A45), a rout, or the battery's
reduced ammunition."""

from __future__ import annotations

from typing import Any

from campo.engine.resolution import (
    Dice,
    DiceTest,
    Effect,
    Outcome,
    Roll,
    fall_back,
    on_table,
    refuse_shot,
)
from campo.engine.rulesets.italia import tables_fire as tf
from campo.engine.rulesets.italia import tables_manoeuvre as tm_
from campo.engine.rulesets.italia import tables_melee as tm
from campo.engine.rulesets.italia.board import MM_PER_IN, Board
from campo.engine.rulesets.italia.fire import probe
from campo.engine.rulesets.italia.melee import enemies_in_contact, side_entry
from campo.engine.rulesets.italia.modifier import Modifier, score_total
from campo.engine.rulesets.italia.conduct import manoeuvre_of
from campo.engine.rulesets.italia.modifiers_fire import pool_of
from campo.engine.rulesets.italia.modifiers_other import ManoeuvreFacts, manoeuvre_modifiers
from campo.engine.rulesets.italia.relations import command_of
from campo.engine.rulesets.italia.troops import MANOEUVRE_VALUE, GeneralQuality, efficacy_state
from campo.engine.rulesets.italia.unit_state import unit_state
from campo.engine.state import GameState
from campo.errors import CampoInputError


def fire_test(state: GameState, shooter: str, target: str) -> DiceTest:
    """The shot of ``shooter`` at ``target`` ready to roll (`CampoInputError` when the verdict
    says it may not be taken, with its reasons)."""
    board = Board.of(state)
    on_table(board.infos, shooter, target)
    shot = probe(board, shooter, target)
    if shot is None or not shot.legal:
        raise refuse_shot(shooter, target, shot.reasons if shot else None)
    mods = [Modifier(**m) for m in shot.modifiers or []]
    notes = () if shot.priority else (
        "not the compulsory target: ISD §6/§7 fire at the nearest (or a unit at charge distance)",)
    if board.infos[shooter].is_gun:
        return _bombardment(board, shooter, target, mods, notes)
    return _musketry(board, shooter, target, mods, notes)


def _bombardment(board: Board, shooter: str, target: str, mods: list[Modifier],
                 notes: tuple[str, ...]) -> DiceTest:
    rockets = board.infos[shooter].rockets
    total = score_total(mods)
    rows = tf.rocket_rows() if rockets else tf.bombardment_rows()
    table = {"title": "Rocket fire table (2d6)" if rockets else "Artillery fire table (2d6)",
             "cites": "ISD §6", "columns": ["2d6 + modifiers", "result"],
             "rows": [[label, text] for label, _, text in rows],
             "notes": ["natural double 6: at least 1 loss, disordered, falls back 3\"",
                       "natural double 1: reduced ammunition"]}

    def read(dice: Dice) -> Outcome:
        natural = sum(dice[0])
        r = tf.bombardment_result(natural, total, rockets=rockets, settings=board.settings)
        row = next(label for label, o, _ in rows if o is r.outcome)
        effects = []
        if r.reduced_ammunition:
            effects.append(Effect(shooter, "battery in reduced ammunition",
                                  {"reduced_ammunition": True}))
        if r.losses or r.disorder:
            effects.append(_hit(board, target, r.losses, r.disorder, r.fall_back_in))
        return Outcome(row, r.note, r.cites, (row,),
                       {"natural": natural, "modifier": total, "total": r.total}, tuple(effects))

    return DiceTest("fire", shooter, target, "Bombardment", "ISD §6",
                [m.to_dict() for m in mods], (Roll("2d6", 2, 6),), table, read, notes)


def _musketry(board: Board, shooter: str, target: str, mods: list[Modifier],
              notes: tuple[str, ...]) -> DiceTest:
    pool = pool_of(mods, board.settings)
    delta = pool.score_delta
    faces = [(d, tf.musketry_die_hits(d, delta)) for d in range(1, 7)]
    table = {"title": f"Musketry: each d6{' %+d' % delta if delta else ''} hits on "
                      f"{tf.MUSKETRY_HIT_ON}+",
             "cites": "ISD §7", "columns": ["die", "result"],
             "rows": [[str(d), "hit: 1 loss" if hit else "miss"] for d, hit in faces],
             "notes": ["a 6 always hits, a 1 always misses"]
                      + (["re-roll each 1 once, enter the faces after"] if pool.reroll_ones else [])}

    def read(dice: Dice) -> Outcome:
        hits = sum(tf.musketry_die_hits(d, delta) for d in dice[0])
        effects = (_hit(board, target, hits, False, 0.0),) if hits else ()
        text = f"{hits} loss{'es' if hits != 1 else ''}" if hits else "no effect"
        return Outcome(f"{hits} hit{'s' if hits != 1 else ''}", text, "ISD §7",
                       tuple(str(d) for d in dice[0]), {"dice": len(dice[0]), "per_die": delta, "hits": hits}, effects)

    return DiceTest("fire", shooter, target, "Musketry", "ISD §7", [m.to_dict() for m in mods],
                (Roll(f"{pool.dice}d6", pool.dice, 6, reroll_ones=pool.reroll_ones),),
                table, read, notes)


def melee_test(state: GameState, attacker: str, defender: str) -> DiceTest:
    """The melee of ``attacker`` and ``defender`` (in contact) ready to roll: each side's d6 and
    its ISD §9 modifiers (the neutral readings of what the table cannot show are listed as
    notes), read on the §9 results table by the difference of the scores."""
    board = Board.of(state)
    on_table(board.infos, attacker, defender)
    if defender not in enemies_in_contact(board, attacker):
        raise CampoInputError(f"{attacker} is not in melee with {defender} (no contact)",
                              key="target")
    sides = [side_entry(board, attacker, defender), side_entry(board, defender, attacker)]
    a, b = sides
    mods = [{**m, "label": f"{who}: {m['label']}"}
            for who, side in ((attacker, a), (defender, b)) for m in side["modifiers"]]
    rows = tm.melee_rows()
    table = {"title": "Melee results (difference of the scores)", "cites": "ISD §9",
             "columns": ["difference", "result"], "rows": [[label, r.text] for label, r in rows],
             "notes": [f"score: d6 {a['total']:+d} ({attacker}), d6 {b['total']:+d} ({defender})"]}
    notes = tuple(dict.fromkeys(n for side in sides for n in side["assumed"]))

    def read(dice: Dice) -> Outcome:
        score_a, score_b = dice[0][0] + a["total"], dice[1][0] + b["total"]
        out = tm.resolve_melee(score_a, score_b)
        r = out.result
        row = next(label for label, res in rows if res is r)
        if r.draw:
            effects = tuple(_hit(board, x, r.each_side_losses, False, 0.0)
                            for x in (attacker, defender))
            text = r.text
        else:
            loser = defender if out.winner == "a" else attacker
            winner = attacker if loser == defender else defender
            effects = (_hit(board, loser, r.loser_losses, r.loser_disordered,
                            r.loser_falls_back_in),)
            text = f"{winner} wins: {r.text}"
        return Outcome(row, text, r.cites, (row,),
                       {attacker: score_a, defender: score_b, "difference": out.difference},
                       effects)

    return DiceTest("melee", attacker, defender, "Melee", "ISD §9", mods,
                    (Roll(f"d6 {attacker}", 1, 6), Roll(f"d6 {defender}", 1, 6)), table, read,
                    notes)


def _hit(board: Board, target: str, losses: int, disorder: bool, back_in: float) -> Effect:
    """A base's state after ``losses`` more (at most its Efficacy limit), disorder and a move
    back of ``back_in`` inches (a gun limbers up to fall back, ISD A45)."""
    base = board.state.base(target)
    declared = {t.key: t for t in unit_state(base)}
    traits: dict[str, Any] = {}
    words = []
    if losses and "losses" in declared:
        most = declared["losses"].most
        now = int(base.traits.get("losses", 0) or 0)
        after = now + losses if most is None else min(now + losses, most)
        traits["losses"] = after
        quality = str(base.traits.get("quality", "regular"))
        was, becomes = (efficacy_state(base.type, n, quality=quality) for n in (now, after))
        words.append(f"losses {now} → {after}" + (f", now {becomes}" if becomes != was else ""))
    if disorder and "disordered" in declared:
        traits["disordered"] = True
        words.append("disordered")
    ghost = None
    if back_in:
        if board.infos[target].is_gun and board.settings.a45_artillery_falls_back_limbered \
                and "limbered" in declared:
            traits["limbered"] = True
            words.append("limbers up")
        ghost = fall_back(base.x_mm, base.y_mm, base.heading_deg, back_in * MM_PER_IN,
                          f'falls back {back_in:g}"')
        words.append(ghost.text)
    return Effect(target, ", ".join(words) or "no change", traits, ghost=ghost)


def manoeuvre_test(state: GameState, unit: str) -> DiceTest:
    """A unit's 2d6 on the Manoeuvre Table (ISD ManTab) with its modifiers: march column, fresh,
    the best Division general commanding it, Guard, light infantry, losses, and the proximity
    the analysis measured (ISD A25). The column is the unit's order (disordered or ordered)."""
    board = Board.of(state)
    on_table(board.infos, unit)
    info = board.infos[unit]
    if not info.is_unit:
        raise CampoInputError(f"{unit} does not test on the Manoeuvre Table (ISD §8: units only; "
                              "limbered guns move freely)", key="actor")
    near = manoeuvre_of(board, unit) or {}
    qualities = [board.infos[c["id"]].quality for c in command_of(board, unit)
                 if board.infos[c["id"]].rank in (None, "division")
                 and board.infos[c["id"]].quality in {q.value for q in GeneralQuality}]
    best = max(qualities, key=lambda q: MANOEUVRE_VALUE[GeneralQuality(q)], default=None)
    traits = board.state.base(unit).traits
    facts = ManoeuvreFacts(
        arm=info.arm, march_column=info.march_column, fresh=not info.shaken,
        losses=info.losses, general_quality=best,
        french_guard=bool(traits.get("french_guard", False)), light_infantry=info.light,
        enemy_infantry_within_6=bool(near.get("near_infantry")),
        enemy_artillery_within_3=bool(near.get("near_artillery")),
        enemy_cavalry_in_sight=bool(near.get("cavalry_in_sight")))
    mods = manoeuvre_modifiers(facts, board.settings)
    total = sum(m.score_delta for m in mods)
    table = tm_.manoeuvre_table(info.disordered, "Manoeuvre Table: "
                                f"{'disordered' if info.disordered else 'ordered'} unit "
                                "(2d6 + modifiers)")
    allowance = full_move_in(state, unit)

    def read(dice: Dice) -> Outcome:
        natural = sum(dice[0])
        r = tm_.manoeuvre_result(natural + total, disordered=info.disordered)
        row = next(label for label, res in tm_.manoeuvre_rows(info.disordered) if res is r)
        return Outcome(row, f"{r.italian}: {r.text}", r.cites, (row,),
                       {"natural": natural, "modifier": total, "total": natural + total},
                       _manoeuvre_effects(board, unit, r, allowance))

    return DiceTest("manoeuvre", unit, "", "Manoeuvre test", "ISD ManTab",
                    [m.to_dict() for m in mods], (Roll("2d6", 2, 6),), table, read)


def full_move_in(state: GameState, unit: str) -> float:
    """The unit's full move over open ground (inches), for the length of a forced move back."""
    from campo.engine.registry import get_ruleset

    found = get_ruleset(state.scenario.ruleset).movement_allowance(state, unit, ["open"])
    return 0.0 if found is None else float(found.amount)


def _manoeuvre_effects(board: Board, unit: str, r: tm_.ManoeuvreResult,
                       move_in: float) -> tuple[Effect, ...]:
    """A Manoeuvre Table row's effects on the unit: losses, disorder gained or recovered, a
    forced move back (a ghost, straight back), removal on a rout."""
    if r.removed:
        return (Effect(unit, f'{r.italian}: falls back {r.backward_fraction:g} move, then '
                             "removed: lift it from the table", remove=True),)
    back = r.backward_fraction * move_in if r.forced_back else 0.0
    effect = _hit(board, unit, r.losses, r.becomes_disordered, back)
    traits = dict(effect.traits)
    words = [effect.text] if effect.traits or effect.ghost else []
    if r.recovers_order and r.outcome is not tm_.ManoeuvreOutcome.UNCERTAIN \
            and board.infos[unit].disordered:
        traits["disordered"] = False
        words.append("recovers order")
    if not traits and effect.ghost is None:
        return ()
    return (Effect(unit, ", ".join(w for w in words if w and w != "no change"), traits,
                   ghost=effect.ghost),)
