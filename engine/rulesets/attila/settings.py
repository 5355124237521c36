"""Every ambiguity of ATTILA as a named setting (ATT AT1–AT34), plus what the rulebook lacks.

The digest (shared/rules/attila.md, "Ambiguities and a proposed reading") lists 34 places where
the Italian text is unclear. Each is a field ``at<N>_<name>`` whose default is the digest's
proposal. Values the text does not give at all (movement rates, melee dice per troop type) are
settings whose description starts "not in the rulebook: set for your group", so the overlay and
the docs show them as the group's choice, never as rules. Field names are a contract: never rename.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field

from campo.engine.rulesets.settings_common import GAP_PREFIX, RulesetSettings, gap

Die = Literal["d4", "d6", "d8", "d10", "d12"]
FigureScale = Literal["25mm", "15mm", "6mm"]

_GAP_MOVE = gap("Normal move of {what} in cm: paragraph 5.A, where the rates would "
               "be, is missing from the text (ATT 5, ATT AT11). Placeholder default {d} cm, chosen "
               "only relative to the General's 24 cm (ATT 5.E).")
_GAP_DIE = gap("Melee die of {what} when the base gives no traits.melee_die: the "
              "table of melee dice is in the missing Orders of Battle (ATT OB, ATT AT21). "
              "Placeholder default {d}.")


def _move(what: str, d: float) -> Any:
    return Field(d, gt=0.0, description=_GAP_MOVE.format(what=what, d=d))


def _die(what: str, d: str) -> Any:
    return Field(d, description=_GAP_DIE.format(what=what, d=d))


class AttilaSettings(RulesetSettings):
    """Readings of the ambiguous rules and the group's own numbers; defaults = digest proposals."""

    ambiguity_prefix = "at"
    cite_pattern = re.compile(r"ATT (?:AT\d+|\d+\.[A-Z]|\d+|T|Intro|OB)")
    has_gaps = True
    key_prefix = "settings."

    # --- Contact and sides (ATT 7) ------------------------------------------------------------
    at1_contact_side: Literal["longest_shared_segment", "contact_midpoint"] = Field(
        "longest_shared_segment",
        description="ATT AT1 (ATT 7.A, 7.C): the side an enemy contacts is the edge along which "
        "its base touches (the longest shared segment, ties to the front). 'contact_midpoint': the "
        "zone (front half-plane, rear strip, flanks) holding the middle of the contact.",
    )
    at2_contact_tolerance_mm: float = Field(
        2.0, ge=0.0,
        description="ATT AT2 (ATT 7.A): two bases are in contact when the gap between them is at "
        "most this many mm along a shared segment of positive length (see contact_min_shared_mm); "
        "corner to corner is not contact.",
    )
    at3_flank_attack: Literal["two_sides", "any_flank_or_rear"] = Field(
        "two_sides",
        description="ATT AT3 (ATT 7.C): 'two_sides' = a base is attacked in flank only when in "
        "melee with enemies on two different sides; then every enemy on a side other than its "
        "front adds 1d4 -1. 'any_flank_or_rear': any enemy on a flank or rear edge gets it alone.",
    )

    # --- Shooting (ATT 6) -------------------------------------------------------------------
    at4_arc_origin: Literal["front_corners", "front_centre"] = Field(
        "front_corners",
        description="ATT AT4 (ATT 6.A): the 30° per side arc is bounded by rays from the two front "
        "corners turned 30° outward; 'front_centre' starts both rays at the front edge's middle.",
    )
    at5_range_measure: Literal["front_edge_to_part_in_arc", "front_edge_to_nearest_point",
                               "centre_to_centre"] = Field(
        "front_edge_to_part_in_arc",
        description="ATT AT5 (ATT 6.A): range = from the nearest point of the shooter's front edge "
        "to the nearest point of the part of the target inside the arc.",
    )
    at6_band_edges: Literal["chapter_6", "summary_table"] = Field(
        "chapter_6",
        description="ATT AT6 (ATT 6.A, ATT T): 'chapter_6' = short < 5 cm, medium 5-10 cm "
        "inclusive, long > 10 cm; 'summary_table' = long from 11 cm (medium up to 11 cm). "
        "Maximum ranges (5/10/15 cm, ATT T) are inclusive.",
    )
    at7_line_of_sight: Literal["any_line", "centre_to_centre"] = Field(
        "any_line",
        description="ATT AT7 (ATT 6.A): visible when at least one straight line from the shooter's "
        "front edge to a point of the target in arc and range crosses no other base (Camps block, "
        "Generals do not: see generals_block_sight), no wood (except the shooter's or target's "
        "own wood when at its edge) and no hill neither of them stands on.",
    )
    at8_wood_edge_cm: float = Field(
        1.0, ge=0.0,
        description="ATT AT8 (ATT 6.A): a base inside a wood is 'on its edge' when its front edge "
        "(to shoot out) or the edge facing the shooter (to be shot at) is within this many cm of "
        "the wood's boundary or reaches out of the wood; deeper bases neither shoot out nor can "
        "be shot.",
    )
    at9_saves: Literal["one_save", "save_per_reason"] = Field(
        "one_save",
        description="ATT AT9 (ATT 6.C): a target both Heavy and in cover rolls one 1d6 save (4-6), "
        "not two. Heavy units are the types in heavy_types (FP, CP, Heavy Chariots; not FLP).",
    )
    at10_missile_source: Literal["traits_only", "traits_then_type"] = Field(
        "traits_only",
        description="ATT AT10 (ATT 6.B, ATT T): which bases shoot comes from the army list, so from "
        "each base's traits.missile; 'traits_then_type' also arms bases without the trait with "
        "missile_by_type. Dice are ATT T: javelins and slings D6, bows D8.",
    )

    # --- Movement and groups (ATT 4, 5) -------------------------------------------------------
    at11_rates_confirmed: bool = Field(
        False,
        description="ATT AT11 (ATT 5): the movement rates are not in the text. While false, every "
        "answer that depends on the move_cm_* values says 'not in the rulebook: set for your "
        "group'; set true once your group has agreed its rates.",
    )
    at12_group_links: Literal["side_or_front_rear", "side_only"] = Field(
        "side_or_front_rear",
        description="ATT AT12 (ATT 4.B, 4.L, 4.M, 8.D): two bases of a group are linked when they "
        "face the same way (group_heading_tolerance_deg) and touch side edge to side edge along a "
        "shared segment (echelon allowed) or front edge to rear edge; 'side_only' drops columns.",
    )
    at13_group_composition: Literal["light_heavy", "same_arm"] = Field(
        "light_heavy",
        description="ATT AT13 (ATT 4.G, 4.H): Light Groups mix SI/FL/CL (and light chariots), Heavy "
        "Groups FP/CP/FLP (and heavy chariots). 'same_arm' (ATT 4.B): infantry with infantry, "
        "cavalry with cavalry, plus light cavalry with skirmishers.",
    )
    at14_general_distance: Literal["nearest_base_of_group", "each_base"] = Field(
        "nearest_base_of_group",
        description="ATT AT14 (ATT 4.C): 'more than 40 cm' is measured from the General's base to "
        "the nearest point of the nearest base of the unit or group moved.",
    )
    at15_wheel_limit: Literal["half_normal_move", "half_available_move"] = Field(
        "half_normal_move",
        description="ATT AT15 (ATT 5.G, 5.I): a wheel is the arc travelled by the moving front "
        "corner, at most half the unit's normal move, even when a 1D6 cuts the move (ATT 5.G; "
        "the roll is recorded in armies.<side>.move_rolls); forwards only. "
        "'half_available_move': at most half the move left after the roll.",
    )
    at16_mounted_enter_difficult: bool = Field(
        True,
        description="ATT AT16 (ATT 5.B, 5.F, 13): any part of the front line touching a wood, marsh "
        "or difficult terrain stops the unit; mounted units may not enter woods or marshes; this "
        "setting lets them enter difficult terrain (with the same stop).",
    )
    at17_broken_is_difficult: bool = Field(
        True,
        description="ATT AT17 (ATT 5.B, 5.F): 'Terreni Rotti' (broken) and 'Terreno Difficile' "
        "(TD) are the same thing: terrain kind 'rough'.",
    )
    at18_distance_scale: float = Field(
        1.0, gt=0.0,
        description="ATT AT18 (ATT 2, 11.C): ordinary distances (ranges, moves, 40 cm, 30 cm) are "
        "used as written for every figure scale; a factor other than 1 scales them.",
    )

    # --- Melee (ATT 7, 8) -------------------------------------------------------------------
    at19_retreat: Literal["back_to_enemy", "keep_facing"] = Field(
        "back_to_enemy",
        description="ATT AT19 (ATT 7.E): a disordered base turns its back to the enemy and moves "
        "5 cm straight away from the edge it was contacted on; 'keep_facing' moves back 5 cm "
        "keeping its facing.",
    )
    at20_winner_advance_cm: float = Field(
        5.0, ge=0.0,
        description="ATT AT20 (ATT 7.E): the winner moves straight ahead into the vacated space up "
        "to this many cm, stopping at contact with any other base.",
    )
    at21_melee_die_source: Literal["traits_then_type", "type_only"] = Field(
        "traits_then_type",
        description="ATT AT21 (ATT 7.A, ATT OB): a base's melee die is its traits.melee_die, else "
        "d12 for pikes (ATT 8.A), else the melee_die_<type> setting.",
    )
    at22_disorder_ladder: tuple[str, ...] = Field(
        ("d12", "d10", "d8", "d6", "d4", "d4-1"),
        description="ATT AT22 (ATT 8.A): a disordered base rolls the next die down this ladder, "
        "never below its last step (1d4 -1).",
    )
    at23_uphill: Literal["cavalry_and_heavy_foot", "any_attacker"] = Field(
        "cavalry_and_heavy_foot",
        description="ATT AT23 (ATT 7.B, ATT T): attacking uphill (defender on a hill the attacker "
        "is not on) and drawing disorders cavalry and heavy infantry except FLP ('FMP'); "
        "'any_attacker' follows the summary table. Cavalry or pikemen attacking into woods also "
        "suffer it (ATT T).",
    )
    at24_general_attached_mm: float = Field(
        2.0, ge=0.0,
        description="ATT AT24 (ATT 7.D, 9.A): a General is attached to a unit when his base "
        "touches it (gap at most this many mm).",
    )
    at25_general_killed_from: int = Field(
        6, ge=1, le=8,
        description="ATT AT25 (ATT 8.C, ATT T): on the 1d8 for a General in a lost melee, this "
        "score or more kills him (chapter '6-', summary '6-8'); 3 up to it wounds.",
    )

    # --- Mandatory charges (ATT 13) -------------------------------------------------------------
    at26_charge_reach: Literal["wheel_then_straight", "straight_only"] = Field(
        "wheel_then_straight",
        description="ATT AT26 (ATT 13): a target is reachable if the charger's front edge can touch "
        "it after one optional forward wheel (within the wheel limit) and a straight move, all "
        "within its normal move and respecting terrain stops; mandatory charges are moved first "
        "and cost Control Points like any move.",
    )
    at27_skirmishers_close_order: bool = Field(
        False,
        description="ATT AT27 (ATT 1): all units except skirmishers (SI) are Close Order; true "
        "would count SI as Close Order too.",
    )

    # --- Cards, morale, victory (ATT 10, 14, 15) ---------------------------------------------
    at28_deck: Literal["eight_as_listed", "nine_with_blank"] = Field(
        "eight_as_listed",
        description="ATT AT28 (ATT 14): the deck holds the 8 cards listed; 'nine_with_blank' adds a "
        "ninth card with no action to match the text's 'nove carte'.",
    )
    at29_loss_counting: Literal["general_and_camp_five", "bases_only"] = Field(
        "general_and_camp_five",
        description="ATT AT29 (ATT 10.A-C, 15.A): army total = bases at the start + 5 for the "
        "General + 5 for the Camp; losses = bases lost + 5 if the General is killed + 5 if the Camp "
        "is lost. Demoralised at 40% of the total, beaten at 60%.",
    )
    at30_break_point_rounding: Literal["round_up", "exact_percent"] = Field(
        "round_up",
        description="ATT AT30 (ATT 10.A, 12): the Army Break Point is 40% of the army total rounded "
        "up («arrotondato per eccesso»); 'exact_percent' compares losses with 40% unrounded.",
    )

    # --- Deployment and terrain (ATT 11, 12) ----------------------------------------------------
    at31_table_edges: Literal["long_edges", "table_frame"] = Field(
        "long_edges",
        description="ATT AT31 (ATT 11.C-E): zones are measured from each player's own long edge "
        "(A at y = 0, B at y = depth); the short edges are the side edges. 'long_edges' warns when "
        "the table frame puts the players on the short edges; 'table_frame' does not.",
    )
    at32_deploy_inside: Literal["whole_base", "any_part", "centre"] = Field(
        "whole_base",
        description="ATT AT32 (ATT 11.C-E): a unit deploys legally when its whole base is inside "
        "its Deployment Area and outside the side-edge and own-edge strips.",
    )
    at33_terrain_placement: Literal["inside_or_touching", "wholly_inside"] = Field(
        "inside_or_touching",
        description="ATT AT33 (ATT 12): a terrain piece is placed inside or touching a Deployment "
        "Area (the full band from the own edge), at least 30/20/15 cm from every other piece; hills "
        "fit the piece size, woods and difficult terrain the larger maximum.",
    )
    at34_unit_points: int = Field(
        30, ge=0,
        description="ATT AT34 (ATT 12): the points budget («30 Punti Unità», «30/50 Punti Bonus», "
        "one free terrain point); recorded for the players, not checked (the army lists with the "
        "costs are missing, ATT OB).",
    )

    # --- The group's own numbers (not in the rulebook) ------------------------------------------
    move_cm_fp: float = _move("Heavy Infantry (FP)", 10.0)
    move_cm_flp: float = _move("Light-Heavy Infantry (FLP)", 12.0)
    move_cm_si: float = _move("Skirmishers (SI)", 15.0)
    move_cm_fl: float = _move("Light Infantry (FL)", 15.0)
    move_cm_cp: float = _move("Heavy Cavalry (CP)", 20.0)
    move_cm_cl: float = _move("Light Cavalry (CL)", 24.0)
    move_cm_chariot_light: float = _move("Light Chariots", 20.0)
    move_cm_chariot_heavy: float = _move("Heavy Chariots", 15.0)
    melee_die_fp: Die = _die("Heavy Infantry (FP)", "d8")
    melee_die_flp: Die = _die("Light-Heavy Infantry (FLP)", "d8")
    melee_die_si: Die = _die("Skirmishers (SI)", "d4")
    melee_die_fl: Die = _die("Light Infantry (FL)", "d6")
    melee_die_cp: Die = _die("Heavy Cavalry (CP)", "d8")
    melee_die_cl: Die = _die("Light Cavalry (CL)", "d6")
    melee_die_chariot_light: Die = _die("Light Chariots", "d6")
    melee_die_chariot_heavy: Die = _die("Heavy Chariots", "d8")
    melee_die_camp: Die = _die("the Camp (it defends, ATT 8.B)", "d6")
    missile_by_type: dict[str, Literal["javelins", "slings", "bows"]] = Field(
        default_factory=dict,
        description=gap("Weapon of each troop type for bases without traits.missile, "
                        "used only with at10_missile_source = 'traits_then_type' (ATT AT10, "
                        "ATT OB)."),
    )

    # --- Game settings and tolerances ------------------------------------------------------------
    figure_scale: FigureScale = Field(
        "15mm",
        description="ATT 11.C-E, ATT 12: figure scale choosing the deployment and terrain "
        "distances (45/30/22.5 cm areas ...); basing is 'suggested for 15 mm' (ATT 2).",
    )
    contact_min_shared_mm: float = Field(
        5.0, ge=0.0,
        description="ATT AT2: the shared segment of a contact must be longer than this (mm), so "
        "corners touching are not contact.",
    )
    group_heading_tolerance_deg: float = Field(
        5.0, ge=0.0, le=45.0,
        description="ATT AT12 (ATT 4.L, 8.D): bases 'face the same way' within this many degrees.",
    )
    generals_block_sight: bool = Field(
        False,
        description="ATT AT7 (ATT 6.A): a lone General is not a body of troops and does not block "
        "shooting; Camps always block.",
    )
    heavy_types: tuple[str, ...] = Field(
        ("FP", "CP", "chariot_heavy"),
        description="ATT AT9 (ATT 6.C): the 'Heavy units' that save against shooting on 4-6.",
    )
    camp_placement: Literal["deployment_area", "like_units", "anywhere"] = Field(
        "deployment_area",
        description="ATT 11.C-E, ATT 8.B: the rules never say where the Camp goes. "
        "'deployment_area': its whole base inside its army's Deployment Area (ATT 11.C) and out "
        "of the side-edge strips (11.D), but it may stand in the own-edge strip: 11.E forbids "
        "«reparti» (bodies of troops) there to stop flight to the edge, and a Camp never moves "
        "(8.B). 'like_units': the troops' rule (AT32) in full; 'anywhere': not checked.",
    )
    terrain_size_tolerance_cm: float = Field(
        1.0, ge=0.0,
        description="ATT AT33 (ATT 12): slack allowed on terrain piece sizes, in cm.",
    )
