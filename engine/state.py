"""`GameState`: one moment of a game as a value you can copy, move bases in, and question.

Shaped like python-chess's ``Board``: ``state.copy()`` for what-if questions,
``state.legal_charges("pie-1")`` is a lazy collection with a fast ``in`` test, ``validate()``
reports every problem at once, and errors name the bases involved.

>>> from campo.engine.state import GameState
>>> s = GameState.from_dict({"ruleset": "italia-se-desta",
...     "table": {"width_mm": 1800, "depth_mm": 1200},
...     "bases": [{"id": "a", "side": "A", "type": "B", "x_mm": 900, "y_mm": 300,
...                "heading_deg": 90, "width_mm": 80, "depth_mm": 40},
...               {"id": "b", "side": "B", "type": "B", "x_mm": 900, "y_mm": 420,
...                "heading_deg": 270, "width_mm": 80, "depth_mm": 40}]})
>>> "b" in s.legal_charges("a")
True
>>> t = s.copy(); t.move("b", y_mm=700)
>>> "b" in t.legal_charges("a"), "b" in s.legal_charges("a")
(False, True)
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import shapely

from campo.engine.boundary import HeldVerdicts
from campo.engine.geometry.index import BaseIndex, within_by_centres
from campo.engine.geometry.rect import Rect
from campo.engine.registry import get_ruleset
from campo.engine.ruleset import Problem, Ruleset
from campo.engine.scenario import SCENE_KEYS, BaseState, Scenario, parse_scenario
from campo.errors import ScenarioError, UnknownBaseError


class GameState:
    """A scenario bound to its ruleset and settings, with cached geometry.

    The ruleset is given (`from_dict` finds it by the scenario's name in the registry), so the
    state depends on the protocol, never on a rulebook. ``held`` are the verdicts a live game
    keeps steady where a new measurement is too close to a boundary to call
    (`campo.engine.boundary`)."""

    def __init__(self, scenario: Scenario, ruleset: Ruleset | None = None, *,
                 held: HeldVerdicts | None = None) -> None:
        self.scenario = scenario
        self.ruleset: Ruleset = ruleset if ruleset is not None else get_ruleset(scenario.ruleset)
        self.settings = self.ruleset.load_settings(scenario.settings)
        self.held: HeldVerdicts = held if held is not None else HeldVerdicts()
        self._by_id = {b.id: b for b in scenario.bases}
        self._cache: dict[str, Any] = {}
        self.changes = Changes.first(self)
        """What changed since the moment before (`reuse_geometry`; everything, without one)."""
        self._handing_on: dict[str, Any] = {}
        self._handed_on: dict[str, Any] = {}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | Scenario, *, held: HeldVerdicts | None = None
                  ) -> GameState:
        """A state from scenario JSON (or a parsed `Scenario`), its ruleset by name."""
        return cls(parse_scenario(data), held=held)

    # --- values ---------------------------------------------------------------------------
    def copy(self) -> GameState:
        """An independent copy (moving a base in it leaves this state alone)."""
        return GameState(self.scenario.model_copy(deep=True), self.ruleset, held=self.held)

    def to_dict(self) -> dict[str, Any]:
        return self.scenario.model_dump(mode="json", exclude_none=True)

    @property
    def ids(self) -> list[str]:
        return list(self._by_id)

    @property
    def bases(self) -> list[BaseState]:
        return list(self.scenario.bases)

    def base(self, base_id: str) -> BaseState:
        try:
            return self._by_id[base_id]
        except KeyError:
            raise UnknownBaseError(f"no base {base_id!r} in this game (bases: "
                                   f"{', '.join(sorted(self._by_id)) or 'none'})") from None

    def rect(self, base_id: str) -> Rect:
        """The base's rectangle in table mm (cached until the base moves)."""
        rects = self.cached("rects", dict)
        r = rects.get(base_id)
        if r is None:
            b = self.base(base_id)
            r = rects[base_id] = Rect(b.x_mm, b.y_mm, b.heading_deg, b.width_mm, b.depth_mm)
        return r

    def reuse_geometry(self, before: GameState) -> None:
        """Follow ``before``, a live game's previous moment (most bases have not moved): say
        what changed since (`changes`), take over the rectangles, with their polygons, of the
        bases standing where they stood, and the facts ``before`` handed on (`hand_on`) for
        those of its unchanged bases to be taken over too.

        A base given exactly as then is the same parsed model (`scenario.parse_scenario`'s
        ``before``); any other counts as changed, even if equal to Python (4 and 4.0)."""
        theirs = before.cached("rects", dict)
        mine = self.cached("rects", dict)
        old, new = before.scenario, self.scenario
        added, moved, retraited, unmoved = [], [], [], []
        for i, b in self._by_id.items():
            was = before._by_id.get(i)
            if was is None:
                added.append(i)
            elif was is not b and _pose(was) != _pose(b):
                moved.append(i)
            else:
                unmoved.append(i)
                if was is not b:
                    retraited.append(i)
                if (rect := theirs.get(i)) is not None:
                    mine.setdefault(i, rect)
        removed = [i for i in before._by_id if i not in self._by_id]
        self.changes = Changes(
            frozenset(k for k in SCENE_KEYS if getattr(old, k) != getattr(new, k)),
            frozenset(added), frozenset(removed), frozenset(moved), frozenset(retraited),
            frozenset(unmoved), tuple(before.rect(i) for i in moved + removed)
            + tuple(self.rect(i) for i in added + moved + retraited), weakref.ref(self))
        self._handed_on = dict(before._handing_on)

    def hand_on(self, key: str, facts: Any) -> None:
        """Keep ``facts`` (plain data about the bases, never a state or a board) for the
        next moment's state, whose `handed_on` gives them for it to take over those its
        `changes` leave as they were."""
        self._handing_on[key] = facts

    def handed_on(self, key: str) -> Any:
        """The facts the moment before handed on under ``key`` (None if none)."""
        return self._handed_on.get(key)

    def move(self, base_id: str, *, x_mm: float | None = None, y_mm: float | None = None,
             heading_deg: float | None = None) -> None:
        """Put a base somewhere else (in place); derived geometry is recomputed lazily."""
        b = self.base(base_id)
        updates = {k: v for k, v in (("x_mm", x_mm), ("y_mm", y_mm),
                                     ("heading_deg", None if heading_deg is None
                                      else heading_deg % 360.0)) if v is not None}
        new = b.model_copy(update=updates)
        self.scenario.bases[self.scenario.bases.index(b)] = new
        self._by_id[base_id] = new
        self.forget()

    def forget(self) -> None:
        """Drop every derived fact (rebuilt on the next question)."""
        self._cache.clear()
        self._handing_on.clear()
        self._handed_on.clear()
        self.changes = Changes.first(self)

    def cached(self, key: str, build: Any) -> Any:
        """A value derived from the whole state, built once per state version."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    @property
    def index(self) -> BaseIndex:
        """Spatial index over every base's rectangle."""
        return self.cached("index", lambda: BaseIndex(self.ids, self._polygons()))

    @property
    def reach_all_mm(self) -> float:
        """A distance no two points of the table or of any base are apart (the diagonal of the
        box holding the table and every base, plus 1 mm): an arc cut at this reach from any
        base's front holds everything its unbounded rays hold ("every enemy in the arc")."""
        def build() -> float:
            t = self.scenario.table
            lo_x, lo_y, hi_x, hi_y = 0.0, 0.0, float(t.width_mm), float(t.depth_mm)
            polys = self._polygons()
            if polys:
                b = shapely.bounds(np.array(polys, dtype=object))
                lo_x, lo_y = min(lo_x, float(b[:, 0].min())), min(lo_y, float(b[:, 1].min()))
                hi_x, hi_y = max(hi_x, float(b[:, 2].max())), max(hi_y, float(b[:, 3].max()))
            return float(np.hypot(hi_x - lo_x, hi_y - lo_y)) + 1.0
        return self.cached("reach_all_mm", build)

    def _polygons(self) -> list[Any]:
        """Every base's polygon, the missing ones built by one vectorised shapely call (the same
        geometries `Rect.polygon` builds one at a time) and kept on the rectangles."""
        known = self.cached("rects", dict)
        rects = [known.get(i) or self.rect(i) for i in self._by_id]
        missing = [r for r in rects if r._polygon is None]
        if missing:
            # a flat list of floats: numpy reads it faster than nested tuples
            corners = np.array([v for r in missing for v in (*r.front_left, *r.front_right,
                                                              *r.rear_right, *r.rear_left)],
                               dtype=float).reshape(len(missing), 4, 2)
            for r, poly in zip(missing, shapely.polygons(corners).tolist()):
                r.keep_polygon(poly)
        return [r.polygon for r in rects]

    # --- questions ------------------------------------------------------------------------
    def validate(self) -> list[Problem]:
        """Every problem at once (errors and warnings), never raising."""
        return self.ruleset.problems(self)

    def check(self) -> None:
        """Raise `ScenarioError` listing every error (warnings are allowed)."""
        errors = [p for p in self.validate() if p.severity == "error"]
        if errors:
            msg = "; ".join(str(p) for p in errors)
            raise ScenarioError(msg if len(errors) == 1 else f"{len(errors)} problems: {msg}")

    def analyze(self) -> dict[str, Any]:
        """What `campo analyze --json` prints for this state."""
        from campo.engine.analysis import analyze_state

        return analyze_state(self)

    def legal_charges(self, base_id: str) -> LegalCharges:
        return LegalCharges(self, base_id)

    def charge(self, charger: str, target: str) -> Any:
        """The full verdict on one charge (path, reasons, aspect struck)."""
        self.base(charger), self.base(target)
        return self.ruleset.charge(self, charger, target)

    def __repr__(self) -> str:
        return f"<GameState {self.ruleset.name} {len(self._by_id)} bases>"


@dataclass(frozen=True)
class Changes:
    """What changed from a live game's moment before to this one (`GameState.reuse_geometry`):
    the one answer every take-over across moments reads (the live summaries, the placement
    warnings, the rulebooks' facts handed on). A state that follows no moment has everything
    changed (`first`)."""

    scene: frozenset[str]
    """The scene members (`scenario.SCENE_KEYS`) given otherwise; each can alter every verdict."""
    added: frozenset[str]
    removed: frozenset[str]
    moved: frozenset[str]
    """In both moments, standing elsewhere (another pose or size)."""
    retraited: frozenset[str]
    """In both moments, standing where they stood, given otherwise (type, traits, seen ...)."""
    unmoved: frozenset[str]
    """In both moments, standing where they stood (re-traited ones among them)."""
    places: tuple[Rect, ...]
    """Where the changed bases were (moved, removed) and are (added, moved, re-traited)."""
    state_ref: weakref.ReferenceType[GameState] = field(repr=False, compare=False)

    @staticmethod
    def first(state: GameState) -> Changes:
        """Everything changed: the state follows no moment."""
        none: frozenset[str] = frozenset()
        return Changes(frozenset(SCENE_KEYS), frozenset(state._by_id), none, none, none, none,
                       (), weakref.ref(state))

    @cached_property
    def changed(self) -> frozenset[str]:
        """The bases added, removed, moved or re-traited."""
        return self.added | self.removed | self.moved | self.retraited

    def same(self, *members: str) -> bool:
        """Whether these scene members are given as in the moment before."""
        return self.scene.isdisjoint(members)

    def near(self, reach: float, among: Sequence[str] | None = None) -> set[str]:
        """The bases (of ``among``, or all) within ``reach`` of where a changed base was or is
        (`within_by_centres`, every pair at once), the changed bases there now among them: those
        a change can concern. Every base after a change of scene."""
        state = self.state_ref()
        assert state is not None, "the changes of a state are asked while it lives"
        ids = state.index.ids if among is None else list(among)
        if self.scene or not ids or not self.places:
            return set(ids) if self.scene else set()
        mine, theirs = _columns([state.rect(i) for i in ids]), _columns(self.places)
        a = np.repeat(np.arange(len(ids)), len(theirs[0]))
        b = np.tile(np.arange(len(theirs[0])), len(ids))
        near = within_by_centres(np.hypot(mine[0][a] - theirs[0][b], mine[1][a] - theirs[1][b]),
                                 mine[2][a] + theirs[2][b], reach, theirs[3][b], mine[3][a])
        return {ids[k] for k in a[near].tolist()}


def _columns(rects: Sequence[Rect]) -> tuple[np.ndarray, ...]:
    """The rectangles' centres x and y, half diagonals and polygons, as arrays."""
    polygons = np.empty(len(rects), dtype=object)
    polygons[:] = [r.polygon for r in rects]
    return (np.array([r.cx for r in rects]), np.array([r.cy for r in rects]),
            np.array([math.hypot(r.width, r.depth) / 2 for r in rects]), polygons)


def _pose(b: BaseState) -> tuple[float, ...]:
    """What a base's rectangle is made of."""
    return b.x_mm, b.y_mm, b.heading_deg, b.width_mm, b.depth_mm


class LegalCharges:
    """The enemy bases a base may legally charge, computed lazily.

    ``target in charges`` evaluates just that one charge; iterating evaluates the candidates.
    """

    def __init__(self, state: GameState, charger: str) -> None:
        state.base(charger)
        self.state, self.charger = state, charger

    def __contains__(self, target: object) -> bool:
        if not isinstance(target, str) or target not in self.state._by_id:
            return False
        return bool(self.state.ruleset.charge(self.state, self.charger, target).legal)

    def __iter__(self) -> Iterator[str]:
        for target in self.state.ruleset.charge_candidates(self.state, self.charger):
            if self.state.ruleset.charge(self.state, self.charger, target).legal:
                yield target

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __repr__(self) -> str:
        return f"<LegalCharges {self.charger}: {', '.join(self)}>"


