"""The umpire's record of what has happened to each base during a game: its state traits (losses,
disorder, formation ...) over the roster's, changed from the page, the HTTP API or a printed token
the camera sees, with undo.

A change is judged whole by the rulebook's declaration (`Ruleset.unit_state`): an unknown base,
a trait the base does not have or a value it cannot take refuses the change, naming it, and
nothing is applied. Every change is published as a `unit_state` event (``base``, ``traits``
after, ``before``, ``source``), which a recording keeps; a restart with the same recording
restores the states from those events (`restore`).

>>> from campo.vision.tabletop import Roster, RosterBase
>>> roster = Roster(ruleset="attila", bases=[RosterBase(marker=10, id="leg", side="A", type="FP",
...     width_mm=40, depth_mm=20, marker_size_mm=16)])
>>> states = UnitStates(roster)
>>> states.set("leg", {"disordered": True}, source="page").after
{'disordered': True}
>>> states.traits("leg")
{'disordered': True}
>>> states.undo(source="page").after, states.traits("leg")
({'disordered': False}, {'disordered': False})
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from campo.engine.registry import get_ruleset
from campo.engine.scenario import BaseState
from campo.engine.unit_state import StateTrait, check_state, state_controls
from campo.errors import CampoInputError, UnknownBaseError
from campo.vision.tabletop import Roster

SOURCES = ("page", "api", "token", "camera", "restored")
"""Where a change came from: the umpire's page, the HTTP API (a script), a printed status token
the camera saw, the camera otherwise; "restored" when read back from a recording."""
UNDO_DEPTH = 200


@dataclass(frozen=True)
class StateChange:
    """One change of one base's state: the traits it touched, before and after."""

    base: str
    before: dict[str, Any]
    after: dict[str, Any]
    source: str
    time_unix: float = field(default_factory=time.time)
    token: str | None = None  # the status token that made it (source "token")

    def event(self) -> dict[str, Any]:
        """The `unit_state` event's payload (interfaces.md: ``base`` and ``traits`` after)."""
        out = {"kind": "unit_state", "base": self.base, "traits": dict(self.after),
               "before": dict(self.before), "source": self.source,
               "time_unix": round(self.time_unix, 3)}
        if self.token is not None:
            out["token"] = self.token
        return out


class UnitStates:
    """Every base's state traits set during the game (thread-safe; ``version`` grows with each
    change so the live loop knows to judge the game again)."""

    def __init__(self, roster: Roster) -> None:
        self.ruleset = get_ruleset(roster.ruleset)
        self._roster = {b.id: b for b in roster.bases}
        self._set: dict[str, dict[str, Any]] = {}
        self._history: list[StateChange] = []
        self._lock = threading.Lock()
        self.version = 0

    # --- reading ------------------------------------------------------------------------------
    def declared(self, base_id: str) -> list[StateTrait]:
        """The state traits this base has under its rulebook (`UnknownBaseError` if it is not
        on the roster)."""
        entry = self._roster.get(base_id)
        if entry is None:
            raise UnknownBaseError(f"no base {base_id!r} on the roster")
        # the traits as they stand (a dict read: safe while another thread changes them)
        base = BaseState(id=entry.id, side=entry.side, type=entry.type, x_mm=0.0, y_mm=0.0,
                         heading_deg=0.0, width_mm=entry.width_mm, depth_mm=entry.depth_mm,
                         traits={**entry.traits, **self._set.get(base_id, {})})
        return self.ruleset.unit_state(base)

    def traits(self, base_id: str) -> dict[str, Any]:
        """What the game has set for this base (the roster's traits are not repeated)."""
        with self._lock:
            return dict(self._set.get(base_id, {}))

    def value(self, base_id: str, key: str) -> Any:
        """The value of one state trait now: set in the game, else the roster's, else the
        rulebook's default (`UnknownBaseError` for a base not on the roster)."""
        declared = {t.key: t.default for t in self.declared(base_id)}
        with self._lock:
            now = self._set.get(base_id, {})
            if key in now:
                return now[key]
        return self._roster[base_id].traits.get(key, declared.get(key))

    def controls(self, base_id: str) -> list[dict[str, Any]]:
        """Each state trait of the base with its value now, for the page's controls."""
        entry = self._roster[base_id] if base_id in self._roster else None
        values = {**(entry.traits if entry else {}), **self.traits(base_id)}
        return state_controls(self.declared(base_id), values)

    def apply(self, scenario: dict[str, Any]) -> None:
        """Put the game's state traits into a scenario's bases (in place)."""
        with self._lock:
            if not self._set:
                return
            for base in scenario.get("bases", []):
                changed = self._set.get(base["id"])
                if changed:
                    base["traits"] = {**base.get("traits", {}), **changed}

    # --- changing -----------------------------------------------------------------------------
    def set(self, base_id: str, traits: Mapping[str, Any], *, source: str,
            token: str | None = None) -> StateChange:
        """Change some of a base's state traits; all or nothing (`CampoInputError` naming the
        trait, `UnknownBaseError` for a base not on the roster). A token's change is not the
        umpire's to undo: lifting the token takes it back."""
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        if not traits:
            raise CampoInputError("no trait given", key="traits")
        problems = check_state(self.declared(base_id), traits)
        if problems:
            key, why = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise CampoInputError(f"{why}{more}", key=f"traits.{key}")
        with self._lock:
            return self._change(base_id, dict(traits), source, remember=source != "token", token=token)

    def undo(self, *, source: str) -> StateChange | None:
        """Take back the last change still standing (itself a change, published like any)."""
        with self._lock:
            if not self._history:
                return None
            last = self._history.pop()
            change = self._change(last.base, last.before, source, remember=False)
            return change

    def restore(self, changes: Iterable[tuple[str, Mapping[str, Any]]]) -> int:
        """Apply recorded changes (base, traits after) again, oldest first, skipping any the
        roster no longer allows; how many were applied."""
        applied = 0
        for base_id, traits in changes:
            try:
                if check_state(self.declared(base_id), traits):
                    continue
            except UnknownBaseError:
                continue
            with self._lock:
                self._change(base_id, dict(traits), "restored", remember=False)
            applied += 1
        return applied

    def _change(self, base_id: str, after: dict[str, Any], source: str, *,
                remember: bool = True, token: str | None = None) -> StateChange:
        """Apply ``after`` (lock held)."""
        entry = self._roster[base_id]
        now = self._set.setdefault(base_id, {})
        defaults = {t.key: t.default for t in self.declared(base_id)}
        before = {k: now.get(k, entry.traits.get(k, defaults.get(k))) for k in after}
        now.update(after)
        change = StateChange(base_id, before, after, source, token=token)
        if remember:
            self._history.append(change)
            del self._history[:-UNDO_DEPTH]
        self.version += 1
        return change
