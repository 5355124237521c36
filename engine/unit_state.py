"""A base's state in a game: what has happened to it (losses, disorder, formation, limbered ...),
as the umpire sets it on the page or a printed token shows it to the camera.

Each rulebook declares its state traits as data (`Ruleset.unit_state`: the `StateTrait`s a base
carries, with this base's limits read from the rulebook's tables); they are ordinary `traits` of
the scenario, so the verdicts read them like any other trait. `check_state` judges a change
before anything is applied: every problem named, nothing half done.

>>> losses = StateTrait("losses", "losses", "count", "ISD §4", most=9)
>>> check_state([losses], {"losses": 3}), check_state([losses], {"losses": 12})
([], [('losses', 'at most 9 for this base (got 12)')])
>>> check_state([losses], {"morale": 1})
[('morale', 'not a state this base has (it has: losses)')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from campo.engine.vocabulary import Trait


@dataclass(frozen=True)
class StateTrait:
    """One trait of a base's state: its key in ``traits``, what the page calls it, its kind
    (``bool``, ``count`` ``least``..``most``, ``choice`` of ``choices``), the rule it comes from
    and the value a base has when nothing says otherwise."""

    key: str
    label: str
    kind: Literal["bool", "count", "choice"]
    cites: str
    choices: tuple[str, ...] = ()
    most: int | None = None
    default: Any = None
    least: int = 0
    note: str = ""

    def problem(self, value: Any) -> str | None:
        """Why ``value`` cannot be this trait's value, or None: the vocabulary's check of a
        trait of its kind (`campo.engine.vocabulary.Trait`), then a count's limits."""
        why = Trait("int" if self.kind == "count" else self.kind, self.label,
                    self.choices).problem(value)
        if why is not None or self.kind != "count":
            return why
        if value < self.least:
            return f"must be {self.least} or more (got {value})"
        if self.most is not None and value > self.most:
            return f"at most {self.most} for this base (got {value})"
        return None

    def to_dict(self, value: Any) -> dict[str, Any]:
        """What the page's control needs: the trait, its value now and its limits."""
        out: dict[str, Any] = {"key": self.key, "label": self.label, "kind": self.kind,
                               "value": self.default if value is None else value,
                               "cites": self.cites}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.most is not None:
            out["most"] = self.most
        if self.least:
            out["least"] = self.least
        if self.note:
            out["note"] = self.note
        return out


def check_state(declared: Sequence[StateTrait], traits: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, why) for every trait in ``traits`` that is not one of ``declared`` or has a value
    it cannot take; empty when the whole change can be applied."""
    by_key = {t.key: t for t in declared}
    problems = []
    for key, value in traits.items():
        trait = by_key.get(key)
        if trait is None:
            known = ", ".join(by_key) or "none"
            problems.append((key, f"not a state this base has (it has: {known})"))
        elif (why := trait.problem(value)) is not None:
            problems.append((key, why))
    return problems


def state_controls(declared: Sequence[StateTrait], traits: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each declared trait with its value in ``traits`` (its default when absent): what the
    page shows of a base's state, live or replayed."""
    return [t.to_dict(traits.get(t.key)) for t in declared]
