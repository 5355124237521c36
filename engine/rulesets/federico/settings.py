"""Every ambiguity of Federico as a named setting (Federico F1–F27), plus what the text lacks.

The digest (shared/rules/federico.md, "Ambiguities and a proposed reading") lists 27 places where
the Italian text is unclear. Each is a field ``f<N>_<name>`` whose default is the digest's
proposal. Values the text does not give at all (base sizes, line of sight, tolerances, what blocks
sight or gives cover) are settings whose description starts "not in the rulebook: set for your
group", so the overlay and the docs show them as the group's choice, never as rules.
Field names are a contract: never rename them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field

from campo.engine.rulesets.federico.units import ARC_OF_FIRE_DEG, LOSS_PERCENT_PER_CAPACITY
from campo.engine.rulesets.settings_common import GAP_PREFIX, RulesetSettings, gap


def _base_size(default: tuple[float, float], what: str) -> Any:
    return Field(default, description=gap('Federico F14 (Federico "Scala di gioco"): [frontage, '
                                          f"depth] of {what} in mm."))


class FedericoSettings(RulesetSettings):
    """Readings of the ambiguous rules and the group's own numbers; defaults = digest proposals."""

    ambiguity_prefix = "f"
    cite_pattern = re.compile(r'Federico (?:F\d+|"[^"]+")')
    has_gaps = True

    # --- Geometry of fire ------------------------------------------------------------------
    f1_zones: Literal["front_halfplane", "corner_diagonals"] = Field(
        "front_halfplane",
        description='Federico F1 (Federico "Mischie"): front zone = the half-plane ahead of the '
        "extended front edge; rear = the strip behind the rear edge between the rearward side "
        "extensions; flanks = the rest. For a regiment, the base actually contacted or fired at "
        "decides. 'corner_diagonals' cuts the plane by the base's diagonals instead.",
    )
    f2_arc_half_angle_deg: float = Field(
        ARC_OF_FIRE_DEG, ge=0.0, lt=90.0,
        description='Federico F2 (Federico "Esecuzione del tiro", «arco di tiro 45 gradi»): the arc '
        "is bounded by two rays from the front corners, each turned this many degrees outward "
        "from straight ahead; a target is in arc if any part of it lies between them, ahead of "
        "the front edge. The alternative reading is 22.5 (45° in all).",
    )
    f3_artillery_arc: Literal["as_infantry", "straight_ahead"] = Field(
        "as_infantry",
        description='Federico F3 (Federico "Esecuzione del tiro"): no arc is stated for artillery; '
        "'as_infantry' uses the infantry arc (f2); 'straight_ahead' only the strip ahead of the "
        "front edge.",
    )
    f4_range_measure: Literal["front_edge_to_part_in_arc", "front_edge_to_nearest_point",
                              "centre_to_centre"] = Field(
        "front_edge_to_part_in_arc",
        description='Federico F4 (Federico "Raggio di tiro"): range from the nearest point of the '
        "firer's front edge to the nearest point of the part of the target in arc; short = "
        "distance <= the short figure, long = over short and <= the long figure; beyond, no fire.",
    )
    f5_line_of_sight: Literal["any_line", "all_lines", "centre_to_centre", "ignore"] = Field(
        "any_line",
        description=gap('Federico F5 (Federico "Esecuzione del tiro" only says "in the open" or '
                        '"in cover"): a target is visible along at least one straight line from '
                        "the firer's front edge to it that passes through no other base (friend "
                        "or foe; commanders do not block), no blocking area (sight_blocking_areas) "
                        "and no hill or crest neither of them stands on. 'ignore' = no sight "
                        "test."),
    )
    f6_target_choice: Literal["free_choice", "nearest_legal"] = Field(
        "free_choice",
        description='Federico F6 (Federico "Esecuzione del tiro", «i bersagli vanno dichiarati '
        "in anticipo»): targets are declared in advance with no nearest-target rule: free choice "
        "among legal targets (in arc, in range, visible).",
    )
    f7_cover_count: Literal["once", "twice"] = Field(
        "once",
        description='Federico F7 (Federico "Esecuzione del tiro", "Modificatori"): the +1 for a '
        "target in cover is stated twice and is applied once. 'In cover' = the target base at "
        "least cover_area_share inside a cover area, or behind a cover line crossed by the shot.",
    )
    f8_enfilade: Literal["whole_front_beyond", "front_centre_beyond"] = Field(
        "whole_front_beyond",
        description='Federico F8 (Federico "Modificatori", «d\'infilata»): the target is enfiladed '
        "when both front corners of the firer are level with or behind the extended front edge "
        "of the target (beyond_front_tolerance_cm), i.e. the firer is in its flank or rear zone.",
    )
    f9_mounted: Literal["cavalry_only", "cavalry_and_limbered"] = Field(
        "cavalry_only",
        description='Federico F9 (Federico "Modificatori", «Bersaglio montato»): "mounted" = '
        "cavalry; limbered artillery is not mounted. Short range as in F4.",
    )
    f10_low_result_compares: Literal["firer_class", "target_class"] = Field(
        "firer_class",
        description='Federico F10 (Federico "Esecuzione del tiro", «inferiore alla propria '
        "classe»): 'propria' is the firer's class, as in the sentence before; a modified result "
        "of 0 or less counts as lower.",
    )
    f11_class_drops: Literal["one_per_phase", "cumulative"] = Field(
        "one_per_phase",
        description='Federico F11 (Federico "Esecuzione del tiro"): each die is resolved alone; '
        "each 'equal' eliminates one base; any number of 'lower' results on one target in one "
        "fire phase cause one halt and one class drop. 'cumulative': one drop per lower result.",
    )
    f12_target_unit: Literal["regiment", "base"] = Field(
        "regiment",
        description='Federico F12 (Federico "Esecuzione del tiro", "Movimenti"): the target is the '
        "enemy regiment or battery (traits.regiment); bases eliminated are removed from it, "
        "chosen by its owner starting with those in contact or nearest the firer; the class "
        "belongs to the whole unit. 'base': regiments list the enemy bases they may fire at.",
    )
    f13_fire_history: Literal["traits_then_turn", "traits_only"] = Field(
        "traits_then_turn",
        description='Federico F13 (Federico "Modificatori"): «Fanteria che tira per la prima '
        "volta» = the unit's first fire of the game; «Unità che ha mosso» = it moved in the "
        "previous movement phase (fire comes first). They come from traits.fired and "
        "traits.moved; with 'traits_then_turn' a unit without traits.fired is taken to have fired "
        "already when the scenario's turn is after the first.",
    )

    # --- Movement ------------------------------------------------------------------------------
    f14_base_sizes: Literal["warn_if_mixed", "off"] = Field(
        "warn_if_mixed",
        description=gap('Federico F14 (Federico "Scala di gioco": basing is free «purché sia '
                        'omogeneo per tutte le unità»): no base size is given. The sizes come '
                        "from each base's width_mm and depth_mm; set base_size_* to your "
                        "group's basing and a base of another size is reported."),
    )
    f15_wheels: Literal["wheel_outer_corner", "free_turn"] = Field(
        "wheel_outer_corner",
        description='Federico F15 (Federico "Movimenti"): a unit moves straight ahead and wheels, '
        "the outer corner's path counting against the move; other facing changes are changes of "
        "front (one turn). 'free_turn': wheeling costs nothing.",
    )
    f16_halved_move: Literal["whole_move", "portion_only"] = Field(
        "whole_move",
        description='Federico F16 (Federico "Movimenti", «il movimento si dimezza»): if any part '
        "of a move is on broken ground or crosses an obstacle or a fordable stream, the whole "
        "move is halved (not Light Infantry or Indians). 'portion_only': crossing an obstacle "
        "or stream still halves the move, but on broken ground only the way inside it counts "
        "double.",
    )
    f17_cohesion_tolerance_cm: float = Field(
        0.3, ge=0.0,
        description=gap('Federico F17 (Federico "Movimenti", «basette isolate»): the bases of a '
                        "regiment form a group when each touches another edge to edge within "
                        "this gap (cm) along a shared segment; a base not in the largest group "
                        "is isolated and must rejoin it."),
    )

    # --- Melee geometry -----------------------------------------------------------------------
    f18_attack_reach: Literal["front_contact_within_move", "distance_only"] = Field(
        "front_contact_within_move",
        description='Federico F18 (Federico "Mischie", «se la distanza di movimento e lo spazio '
        "lo consentono»): the attacker's move (formation, F16 halving) must bring its front edge "
        "into contact moving straight ahead or after one wheel (F15), with room for its base "
        "(no other base in the way). 'distance_only': the shortest distance is enough.",
    )
    f19_flank_attack: Literal["centre_beyond_and_side_edge", "attacker_zone"] = Field(
        "centre_beyond_and_side_edge",
        description='Federico F19 (Federico "Mischie", «di fianco o di spalle»): on the flank if '
        "the centre of the attacker's front is beyond the defender's front line and it touches a "
        "side edge; on the rear if it touches the rear edge from the rear zone (F1). "
        "'attacker_zone': the zone (F1) holding the attacker's front centre.",
    )
    f20_outnumbering: Literal["contact_plus_adjacent", "contact_only"] = Field(
        "contact_plus_adjacent",
        description='Federico F20 (Federico "Mischie", «più numeroso»): each side counts its bases '
        "in contact with the enemy plus friendly bases not in melee touching the side or rear of "
        "a unit in melee (one level of adjacency). Equal numbers: no modifier.",
    )
    f21_melee_dice: Literal["per_base_in_contact", "per_base_of_regiment"] = Field(
        "per_base_in_contact",
        description='Federico F21 (Federico "Mischie", «1D6 per ogni basetta impegnata»): the '
        "attacker rolls for each base in contact; each die applies to the defending base it "
        "touches; results of 0 or less count as '1 or 2'; eliminations first, then fall-backs.",
    )
    f22_fall_back: Literal["away_from_contacted_edge", "toward_own_table_edge"] = Field(
        "away_from_contacted_edge",
        description='Federico F22 (Federico "Mischie", «arretra spalle al nemico»): the unit turns '
        "its back to the enemy and moves straight away from it, perpendicular to the contacted "
        "edge, 10 cm (infantry) or 20 cm (cavalry). Artillery in battery stays only if the "
        "attacker falls back or is eliminated; limbered artillery is eliminated like a march "
        "column.",
    )
    f23_melee_repeats: Literal["while_in_contact", "one_round"] = Field(
        "while_in_contact",
        description='Federico F23 (Federico "Mischie", «I lanci si ripetono ad ogni turno»): if '
        "after all dice both sides are still in contact, roll again next turn (melees show "
        "repeats_next_turn). 'one_round': the melee ends after one round.",
    )

    # --- Morale and victory -------------------------------------------------------------------
    f24_loss_percent_per_capacity: float = Field(
        LOSS_PERCENT_PER_CAPACITY, gt=0.0,
        description='Federico F24 (Federico "Morale dell\'esercito": Command Capacity 4 tests at '
        "40%): the army tests when bases eliminated >= Command Capacity x this percent of its "
        "bases at the start; class drops are not losses.",
    )
    f25_further_losses: Literal["any_base_eliminated", "any_loss_or_class_drop"] = Field(
        "any_base_eliminated",
        description='Federico F25 (Federico "Morale dell\'esercito", «ulteriori perdite»): any '
        "base eliminated during the turn: with armies.<side>.tested_at_losses, a new test is due "
        "only when losses exceed it. 'any_loss_or_class_drop' adds a reminder that a class drop "
        "also counts (the engine cannot see class drops).",
    )
    f26_initiative_ties: Literal["roll_again", "higher_chief_wins"] = Field(
        "roll_again",
        description='Federico F26 (Federico "Iniziativa"): ties are not covered; roll again.',
    )
    f27_commander_adjacent_cm: float = Field(
        1.0, ge=0.0,
        description=gap('Federico F27 (Federico "Comandanti", «isolati ed adiacenti ad unità '
                        "nemiche»): a commander not touching a friendly unit whose base is "
                        "within this many cm of an enemy base is lost."),
    )

    # --- What the text lacks (set for your group) ---------------------------------------------
    contact_tolerance_cm: float = Field(
        0.2, ge=0.0,
        description=gap('Federico F17, F20 (Federico "Mischie"): two bases touch (contact, '
                        "adjacency, support, attached commander) when the gap between them is "
                        "at most this many cm (tracking noise)."),
    )
    beyond_front_tolerance_cm: float = Field(
        0.25, ge=0.0,
        description=gap("Federico F8, F19: a point is 'beyond the line of the front' (F19) when "
                        "it lies behind the extended front edge by more than this many cm; "
                        "within this many cm of it, it is 'level with' it (F8)."),
    )
    base_size_infantry_mm: tuple[float, float] = _base_size((40.0, 20.0),
                                                           "an infantry base (1/2 battalion)")
    base_size_cavalry_mm: tuple[float, float] = _base_size((40.0, 30.0),
                                                          "a cavalry base (2 squadrons)")
    base_size_artillery_mm: tuple[float, float] = _base_size((40.0, 40.0),
                                                            "an artillery base (1 battery)")
    base_size_tolerance_mm: float = Field(
        3.0, ge=0.0,
        description=gap("Federico F14: a base differing from its arm's size by more than this "
                        "many mm in frontage or depth is reported (basing must be homogeneous)."),
    )
    sight_blocking_areas: tuple[str, ...] = Field(
        ("wood", "town", "village", "hill"),
        description=gap("Federico F5: area terrain kinds that block a sight line passing through "
                        "them, unless the firer or the target stands in that very area."),
    )
    cover_areas: tuple[str, ...] = Field(
        ("wood", "town", "village", "farm", "orchard", "fortification"),
        description=gap('Federico F7 (Federico "Modificatori", «Bersaglio in copertura»): area '
                        "kinds that give cover to a base standing in them."),
    )
    cover_lines: tuple[str, ...] = Field(
        ("wall", "stone_wall", "low_wall", "hedge", "parapet", "fortification_line"),
        description=gap("Federico F7: linear kinds (walls, hedges, earthworks) that give cover "
                        "to a base whose front is against them when the shot crosses them."),
    )
    cover_area_share: float = Field(
        0.5, ge=0.0, le=1.0,
        description=gap("Federico F7: share of a base's area that must lie inside a cover area "
                        "for it to be in cover ('at least half')."),
    )
    light_cover_lines: tuple[str, ...] = Field(
        ("hedge", "low_wall", "tree_row", "fortification_line", "parapet", "wall", "stone_wall"),
        description=gap('Federico "Mischie" (+1 «dietro copertura leggera»): linear kinds that '
                        "are light cover for a melee defender whose front is against them, "
                        "between it and the attacker."),
    )
    stream_kinds: tuple[str, ...] = Field(
        ("stream", "ford"),
        description=gap('Federico "Movimenti", "Mischie" («torrente guadabile»): linear kinds '
                        "that are fordable streams (halve a move; a defender behind one is in "
                        "favourable terrain)."),
    )
    broken_ground: tuple[str, ...] = Field(
        ("wood", "marsh", "rough", "rice", "orchard", "village", "town", "farm"),
        description=gap('Federico F16 (Federico "Movimenti", «terreno rotto»): area kinds that '
                        "halve a move touching them."),
    )
    obstacles: tuple[str, ...] = Field(
        ("hedge", "wall", "stone_wall", "low_wall", "parapet", "fortification_line", "river"),
        description=gap('Federico F16 (Federico "Movimenti", «ostacolo»): linear kinds that halve '
                        "a move crossing them."),
    )
    objective_kinds: tuple[str, ...] = Field(
        ("hill", "village", "town", "bridge"),
        description=gap('Federico "Iniziativa" («collina, villaggio, ponte ecc.»): terrain kinds '
                        "that are objectives for the initiative bonus."),
    )
    objective_holding: Literal["sole_occupant", "majority"] = Field(
        "sole_occupant",
        description=gap('Federico "Iniziativa" («di cui si è in possesso»): a side holds an '
                        "objective when it has bases on it and the enemy has none "
                        "('majority': more bases on it than the enemy)."),
    )
    command_radius_cm: float = Field(
        0.0, ge=0.0,
        description=gap('Federico "Comandanti" (no command radius is given; only an attached '
                        "commander acts, −1 to the defender's morale): commanded_by lists the "
                        "commanders attached to the unit and those within this many cm of it."),
    )
    irregulars_move_as: Literal["infantry"] = Field(
        "infantry",
        description=gap('Federico "Movimenti": Light Infantry, Indians and Highlanders have no '
                        "own movement rates; they move as infantry of their formation."),
    )
    artillery_in_battery_move_cm: float = Field(
        0.0, ge=0.0,
        description=gap('Federico "Movimenti" («da traino a batteria» takes a turn): how far '
                        "artillery in battery may move (it normally limbers first)."),
    )
    oblique_attack_max_deg: float = Field(
        0.0, ge=0.0, le=90.0,
        description=gap('Federico F15, F18 (Federico "Movimenti" describes no oblique move; F15 '
                        "proposes straight ahead and wheels only): an attack may also slide "
                        "obliquely, keeping its facing, up to this many degrees from straight "
                        "ahead (toward the target's nearest point, or at the limit), from where "
                        "it stands or after its wheel; the slide's length counts against the "
                        "move. 0 = no oblique moves (F15's proposal); 45 is the usual "
                        "horse-and-musket limit."),
    )
