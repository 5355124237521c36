"""A live game's analysis, kept current as the scenario changes, doing only the work asked for.

The live server gives `LiveAnalysis.update` each new scenario (poses from the camera, the
umpire's terrain, settings and unit state). It re-summarises only the bases a change can reach
(`Ruleset.summary_reach_mm` around where each changed base was and is), rebuilds the cheap
table-level facts, and returns a `Snapshot`. A base's full analysis (targets, charges with their
paths, melee) and the whole table's are computed when somebody asks, once per snapshot.

Verdicts too close to a boundary to call are held at the value last shown, across snapshots
(`campo.engine.boundary.HeldVerdicts`, handed to every state).

>>> from campo.engine.rulesets.italia.warmup import WARMUP_SCENARIO
>>> live = LiveAnalysis()
>>> first = live.update(WARMUP_SCENARIO)
>>> sorted(first.summary["bases"]) == sorted(b["id"] for b in WARMUP_SCENARIO["bases"])
True
>>> "targets" in first.base_analysis("a-i0")
True
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from campo.engine.boundary import HeldVerdicts
from campo.engine.scenario import parse_scenario, same_json
from campo.engine.state import GameState
from campo.errors import CampoInputError, UnknownBaseError

_SCALARS = frozenset({str, int, float, bool, type(None)})


def _copied(value: Any) -> Any:
    """A deep copy of decoded JSON (dicts, lists, scalars), five times quicker than
    `copy.deepcopy`, which copies anything else met on the way.

    >>> data = {"bases": [{"id": "a", "traits": {"group": "g"}}], "turn": 2}
    >>> copied = _copied(data)
    >>> copied == data, copied["bases"][0]["traits"] is data["bases"][0]["traits"]
    (True, False)
    """
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SCALARS else _copied(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else _copied(v) for v in value]
    return value if kind in _SCALARS else copy.deepcopy(value)


def _copied_over(scenario: Mapping[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """A private copy of ``scenario`` (`_copied`) that shares with ``before``, the previous
    moment's copy (never changed), the bases and the terrain given exactly as then
    (`scenario.same_json`): most bases have not moved, and only what changed is copied."""
    if before is None:
        return _copied(dict(scenario))
    out = {}
    for k, v in scenario.items():
        was = before.get(k)
        if k == "bases" and type(v) is list and type(was) is list:
            by_id = {b["id"]: b for b in was if type(b) is dict and type(b.get("id")) is str}
            out[k] = [w if type(b) is dict and type(b.get("id")) is str
                      and (w := by_id.get(b["id"])) is not None and same_json(w, b)
                      else _copied(b) for b in v]
        elif k == "terrain" and type(v) is list and same_json(was, v):
            out[k] = was
        else:
            out[k] = v if type(v) in _SCALARS else _copied(v)
    return out


@dataclass
class Snapshot:
    """One moment of a live game: its scenario, its summary, and its analyses on demand."""

    version: int
    scenario: dict[str, Any]
    state: GameState | None
    summary: dict[str, Any]
    changed: frozenset[str] = frozenset()
    """The bases whose summary was rebuilt for this snapshot (all, after a scene change)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _bases: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    _whole: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def error(self) -> str | None:
        """Why the engine could not judge this moment (None when it could)."""
        return self.summary.get("error")

    def _judged(self) -> GameState:
        if self.state is None:
            raise CampoInputError(self.error or "no game state")
        return self.state

    def base_analysis(self, base_id: str) -> dict[str, Any]:
        """One base's full analysis (`campo analyze --json`'s ``bases[id]``), computed once."""
        state = self._judged()
        with self._lock:
            found = self._bases.get(base_id)
            if found is None:
                if self._whole is not None:
                    found = self._whole["bases"].get(base_id)
                if found is None:
                    state.base(base_id)   # UnknownBaseError names the bases there are
                    found = state.ruleset.analyze(state, [base_id])["bases"][base_id]
                self._bases[base_id] = found
            return found

    def analysis(self) -> dict[str, Any]:
        """The whole table's analysis (what `campo analyze --json` prints), computed once."""
        from campo.engine.analysis import analyze_state

        state = self._judged()
        with self._lock:
            if self._whole is None:
                self._whole = analyze_state(state)
            return self._whole

    def geometry(self, base_id: str) -> dict[str, Any]:
        """What the overlay draws for one base (arc, bands, charge paths; table mm)."""
        state = self._judged()
        with self._lock:
            state.base(base_id)
            return state.ruleset.overlay_geometry(state, base_id)


class LiveAnalysis:
    """Turns each new scenario of a live game into a `Snapshot`, re-analysing only what changed.

    One engine call at a time (`update` runs on the frame thread, the detail questions on the
    web server's): the states' caches are not shared across threads otherwise."""

    def __init__(self) -> None:
        self.held = HeldVerdicts()
        self.version = 0
        self._last: Snapshot | None = None
        self._lock = threading.Lock()
        self.resummarised = 0   # bases re-summarised in all (benchmarks and tests read it)

    @property
    def latest(self) -> Snapshot | None:
        return self._last

    def update(self, scenario: Mapping[str, Any]) -> Snapshot:
        """The snapshot of a new moment. A scenario the engine cannot judge gives a snapshot
        whose summary carries ``error`` (the poses are still there to draw)."""
        with self._lock:
            self.version += 1
            previous = self._last
            data = _copied_over(scenario, None if previous is None else previous.scenario)
            try:
                before = None if previous is None or previous.state is None else \
                    (previous.scenario, previous.state.scenario)
                state = GameState(parse_scenario(data, before=before), held=self.held)
                snapshot = self._summarise(data, state, previous)
            except CampoInputError as exc:
                snapshot = self._failed(data, str(exc))
            self._last = snapshot
            return snapshot

    def failed(self, scenario: Mapping[str, Any], error: str) -> Snapshot:
        """The snapshot of a moment the engine could not judge (an engine bug, say): it shows
        ``error`` and the poses; the next update re-summarises every base."""
        with self._lock:
            self.version += 1
            self._last = self._failed(_copied(dict(scenario)), error)
            return self._last

    def _failed(self, data: dict[str, Any], error: str) -> Snapshot:
        return Snapshot(self.version, data, None, {
            "ruleset": data.get("ruleset"), "bases": {}, "board": {}, "problems": [],
            "error": error}, frozenset())

    def _summarise(self, data: dict[str, Any], state: GameState,
                   previous: Snapshot | None) -> Snapshot:
        rs = state.ruleset
        follows = previous is not None and previous.state is not None and \
            previous.state.ruleset is rs
        if follows:
            state.reuse_geometry(previous.state)
        problems = state.validate()
        errors = [p for p in problems if p.severity == "error"]
        if errors:
            state.check()   # raises ScenarioError naming every error
        # every base after a change of scene (terrain, settings, table ...) or with no moment
        # before, else those within the ruleset's summary reach of where a changed base was or is
        changes = state.changes
        old_summaries: dict[str, Any] = previous.summary["bases"] if follows else {}
        todo: set[str] = set()
        if changes.scene:
            todo = set(state.ids)
        elif changes.changed:
            todo = changes.near(rs.summary_reach_mm(state))
        if changes.removed:
            self.held.forget(set(changes.removed))
        fresh = rs.summaries(state, sorted(todo)) if todo else {}
        self.resummarised += len(todo)
        bases = {i: fresh[i] if i in fresh else old_summaries[i] for i in state.ids}
        summary = {"ruleset": rs.name, "unit": rs.unit, "mm_per_unit": rs.mm_per_unit,
                   "bases": bases, "board": rs.board_summary(state),
                   "problems": [p.to_dict() for p in problems]}
        return Snapshot(self.version, data, state, summary, frozenset(todo))


__all__ = ["LiveAnalysis", "Snapshot", "UnknownBaseError"]
