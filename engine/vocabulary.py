"""The words each ruleset understands in a base's `type` and `traits`, and its unit of length.

This is the vocabulary of `shared/interfaces.md` ("Ruleset vocabulary"), kept as data so that a
roster or scenario typo is caught at load time with the file, line and key. Rulesets extend it
here as their rules need more keys; every key carries its documentation and its citation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

TraitKind = Literal["choice", "bool", "int", "text", "text_or_list"]


@dataclass(frozen=True)
class Trait:
    """One `traits` key: what values it takes and what it means."""

    kind: TraitKind
    doc: str
    choices: tuple[Any, ...] = ()

    def problem(self, value: Any) -> str | None:
        """Why `value` is not acceptable, or None when it is."""
        if self.kind == "bool":
            return None if isinstance(value, bool) else f"must be true or false (got {value!r})"
        if self.kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok:
                return f"must be a whole number (got {value!r})"
            if self.choices and value not in self.choices:
                return f"must be one of {', '.join(map(str, self.choices))} (got {value!r})"
            return None
        if self.kind == "choice":
            if value in self.choices and type(value) is type(self.choices[0]):
                return None
            return f"must be one of {', '.join(map(repr, self.choices))} (got {value!r})"
        if self.kind == "text":
            return None if isinstance(value, str) and value else f"must be a non-empty string (got {value!r})"
        if isinstance(value, str) and value:
            return None
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return None
        return f"must be a name or a list of names (got {value!r})"


@dataclass(frozen=True)
class Vocabulary:
    """A ruleset's unit, troop types and trait keys."""

    ruleset: str
    title: str
    unit: str
    mm_per_unit: float
    types: Mapping[str, str]  # type code -> meaning
    traits: Mapping[str, Trait]
    general_types: frozenset[str] = field(default_factory=frozenset)
    per_type: Mapping[str, Mapping[str, tuple[Any, ...]]] = field(default_factory=dict)
    """Narrower choices of a trait for one type, e.g. ISD's letter A is infantry only."""

    def to_units(self, mm: float) -> float:
        """Table millimetres -> the rulebook's unit."""
        return mm / self.mm_per_unit

    def to_mm(self, units: float) -> float:
        """The rulebook's unit -> table millimetres."""
        return units * self.mm_per_unit

    def base_problems(self, type_: str, traits: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(key, message) for everything wrong with a base's type and traits."""
        problems = []
        if type_ not in self.types:
            problems.append(("type", f"unknown troop type {type_!r} for {self.ruleset} (known: {', '.join(self.types)})"))
        for key, value in traits.items():
            trait = self.traits.get(key)
            if trait is None:
                problems.append((f"traits.{key}", f"unknown trait for {self.ruleset} (known: {', '.join(sorted(self.traits))})"))
            elif (why := trait.problem(value)) is not None:
                problems.append((f"traits.{key}", why))
            elif value not in self.per_type.get(type_, {}).get(key, (value,)):
                allowed = " or ".join(map(str, self.per_type[type_][key]))
                problems.append((f"traits.{key}", f"type {type_!r} can only be {allowed} (got {value!r})"))
        return problems


def _state_traits(disordered: str, shaken: str, losses: str) -> dict[str, Trait]:
    """The game-state traits every ruleset shares, each cited to its own rulebook."""
    return {
        "disordered": Trait("bool", f"The unit is disordered ({disordered})."),
        "shaken": Trait("bool", f"The unit is shaken ({shaken})."),
        "losses": Trait("int", f"Losses suffered, a count ({losses})."),
    }


ITALIA = Vocabulary(
    ruleset="italia-se-desta",
    title="L'Italia s'è desta!",
    unit="in",
    mm_per_unit=25.0,  # ISD Intro: "pollici (2,5 cm)"
    types={
        "A": "unit letter A (ISD §4, Lists)",
        "B": "unit letter B (ISD §4, Lists)",
        "C": "unit letter C (ISD §4, Lists)",
        "D": "unit letter D (ISD §4, Lists)",
        "E": "unit letter E, infantry or cavalry (ISD §4, Lists)",
        "gun": "an artillery piece (ISD §6)",
        "limber": "an artillery limber (ISD §8)",
        "general": "a general (ISD §3)",
    },
    traits={
        "arm": Trait("choice", "infantry, cavalry or artillery (letter E exists for both infantry and cavalry).",
                     ("infantry", "cavalry", "artillery")),
        "quality": Trait("choice", "Troops: veteran, regular, green (ISD §4). Generals: decisive, capable, mediocre (ISD §3).",
                         ("veteran", "regular", "green", "decisive", "capable", "mediocre")),
        "weapon": Trait("choice", "Infantry firearm: FO, ML, MR, FRR (ISD §4, §7).", ("FO", "ML", "MR", "FRR")),
        "light": Trait("bool", "Light infantry: 45° arc, skirmish rules (ISD §8)."),
        "cavalry": Trait("choice", "Cavalry class (ISD §9).", ("heavy", "line", "light")),
        "battery": Trait("choice", "Artillery battery kind (ISD §6).", ("divisional", "reserve")),
        "horse": Trait("bool", "Horse artillery (ISD §6, §8)."),
        "rockets": Trait("bool", "Rocket battery (ISD §6)."),
        "limbered": Trait("bool", "The gun is limbered (ISD §8)."),
        "formation": Trait("choice", "line or march_column (ISD §1).", ("line", "march_column")),
        "division": Trait("text", "The division the unit belongs to (ISD §2)."),
        "rank": Trait("choice", "General's rank (ISD §3).", ("division", "corps", "army")),
        "commands": Trait("text_or_list", "The division, or list of divisions, a general commands (ISD §3)."),
        # added by the engine helper (geometry verdicts):
        "attached_to": Trait("text", "A general joined to this unit id: no command radius (ISD §8)."),
        "single_rank": Trait("bool", "Infantry in a single rank of figures (ISD §6, §7; ISD A13)."),
        # read by the modifiers of the umpire's tables (docs/rulesets/italia-se-desta.md §12):
        "marksmen": Trait("bool", "Marksmen (Jäger, Bersaglieri, Cacciatori, Carabinieri genovesi): +1 d6 in musketry (ISD §7, Lists)."),
        "french_guard": Trait("bool", "French Guard: +1 d6 in musketry, +1 on the Manoeuvre Table (ISD §7, ISD ManTab)."),
        "nation": Trait("text", "The unit's nation (e.g. french, garibaldini): pursuit and generals' rolls (ISD §3, §9)."),
        "reduced_ammunition": Trait("bool", "Short of ammunition (ISD §1, §6, ISD A46)."),
        "garrison": Trait("bool", "Garrison troops: cavalry may not attack them (ISD §9)."),
        **_state_traits("ISD §1, §8", "ISD §1, §9", "ISD §4"),
    },
    general_types=frozenset({"general"}),
    per_type={  # ISD §4, Lists: A is infantry only, C cavalry only; B, D and E are either
        "A": {"arm": ("infantry",)},
        "B": {"arm": ("infantry", "cavalry")},
        "C": {"arm": ("cavalry",)},
        "D": {"arm": ("infantry", "cavalry")},
        "E": {"arm": ("infantry", "cavalry")},
        "gun": {"arm": ("artillery",)},
        "limber": {"arm": ("artillery",)},
    },
)

FEDERICO = Vocabulary(
    ruleset="federico",
    title="Federico",
    unit="cm",
    mm_per_unit=10.0,
    types={
        "infantry": 'infantry (Federico "Classificazione truppe")',
        "cavalry": 'cavalry (Federico "Classificazione truppe")',
        "artillery": 'artillery (Federico "Classificazione truppe")',
        "commander": 'a commander (Federico "Comandanti")',
    },
    traits={
        "class": Trait("int", 'Troop class 3, 4 or 5 (Federico "Classificazione truppe").', (3, 4, 5)),
        "light": Trait("bool", "Light infantry."),
        "indians": Trait("bool", "Indians (skirmishing allies)."),
        "highlanders": Trait("bool", "Highlanders."),
        "weight": Trait("choice", "Cavalry and artillery weight.", ("heavy", "medium", "light")),
        "formation": Trait("choice", "line, march_column or limbered.", ("line", "march_column", "limbered")),
        "regiment": Trait("text", "The regiment or battery this base belongs to."),
        "rank": Trait("choice", "Commander's rank.", ("chief", "general")),
        "ability": Trait("int", 'Commander\'s ability 1 to 4 (Federico "Comandanti").', (1, 2, 3, 4)),
        # added by the Federico helper (fire modifiers need the unit's history, Federico F13):
        "fired": Trait("bool", 'The unit has already fired this game: no "first fire" -1 '
                       '(Federico "Modificatori"; Federico F13).'),
        "moved": Trait("bool", 'The unit moved in the last movement phase: +1 to its fire unless '
                       'Light Infantry (Federico "Modificatori"; Federico F13).'),
        **_state_traits('Federico "Mischie"', 'Federico "Morale dell\'esercito"', 'Federico "Esecuzione del tiro"'),
    },
    general_types=frozenset({"commander"}),
)

ATTILA = Vocabulary(
    ruleset="attila",
    title="ATTILA",
    unit="cm",
    mm_per_unit=10.0,
    types={
        "FP": "heavy foot (ATT 1)",
        "FLP": "light-heavy foot (ATT 1)",
        "SI": "irregular foot (ATT 1)",
        "FL": "light foot (ATT 1)",
        "CP": "heavy cavalry (ATT 1)",
        "CL": "light cavalry (ATT 1)",
        "chariot_light": "light chariots (ATT 1)",
        "chariot_heavy": "heavy chariots (ATT 1)",
        "general": "the general (ATT 8.C)",
        "camp": "the camp (ATT 8.B)",
    },
    traits={
        "melee_die": Trait("choice", "Melee die (ATT T).", ("d4", "d6", "d8", "d10", "d12")),
        "missile": Trait("choice", "Missile weapon (ATT 6, T).", ("javelins", "slings", "bows")),
        "phalanx": Trait("bool", "Phalanx (ATT 7)."),
        "tribal": Trait("bool", "Tribal band (ATT 13)."),
        "pikes": Trait("bool", "Pikes (ATT 7)."),
        "group": Trait("text", "The deployment group the base belongs to (ATT 4.B)."),
        "wounded": Trait("bool", "A wounded General: moves at most 10 cm, killed if wounded again "
                         "(ATT 8.C)."),
        **_state_traits("ATT 8.A", "ATT 10", "ATT 10"),
    },
    general_types=frozenset({"general"}),
)

VOCABULARIES: dict[str, Vocabulary] = {v.ruleset: v for v in (ITALIA, FEDERICO, ATTILA)}


def markdown() -> str:
    """The vocabulary as the Markdown tables of docs/formats.md (regenerated, never hand-edited)."""
    kinds = {"bool": "`true`/`false`", "int": "whole number", "text": "name", "text_or_list": "name or list of names"}
    out = []
    for v in VOCABULARIES.values():
        out += [f"### `{v.ruleset}`: {v.title} (unit `{v.unit}` = {v.mm_per_unit:g} mm)", "",
                "| `type` | meaning |", "| --- | --- |"]
        out += [f"| `{t}` | {d} |" for t, d in v.types.items()]
        out += ["", "| trait | values | meaning |", "| --- | --- | --- |"]
        for key, trait in v.traits.items():
            values = ", ".join(f"`{c}`" for c in trait.choices) if trait.choices else kinds[trait.kind]
            out.append(f"| `{key}` | {values} | {trait.doc} |")
        out.append("")
    return "\n".join(out)


DOC_BEGIN = "<!-- vocabulary: generated by `python -m campo.engine.vocabulary docs/formats.md` -->"
DOC_END = "<!-- end of vocabulary -->"


def update_doc(text: str) -> str:
    """`text` with the part between the vocabulary markers replaced by `markdown()`."""
    head, rest = text.split(DOC_BEGIN)
    _, tail = rest.split(DOC_END)
    return f"{head}{DOC_BEGIN}\n{markdown()}{DOC_END}{tail}"


def vocabulary(ruleset: str) -> Vocabulary:
    """The vocabulary of a ruleset by its id; `KeyError` with the known ids otherwise."""
    try:
        return VOCABULARIES[ruleset]
    except KeyError:
        raise KeyError(f"unknown ruleset {ruleset!r} (known: {', '.join(VOCABULARIES)})") from None


if __name__ == "__main__":
    import sys
    from pathlib import Path

    doc = Path(sys.argv[1])
    doc.write_text(update_doc(doc.read_text(encoding="utf-8")), encoding="utf-8")
