"""Quick-reference tables for Federico, built from `units` (the numbers the verdicts use) and
the settings in force, for the umpire's rules panel: ``{"title", "cites", "columns", "rows"[,
"gap"]}`` of plain strings; and what each terrain kind does under Federico (the terrain editor),
read from the settings that give terrain its roles."""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.doc_common import num, words
from campo.engine.rulesets.federico import units
from campo.engine.rulesets.federico.settings import FedericoSettings
from campo.engine.terrain import TERRAIN_KINDS


def _modifiers(title: str, cites: str, rows: dict[str, units.Row]) -> dict[str, Any]:
    return {"title": title, "cites": cites, "columns": ["condition", "modifier"],
            "rows": [[r.text, f"{r.delta:+d}"] for r in rows.values()]}


def reference(settings: FedericoSettings) -> list[dict[str, Any]]:
    """Fire ranges and dice, the arc, movement, the modifier tables, melee results, classes,
    commanders and army morale (Federico)."""
    fire = {"title": "Fire ranges (cm)",
            "cites": 'Federico "Raggio di tiro", Federico "Esecuzione del tiro"',
            "columns": ["weapon", "short", "long", "dice per base"],
            "rows": [[words(w), num(s, " cm"), num(lg, " cm"), str(units.DICE[w])]
                     for w, (s, lg) in units.RANGES_CM.items()]}
    arc = {"title": "Arc of fire", "cites": 'Federico "Esecuzione del tiro", Federico F2, F3',
           "columns": ["what", "value"],
           "rows": [["the rulebook's arc", num(units.ARC_OF_FIRE_DEG, "°")],
                    ["read as, each side of straight ahead (f2_arc_half_angle_deg)",
                     num(settings.f2_arc_half_angle_deg, "°")],
                    ["artillery (f3_artillery_arc)", words(settings.f3_artillery_arc)],
                    ["a die equal to the firer's class", "one base eliminated"],
                    ["a die lower than the firer's class", "target halts, drops a class"],
                    ["a die higher than the firer's class", "no effect"]]}
    movement = {"title": "Movement (cm per turn)", "cites": 'Federico "Movimenti"',
                "columns": ["troops", "formation", "move"],
                "rows": [[arm, words(form), num(cm, " cm")]
                         for (arm, form), cm in units.MOVE_CM.items()]
                + [["artillery", "in battery (artillery_in_battery_move_cm)",
                    num(settings.artillery_in_battery_move_cm, " cm")],
                   ["broken ground, obstacle, fordable stream", "not Light Infantry, Indians",
                    f"× {units.HALVED_MOVE:g}"]]}
    melee = {"title": "Melee die results", "cites": 'Federico "Mischie"',
             "columns": ["modified die", "result"],
             "rows": [[span, text] for span, _, text in units.melee_result_spans()]}
    classes = {"title": "Classes, fall-backs, commanders",
               "cites": 'Federico "Classificazione truppe", Federico "Mischie", '
                        'Federico "Comandanti", Federico "Iniziativa"',
               "columns": ["what", "value"],
               "rows": [*[[f"class of {w} cavalry / artillery", str(c)]
                          for w, c in units.CLASS_BY_WEIGHT.items()],
                        ["line infantry / light infantry", f"{units.LINE_CLASS} / "
                         f"{units.LIGHT_CLASS}"],
                        ["below this class the unit is eliminated", str(units.LOWEST_CLASS)],
                        *[[f"fall back: {arm}", num(cm, " cm")]
                          for arm, cm in units.FALL_BACK_CM.items()],
                        *[[f"Commander in Chief: {name}", str(v)]
                          for name, v in units.CHIEF_ABILITY.items()],
                        ["initiative: 1D6 + per objective held + chief's value",
                         f"+{units.INITIATIVE_PER_OBJECTIVE}"]]}
    morale = {"title": "Army morale", "cites": 'Federico "Morale dell\'esercito", Federico F24',
              "columns": ["Command Capacity", "tests from losses of", "passed on 1D6 of"],
              "rows": [[str(v), num(v * settings.f24_loss_percent_per_capacity, "%"),
                        f"1–{v}" if v > 1 else "1"]
                       for v in sorted(set(units.CHIEF_ABILITY.values()), reverse=True)]}
    return [fire, arc, movement,
            _modifiers("Fire modifiers (each die)", 'Federico "Modificatori"',
                       units.FIRE_MODIFIERS),
            _modifiers("Defender's morale test (1D6)", 'Federico "Mischie"',
                       units.MORALE_MODIFIERS),
            _modifiers("Melee die modifiers", 'Federico "Mischie"', units.MELEE_MODIFIERS),
            melee, classes, morale]


def terrain_effects(settings: FedericoSettings) -> dict[str, str]:
    """Every terrain kind the engine knows -> what it does under Federico, from the settings
    that give terrain its roles (their defaults on the editor; a group may change them)."""
    from campo.engine.rulesets.federico.movement import CLOSED_KINDS

    roles = [
        (settings.sight_blocking_areas, "blocks sight (sight_blocking_areas, F5)"),
        (settings.cover_areas, "cover for a base at least half inside: +1 to fire at it "
                               "(cover_areas, F7)"),
        (settings.cover_lines, "cover for a base behind it: +1 to fire at it (cover_lines, F7)"),
        (settings.light_cover_lines, "light cover for a melee defender behind it: +1 to the "
                                     "melee die (light_cover_lines)"),
        (CLOSED_KINDS, "entered only in march column along a road, except Light Infantry and "
                       "Indians"),
        (settings.broken_ground, "broken ground: halves a move touching it, except Light "
                                 "Infantry and Indians (broken_ground, F16)"),
        (settings.obstacles, "obstacle: halves a move crossing it, except Light Infantry and "
                             "Indians (obstacles, F16)"),
        (settings.stream_kinds, "fordable stream: halves a move crossing it; a defender behind "
                                "it is in favourable terrain (stream_kinds)"),
        (("hill",), "a defender on it (the attacker not) is in favourable terrain"),
        (("road",), "lets a march column enter woods and villages"),
        (("crest",), "blocks sight (a crest line; a hill may carry one)"),
        (settings.objective_kinds, "objective: +1 initiative to the side holding it "
                                   "(objective_kinds)"),
    ]
    out = {}
    for kind in TERRAIN_KINDS:
        effects = [text for kinds, text in roles if kind in kinds]
        out[kind] = "; ".join(effects) if effects else \
            "no rule for it in Federico: the engine treats it as open ground"
    return out
