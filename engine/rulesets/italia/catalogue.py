"""ISD's roster builder entries (`Ruleset.roster_catalogue`): each type and arm with the base
size of ISD Intro, and the Lists as unit templates (one per row and size letter)."""

from __future__ import annotations

from typing import Any

from campo.engine.roster_catalogue import RosterCatalogue, type_entry
from campo.engine.rulesets.italia.army_lists import ARMY_LISTS, ARMY_NATION
from campo.engine.rulesets.italia.pieces import arm_of
from campo.engine.rulesets.italia.troops import BASE_SIZES, Arm
from campo.engine.rulesets.italia.vocabulary import VOCABULARY as V

MAIN_TRAITS = {
    "infantry": ("arm", "quality", "weapon", "light", "marksmen", "formation", "division"),
    "cavalry": ("arm", "quality", "cavalry", "formation", "division"),
    "artillery": ("quality", "battery", "horse", "rockets", "limbered", "division"),
    "general": ("rank", "quality", "commands", "nation"),
}
NO_SIZE_NOTE = "ISD Intro gives no base size for this type: enter your group's size."


def roster_catalogue() -> RosterCatalogue:
    return RosterCatalogue(_types(), _army_lists())


def _types() -> list[dict[str, Any]]:
    out = []
    for type_, meaning in V.types.items():
        arms = list(V.per_type.get(type_, {}).get("arm", ())) or [None]
        for arm in arms:
            size = BASE_SIZES.get((type_, Arm(arm))) if arm else None
            traits: dict[str, Any] = {}
            if arm and len(V.per_type[type_]["arm"]) > 1:
                traits["arm"] = arm          # E (and cavalry B, D) must say which arm
            if arm == "infantry":
                traits.update(quality="regular", weapon="MR")
            elif arm == "cavalry":
                traits.update(quality="regular", cavalry="line")
            elif type_ == "gun":
                traits.update(quality="regular", battery="divisional")
            elif type_ == "general":
                traits.update(rank="division", quality="capable")
            out.append(type_entry(
                type_, f"{meaning}: {size.represents}" if size else meaning, MAIN_TRAITS[arm_of(type_, {"arm": arm})],
                key=f"{type_}/{arm}" if arm else type_,
                label=f"{type_} {arm}" if arm and type_ not in ("gun", "limber") else type_,
                size_mm=(size.frontage_mm, size.depth_mm) if size else None,
                size_cites=size.cites if size else None, size_note=NO_SIZE_NOTE, traits=traits))
    return out


def _army_lists() -> list[dict[str, Any]]:
    """ISD Lists as unit templates: one per row and size letter, traits filled from the row."""
    armies: dict[str, list[dict[str, Any]]] = {}
    for e in ARMY_LISTS:
        arm = e.arm.value
        for letter in e.sizes:
            traits: dict[str, Any] = {"nation": ARMY_NATION[e.army]}
            if letter in ("B", "D", "E"):
                traits["arm"] = arm
            if e.grade is not None:
                traits["quality"] = e.grade.value
            if e.weapons:
                traits["weapon"] = e.weapons[0]
            if e.light:
                traits["light"] = True
            if e.marksmen:
                traits["marksmen"] = True
            if e.cavalry_class is not None:
                traits["cavalry"] = e.cavalry_class.value
            if e.guard and e.army == "france":
                traits["french_guard"] = True
            size = BASE_SIZES.get((letter, Arm(arm)))
            cost = dict(e.costs).get(letter, dict(e.costs).get("", None)) if e.costs else None
            notes = [e.note] if e.note else []
            if len(e.weapons) > 1:
                notes.append(f"weapon: {' or '.join(e.weapons)} (choose per unit)")
            armies.setdefault(e.army, []).append({
                "troop": e.troop, "type": letter, "traits": traits,
                "size_mm": [size.frontage_mm, size.depth_mm] if size else None,
                "size_note": None if size else NO_SIZE_NOTE,
                "points": cost, "note": " ".join(notes), "cites": e.cites,
            })
    return [{"army": army, "nation": ARMY_NATION[army], "units": units} for army, units in armies.items()]
