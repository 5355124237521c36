"""What the roster builder offers for each rulebook: troop types, their bases and traits.

Everything comes from the engine (the vocabulary, ISD's base sizes and army lists, Federico's
base-size settings); nothing is retyped here. A size the rulebook does not give (ATTILA's bases,
a Federico commander, ISD cavalry of letters B and D) is ``None`` with a note saying so: the
builder then asks for the group's own size instead of inventing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.vocabulary import Vocabulary

STATE_TRAITS = ("disordered", "shaken", "losses")
"""Game-state traits: set during a game (PUT /api/bases/{id}/state), not in the builder's main view."""

# The traits the builder shows first for each kind of base (the others are under "more traits").
_MAIN_TRAITS: dict[str, dict[str, tuple[str, ...]]] = {
    "italia-se-desta": {
        "infantry": ("arm", "quality", "weapon", "light", "marksmen", "formation", "division"),
        "cavalry": ("arm", "quality", "cavalry", "formation", "division"),
        "artillery": ("quality", "battery", "horse", "rockets", "limbered", "division"),
        "general": ("rank", "quality", "commands", "nation"),
    },
    "federico": {
        "infantry": ("class", "light", "indians", "highlanders", "formation", "regiment"),
        "cavalry": ("class", "weight", "formation", "regiment"),
        "artillery": ("class", "weight", "formation", "regiment"),
        "commander": ("rank", "ability"),
    },
    "attila": {
        "troops": ("melee_die", "missile", "phalanx", "pikes", "tribal", "group"),
        "general": ("group",),
        "camp": (),
    },
}

NO_SIZE_NOTE = {
    "italia-se-desta": "ISD Intro gives no base size for this type: enter your group's size.",
    "federico": "Federico gives no base size for commanders: enter your group's size.",
    "attila": "ATTILA gives no base sizes («imbasettamento» is left to the players, ATT 2): "
              "enter your group's size; every base of a type should match.",
}


def _kind(ruleset: str, type_: str, arm: str | None) -> str:
    """Which `_MAIN_TRAITS` list a base of this type uses."""
    if ruleset == "italia-se-desta":
        if type_ == "general":
            return "general"
        if type_ in ("gun", "limber"):
            return "artillery"
        return arm or ("cavalry" if type_ == "C" else "infantry")
    if ruleset == "federico":
        return type_
    return type_ if type_ in ("general", "camp") else "troops"


def trait_fields(vocab: Vocabulary) -> list[dict[str, Any]]:
    """Every trait as a form field: key, kind, choices, doc."""
    return [{"key": key, "kind": t.kind, "choices": list(t.choices), "doc": t.doc,
             "state": key in STATE_TRAITS} for key, t in vocab.traits.items()]


def _italia_types() -> list[dict[str, Any]]:
    from campo.engine.rulesets.italia.troops import BASE_SIZES, Arm
    from campo.engine.rulesets.italia.vocabulary import VOCABULARY as V

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
            label = f"{type_} {arm}" if arm and type_ not in ("gun", "limber") else type_
            out.append({
                "key": f"{type_}/{arm}" if arm else type_, "type": type_, "label": label,
                "meaning": f"{meaning}: {size.represents}" if size else meaning,
                "size_mm": [size.frontage_mm, size.depth_mm] if size else None,
                "size_cites": size.cites if size else None,
                "size_note": None if size else NO_SIZE_NOTE["italia-se-desta"],
                "traits": traits, "main_traits": list(_MAIN_TRAITS["italia-se-desta"][_kind("italia-se-desta", type_, arm)]),
            })
    return out


def _federico_types(settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    ruleset = get_ruleset("federico")
    s = ruleset.load_settings(dict(settings))
    out = []
    for type_, meaning in ruleset.vocabulary.types.items():
        size = getattr(s, f"base_size_{type_}_mm", None)
        traits: dict[str, Any] = {"class": 4} if type_ != "commander" else {"rank": "general", "ability": 2}
        if type_ in ("cavalry", "artillery"):
            traits["weight"] = "medium"
        out.append({
            "key": type_, "type": type_, "label": type_, "meaning": meaning,
            "size_mm": list(size) if size else None,
            "size_cites": f"base_size_{type_}_mm (Federico F14: not in the rulebook, the group's setting)" if size else None,
            "size_note": None if size else NO_SIZE_NOTE["federico"],
            "traits": traits, "main_traits": list(_MAIN_TRAITS["federico"][_kind("federico", type_, None)]),
        })
    return out


def _attila_types() -> list[dict[str, Any]]:
    vocab = get_ruleset("attila").vocabulary
    return [{"key": type_, "type": type_, "label": type_, "meaning": meaning, "size_mm": None,
             "size_cites": None, "size_note": NO_SIZE_NOTE["attila"], "traits": {},
             "main_traits": list(_MAIN_TRAITS["attila"][_kind("attila", type_, None)])}
            for type_, meaning in vocab.types.items()]


def italia_army_lists() -> list[dict[str, Any]]:
    """ISD Lists as unit templates: one per row and size letter, traits filled from the row."""
    from campo.engine.rulesets.italia.army_lists import ARMY_LISTS, ARMY_NATION
    from campo.engine.rulesets.italia.troops import BASE_SIZES, Arm

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
                "size_note": None if size else NO_SIZE_NOTE["italia-se-desta"],
                "points": cost, "note": " ".join(notes), "cites": e.cites,
            })
    return [{"army": army, "nation": ARMY_NATION[army], "units": units} for army, units in armies.items()]


def catalogue(ruleset: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the builder needs for ``ruleset`` (``settings``: the group's overrides, Federico's sizes)."""
    rs = get_ruleset(ruleset)
    vocab = rs.vocabulary
    if ruleset == "italia-se-desta":
        types, lists = _italia_types(), italia_army_lists()
    elif ruleset == "federico":
        types, lists = _federico_types(settings or {}), []
    else:
        types, lists = _attila_types(), []
    return {"ruleset": ruleset, "title": vocab.title, "unit": vocab.unit, "mm_per_unit": vocab.mm_per_unit,
            "types": types, "traits": trait_fields(vocab), "army_lists": lists,
            "general_types": sorted(vocab.general_types)}


def rulebooks() -> list[dict[str, Any]]:
    """The rulebooks to choose from, in registry order."""
    out = []
    for name in ruleset_names():
        v = get_ruleset(name).vocabulary
        out.append({"ruleset": name, "title": v.title, "unit": v.unit, "mm_per_unit": v.mm_per_unit})
    return out
