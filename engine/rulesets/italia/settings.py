"""Every ambiguity of "L'Italia s'è desta!" as a named setting (ISD A1–A51), plus game settings.

The digest (shared/rules/italia-se-desta.md, "Ambiguities and a proposed reading") lists 51 places
where the Italian text is unclear. Each one is a field ``a<N>_<name>`` here whose default is the
digest's proposed reading, so an umpire can switch to the alternative without touching code.
Field names are a contract with the geometry engine: never rename them.

Non-ambiguity settings (weather, twilight, tolerances the readings need) follow the A-fields.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from campo.engine.rulesets.settings_common import RulesetSettings, umpire_only


class ItaliaSettings(RulesetSettings):
    """Readings of the ambiguous rules and per-game settings; defaults = the digest's proposals."""

    ambiguity_prefix = "a"
    cite_pattern = re.compile(r"ISD (?:§\d+|A\d+|ManTab|Lists|Intro)")

    # --- Zones and "beyond the front" -------------------------------------------------------
    a1_zones: Literal["front_halfplane", "corner_diagonals"] = Field(
        "front_halfplane",
        description="ISD A1 (ISD §1): front zone = the half-plane ahead of the extended front edge; "
        "rear = the strip behind the rear edge between the side-line extensions; flanks = the rest. "
        "'corner_diagonals' splits the plane by the base's diagonals instead.",
    )
    a2_beyond_front_tolerance_in: float = Field(
        0.1,
        ge=0.0,
        description="ISD A2 (ISD §1, §7): a point is 'beyond the line of the front' when it lies "
        "level with or behind the target's extended front edge by more than this many inches; "
        "within the tolerance it counts as NOT beyond (stops tracking noise flipping the result).",
    )
    a3_rear_counts_as_flank: bool = Field(
        True,
        description="ISD A3 (ISD §1): an attacker or firer in the rear zone satisfies the 'beyond "
        "the front' tests, so it is a flank attack / flank fire (there is no separate rear rule).",
    )

    # --- Arcs, ranges and targets -----------------------------------------------------------
    a4_arc_origin: Literal["front_corners", "front_centre"] = Field(
        "front_corners",
        description="ISD A4 (ISD §6, §7): the fire arc is bounded by rays from the two front "
        "corners turned 30° (light infantry 45°) outward; batteries use the outer guns' corners.",
    )
    a5_in_arc_test: Literal["any_part", "centre", "whole_base"] = Field(
        "any_part",
        description="ISD A5 (ISD §6, §7): a target is in arc if any part of its base is inside.",
    )
    a6_range_measure: Literal[
        "front_edge_to_part_in_arc", "front_edge_to_nearest_point", "centre_to_centre"
    ] = Field(
        "front_edge_to_part_in_arc",
        description="ISD A6 (ISD §7): range = shortest distance from the firer's front edge to the "
        "part of the target inside the arc; the same method for artillery (ISD §6).",
    )
    a7_band_edges: Literal["upper_inclusive", "upper_exclusive"] = Field(
        "upper_inclusive",
        description="ISD A7 (ISD §6, §7): 'fino a 3\"' is <= 3\", 'oltre 3\" a 12\"' is > 3\" and "
        "<= 12\"; nothing beyond 24\" (musketry <= 6\").",
    )
    a8_nearest_target: Literal["nearest_legal_target", "nearest_enemy"] = Field(
        "nearest_legal_target",
        description="ISD A8 (ISD §7): the compulsory 'nearest enemy' is the nearest enemy that is "
        "a legal target (in arc, range and sight); ties within equal_distance_tolerance_in.",
    )
    a9_artillery_priority: Literal["within_enemy_full_move", "none"] = Field(
        "within_enemy_full_move",
        description="ISD A9 (ISD §6): 'a distanza di carica' = an enemy infantry/cavalry legal "
        "target no farther from the battery than its own full move (6\" / 12\"); it must be fired "
        "at first (the nearest if several). 'none': the battery chooses freely.",
    )
    a10_clear_arc: Literal["swept_area", "whole_arc"] = Field(
        "swept_area",
        description="ISD A10 (ISD §7): the musketry arc is 'clear' if the hull of the firer's front "
        "and the target's part in arc holds no friend or blocking terrain and no friend stands "
        "directly ahead within that distance. 'whole_arc': the whole 6\" arc must be empty.",
    )
    a11_split_fire_artillery_share: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="ISD A11 (ISD §7): share of the dice given to artillery joined to another unit, "
        "rounded down ('calcolando per difetto'); the rest go to the unit.",
    )
    a12_dice_order: Literal["adjust_then_double", "double_then_adjust"] = Field(
        "adjust_then_double",
        description="ISD A12 (ISD §7): base dice -> weapon (FO -1 d6 / FRR +1 d6, once) -> other "
        "±d6 -> double for flank fire -> minimum 1 d6. The 'o è armato con FO' of the soft-cover "
        "row is the firer's FO penalty, applied once.",
    )
    a13_default_formation: Literal["line", "march_column"] = Field(
        "line",
        description="ISD A13 (ISD §1, §7): formation and single-rank status cannot be seen on the "
        "table; they are traits (traits.formation, traits.single_rank). This is the formation "
        "assumed when a base does not say.",
    )

    # --- Line of sight -----------------------------------------------------------------------
    a14_line_of_sight: Literal["any_line", "all_lines", "centre_to_centre"] = Field(
        "any_line",
        description="ISD A14 (ISD §6): visible if at least one straight line from the firer's front "
        "edge to the target's part in arc and range is clear.",
    )
    a15_area_depth_counts_own: bool = Field(
        True,
        description="ISD A15 (ISD §6): a sight line may run at most 2\" inside any one wood or town "
        "polygon; the part inside the firer's or target's own wood counts towards the 2\".",
    )
    a16_crest_blocks: Literal["strictly_between", "any_crossing"] = Field(
        "strictly_between",
        description="ISD A16 (ISD §6): a crest line blocks sight when it is crossed strictly "
        "between firer and target; a unit standing on the crest does not block its own view.",
    )
    a17_cavalry_blocks_sight: bool = Field(
        True,
        description="ISD A17 (ISD §6): cavalry units (friend or foe) block sight like infantry and "
        "artillery; generals never block.",
    )
    a18_artillery_corridor_in: float = Field(
        1.0,
        ge=0.0,
        description="ISD A18 (ISD §6): artillery sight is a corridor this wide (half each side of "
        "the line) that no unit or blocking terrain may touch. Firing over units needs one hill "
        "level of difference and no friend within 2\" of the battery; rockets may fire over friends "
        "at least 2\" from the battery front.",
    )

    # --- Movement -------------------------------------------------------------------------------
    a19_artillery_terrain_columns: Literal["merged_cells", "right_aligned"] = Field(
        "merged_cells",
        description="ISD A19 (ISD §8, movement table): 'merged_cells': foot artillery linear/ford "
        "-3\", area/hills and marshes cannot enter; horse artillery linear/ford -6\", area/hills and "
        "marshes 3\". 'right_aligned': foot hills 3\", marshes cannot enter; horse hills 6\", "
        "marshes 3\"; ford not given (no deduction).",
    )
    a20_linear_deduction: Literal["once_per_move", "per_obstacle"] = Field(
        "once_per_move",
        description="ISD A20 (ISD §8): the linear-obstacle/ford '- 2\"'/'- 3\"' is deducted once "
        "from a move in which the front touches or stays on an obstacle.",
    )
    a21_area_cap: Literal["whole_move_capped", "inside_portion_only"] = Field(
        "whole_move_capped",
        description="ISD A21 (ISD §8): in a move in which part of the front is in, enters or leaves "
        "area terrain, the whole move is capped at the table value; woods, towns and other area "
        "terrain use the 'Area terrain / Hills' column. Not yet used by the engine: its answers follow the default reading.",
    )
    a22_wheel_cost: Literal["outer_corner_distance", "free"] = Field(
        "outer_corner_distance",
        description="ISD A22 (ISD §8): a wheel costs the distance moved by the outer moving corner.",
    )
    a23_commander_move: Literal["table", "six_inch_limit_all"] = Field(
        "table",
        description="ISD A23 (ISD §8): Division generals move 12\" and Corps commanders 6\" (the "
        "movement table); the 6\" limit applies to the move a general makes to join a unit.",
    )
    a24_contact_tolerance_in: float = Field(
        0.1,
        ge=0.0,
        description="ISD A24 (ISD §1, §8): two bases are adjacent if their edges touch within this "
        "gap (and overlap along the edge); supporting if also within "
        "support_heading_tolerance_deg and at the side or rear. A Group is a connected set of one "
        "Division's units linked by support; largest unit A > B > C/D > E.",
    )
    a25_cavalry_charge_distance_in: float = Field(
        12.0,
        ge=0.0,
        description="ISD A25 (ISD §8, ManTab): 'cavalleria nemica in vista, a distanza di carica' = "
        "enemy cavalry with line of sight to the unit and within this many inches (its full "
        "move). Infantry within 6\" (nearest points) -1, artillery within 3\" -1, -2 if both.",
    )
    a26_retire_direction: Literal["straight_back", "toward_own_edge"] = Field(
        "straight_back",
        description="ISD A26 (ISD ManTab): 'Retired', 'Moved away' and 'falls back' go straight "
        "back, perpendicular to the unit's rear edge, keeping facing. A reading for the umpire "
        "moving units after the manoeuvre roll: the engine does not draw manoeuvre results (the "
        "melee fall-back and the rout follow a38).",
    )

    # --- Charges and contact --------------------------------------------------------------------
    a27_charge_arc_origin: Literal["front_corners", "front_centre"] = Field(
        "front_corners",
        description="ISD A27 (ISD §9): 'entro 30° dal proprio fronte' uses the 30° fire-arc "
        "geometry (ISD A4); the target is eligible if any part of it is inside.",
    )
    a28_charge_path: Literal["wheel_then_straight_or_oblique", "straight_distance"] = Field(
        "wheel_then_straight_or_oblique",
        description="ISD A28 (ISD §9): a charge is legal if, after an optional wheel, the charger "
        "reaches contact along a straight or oblique (<= 45°) path whose length plus wheel cost is "
        "within its Manoeuvre Table allowance. 'straight_distance': shortest distance only.",
    )
    a29_interception: Literal["first_zone_entered", "off"] = Field(
        "first_zone_entered",
        description="ISD A29 (ISD §9): every enemy has a 2\" zone; a charger whose path enters "
        "another enemy's zone before the target's must contact that enemy, or stops at its zone "
        "edge if it cannot reach it.",
    )
    a30_close_flush_after_contact: bool = Field(
        True,
        description="ISD A30 (ISD §9): first contact must be on the charger's front edge (corners "
        "included); after contact the charger pivots to close flush against the touched edge "
        "(each charge's flush_pose). false: it stays as it touched.",
    )
    a31_flank_contact: Literal["flush_segment", "whole_side"] = Field(
        "flush_segment",
        description="ISD A31 (ISD §1): 'tocca integralmente il fianco' = the attacker's front lies "
        "flush against the target's side (parallel within flush_angle_tolerance_deg, touching "
        "along a segment), not only at the front corner. 'whole_side': covers the whole side.",
    )
    a32_cavalry_flank_minus2: Literal["note3_half_move", "never_on_flank"] = Field(
        "note3_half_move",
        description="ISD A32 (ISD §1, §9 note 3): cavalry charging non-shaken infantry in the flank "
        "escapes the -2 only if it moved no more than half its allowance (note 3). "
        "'never_on_flank': any flank charge escapes it (§1).",
    )
    a33_contact_aspect: Literal["longest_shared_segment", "contact_midpoint"] = Field(
        "longest_shared_segment",
        description="ISD A33 (ISD §1, §9): the contacted edge is the one with the longest shared "
        "contact segment; ties go to the front.",
    )
    a34_hidden_penalty_side: Literal["opponent_of_hidden", "hidden_unit"] = Field(
        "opponent_of_hidden",
        description="ISD A34 (ISD §9 note 4): the -2 (hidden in a wood) / -1 (behind a crest) is "
        "taken by the side that contacts, or is contacted by, the hidden unit.",
    )
    a35_area_protection: Literal["soft_1_hard_2", "all_1", "all_2"] = Field(
        "soft_1_hard_2",
        description="ISD A35 (ISD §9): area-terrain protection in melee: soft cover +1, hard cover "
        "+2; the pursuit '- value of the terrain' uses the same number.",
    )
    a36_general_melee_bonus: Literal["flat_plus_1", "by_quality"] = Field(
        "flat_plus_1",
        description="ISD A36 (ISD §9 note 1): a general in contact gives +1 as printed; "
        "'by_quality': mediocre +1, capable +2, decisive +3 (as on the Manoeuvre Table).",
    )
    a37_cavalry_classes: Literal["three_classes", "two_classes"] = Field(
        "three_classes",
        description="ISD A37 (ISD §9): HC = Corazzieri; Drg/Line = Dragoni, Cavalleggeri lancieri, "
        "Ulani, Lancieri; LC = Ussari, Cavalleggeri, Cacciatori a cavallo, Chasseurs d'Afrique, "
        "Spahi. 'two_classes': heavy and line are one class (§9 class list).",
    )

    # --- Falling back, rout and pursuit -------------------------------------------------------
    a38_fall_back_direction: Literal["straight_back", "toward_own_edge"] = Field(
        "straight_back",
        description="ISD A38 (ISD §1, §9): 'perpendicolarmente alla linea del proprio retro' = "
        "straight back along the unit's rearward axis without turning (rout: full move; melee: 3\"). "
        "'toward_own_edge': straight toward the side's own table edge, keeping facing.",
    )
    a39_router_gap: Literal["enemy_or_edge", "enemy_only"] = Field(
        "enemy_or_edge",
        description="ISD A39 (ISD §1): a router passes between enemies (or an enemy and impassable "
        "terrain or the table edge) at least 2\" apart; otherwise, meeting enemies, it is captured.",
    )
    a40_pursuit_direction: Literal["straight_ahead", "toward_enemy"] = Field(
        "straight_ahead",
        description="ISD A40 (ISD §9): pursuit goes straight ahead up to 3\" (infantry) / 6\" "
        "(cavalry); new enemies with any part in the 30° arc (ISD A27) on that path may be hit. "
        "'toward_enemy': toward the centre of the enemy touching its front along the longest "
        "stretch, keeping facing.",
    )
    a41_melee_dice: Literal["one_die_per_side", "one_die_per_unit"] = Field(
        "one_die_per_side",
        description=umpire_only("ISD A41 (ISD §9): each side scores 1d6 + factors in contact + "
                                "(factor - 1, min 0) of up to 2 supports not in contact + "
                                "modifiers; difference = higher - lower."),
    )

    # --- Morale ---------------------------------------------------------------------------------
    a42_morale_test: Literal["losses_sum", "value_plus_die"] = Field(
        "losses_sum",
        description="ISD A42 (ISD §11): Morale Value = sum of the formation's combat factors "
        "(artillery 1). Test total = base factors of shaken and off-table units + 2 x factors of "
        "routed units + d6 adjustment (1-2: -1, 3-4: 0, 5-6: +1); fails if total >= Morale Value.",
    )
    a43_off_table_value: Literal["half", "base"] = Field(
        "half",
        description="ISD A43 (ISD §9, §11): units pushed off the table count at half value in the "
        "morale test (§9) rather than base value (§11).",
    )
    a44_impulse_order: Literal["a_first_every_turn", "reroll_each_turn"] = Field(
        "a_first_every_turn",
        description=umpire_only("ISD A44 (ISD §3, §5): Player A moves first in every turn; "
                                "impulses alternate."),
    )

    # --- Artillery details ----------------------------------------------------------------------
    a45_artillery_falls_back_limbered: bool = Field(
        True,
        description="ISD A45 (ISD §6): artillery hit by a 'falls back 3\"' result limbers up and "
        "falls back 3\" (the fire resolution proposes 'limbered').",
    )
    a46_reduced_ammunition: Literal["no_fire_until_rested", "minus_1", "no_effect"] = Field(
        "no_fire_until_rested",
        description="ISD A46 (ISD §1, §6): a battery in reduced ammunition cannot bombard until it "
        "has spent a full turn without firing or moving.",
    )
    a47_horse_artillery_actions: Literal["move_unlimber_or_unlimber_support", "move_unlimber"] = (
        Field(
            "move_unlimber_or_unlimber_support",
            description=umpire_only("ISD A47 (ISD §8, §9): ordinary horse artillery may "
                                    "move+unlimber or unlimber+support in one impulse (§9); "
                                    "'move_unlimber': never support (§8)."),
        )
    )
    a48_orientation_pivot: Literal["either_front_corner", "centre"] = Field(
        "either_front_corner",
        description=umpire_only("ISD A48 (ISD §8): a battery in battery turns up to 30° once a "
                                "turn, pivoting on either front corner."),
    )
    a49_assault_column_start: Literal["within_half_move", "at_least_half_move"] = Field(
        "within_half_move",
        description=umpire_only("ISD A49 (ISD §9): an assault column must start its move no "
                                "farther from the bridge/ford/gate/breach than half its move "
                                "allowance."),
    )
    a50_about_face_result: Literal["any_move_result", "full_move_result"] = Field(
        "any_move_result",
        description=umpire_only("ISD A50 (ISD §8, ManTab): an about face needs a result that lets "
                                "the unit move (ordered: 'Slowed' or better; disordered: 'Rallied' "
                                "or better) and uses no distance."),
    )
    a51_low_artillery_rolls: Literal["natural_double_1_only", "modified_2_or_less"] = Field(
        "natural_double_1_only",
        description="ISD A51 (ISD §6): reduced ammunition only on a natural double 1; any other "
        "modified total of 7 or less is no effect.",
    )

    # --- Game settings (not ambiguities) --------------------------------------------------------
    weather: Literal["clear", "storm", "fog", "snow"] = Field(
        "clear",
        description="ISD §13: 'storm' = storm/mud (musketry -1 d6, moves less the ford amount, "
        "artillery -1); 'fog' = fog/darkness (command radius halved); 'snow' (combat factors "
        "halved rounding up, moves less the ford amount and 1\" more on hills, artillery -1, no "
        "cavalry attack bonus).",
    )
    twilight: bool = Field(
        False,
        description="ISD ManTab: twilight/darkness gives -1 on the Manoeuvre Table.",
    )
    support_heading_tolerance_deg: float = Field(
        5.0,
        ge=0.0,
        le=45.0,
        description="ISD A24 (ISD §1): 'esattamente nella stessa direzione' within this many degrees.",
    )
    flush_angle_tolerance_deg: float = Field(
        5.0,
        ge=0.0,
        le=45.0,
        description="ISD A31 (ISD §1): edges count as flush (parallel) within this many degrees. Not yet used by the engine: its answers follow the default reading.",
    )
    equal_distance_tolerance_in: float = Field(
        0.25,
        ge=0.0,
        description="ISD A8 (ISD §7): distances within this many inches count as equal "
        "(nearest-target ties: the firer chooses).",
    )
