"""The small protocol every ruleset implements, and the problem record `validate()` returns.

A ruleset is ONE object (no subclass tree: it subclasses the `Ruleset` protocol only for the
bodies of the members all three answer alike): it knows its unit, parses its settings, checks a
game state, and answers questions about it. Generic geometry lives in `engine.geometry`; a ruleset
composes it with its own numbers and readings.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from campo.engine.resolution import DiceTest
    from campo.engine.roster_catalogue import RosterCatalogue
    from campo.engine.results import Allowance
    from campo.engine.scenario import BaseState
    from campo.engine.sequence import SequenceOfPlay
    from campo.engine.state import GameState
    from campo.engine.unit_state import StateTrait
    from campo.engine.vocabulary import Vocabulary


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a game state; ``bases`` names the bases involved."""

    key: str
    message: str
    severity: Literal["error", "warning"] = "error"
    bases: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "message": self.message, "severity": self.severity,
                "bases": list(self.bases)}


def vocabulary_problems(state: GameState, vocab: Vocabulary) -> list[Problem]:
    """Every base's type and traits checked against the ruleset's vocabulary, as errors."""
    return [
        Problem(f"bases[{n}]({b.id}).{key}", message, "error", (b.id,))
        for n, b in enumerate(state.bases)
        for key, message in vocab.base_problems(b.type, b.traits)
    ]


OFF_TABLE_TOLERANCE_MM = 1.0
"""A base may stick out over a table edge by this much before it is reported (tracking noise)."""
OVERLAP_REPORTED_MM2 = 25.0
"""Overlaps larger than 5 x 5 mm are reported; smaller ones are tracking noise."""


def placement_problems(state: GameState) -> list[Problem]:
    """Warnings every ruleset shares: a base partly off the table, two bases overlapping.

    Both depend only on the poses (and the table): the facts are kept on the state, and a live
    game's next moment takes over those of the bases that have not moved
    (`GameState.changes`), measuring only the moved bases and the pairs they are in."""
    import numpy as np
    import shapely

    width, depth = state.scenario.table.width_mm, state.scenario.table.depth_mm
    index = state.index
    position = {i: k for k, i in enumerate(index.ids)}
    # (ids off the table, (a, b) in index order -> overlap reported): taken over for the bases
    # that have not moved when the table is the same
    before = state.handed_on("placement")
    kept = state.changes.unmoved if before is not None and state.changes.same("table") \
        else frozenset()
    off = {i for i in before[0] if i in kept} if kept else set()
    overlaps: dict[tuple[str, str], float] = {}
    pairs: set[tuple[int, int]] = set()   # (i, j), i < j in index order, to measure
    for (a, b), area in before[1].items() if kept else ():
        if a in kept and b in kept:
            if position[a] < position[b]:
                overlaps[(a, b)] = area
            else:   # measured the other way round: measured again as the full test does
                pairs.add((position[b], position[a]))
    fresh = [k for k, i in enumerate(index.ids) if i not in kept]
    if fresh:
        tol = OFF_TABLE_TOLERANCE_MM
        table = shapely.box(-tol, -tol, width + tol, depth + tol)
        shapely.prepare(table)
        inside = shapely.covers(table, index.shapes[fresh])
        off.update(index.ids[k] for k, ok in zip(fresh, inside.tolist()) if not ok)
        si, bi = index.query_many(index.shapes[fresh], 0.0)
        pairs.update((min(fresh[s], b), max(fresh[s], b))
                     for s, b in zip(si.tolist(), bi.tolist()) if fresh[s] != b)
    if pairs:
        # each test over all the pairs in one shapely call: the same GEOS answers as one by one
        left, right = np.array(sorted(pairs)).T
        # the overlap lies in both bounding boxes: where theirs is clearly below the reported
        # area (bases side by side merely touch), GEOS's intersection is not needed
        box = shapely.bounds(index.shapes)
        wide = np.minimum(box[left, 2], box[right, 2]) - np.maximum(box[left, 0], box[right, 0])
        high = np.minimum(box[left, 3], box[right, 3]) - np.maximum(box[left, 1], box[right, 1])
        maybe = np.clip(wide, 0, None) * np.clip(high, 0, None) > 0.99 * OVERLAP_REPORTED_MM2
        areas = shapely.area(shapely.intersection(index.shapes[left[maybe]],
                                                  index.shapes[right[maybe]]))
        for a, b, area in zip(left[maybe].tolist(), right[maybe].tolist(), areas.tolist()):
            if area > OVERLAP_REPORTED_MM2:
                overlaps[(index.ids[a], index.ids[b])] = area
    state.hand_on("placement", (frozenset(off), overlaps))
    out = [Problem(f"bases({b.id})", "base lies partly off the table", "warning", (b.id,))
           for b in state.bases if b.id in off]
    out += [Problem(f"bases({a},{b})", f"{a} and {b} overlap by {area:.0f} mm²", "warning",
                    (a, b)) for (a, b), area in sorted(overlaps.items())]
    return out


@runtime_checkable
class Ruleset(Protocol):
    """Everything Campo knows about one rulebook, found through `campo.engine.registry`.

    Per-base questions take the ids asked about, and a whole-table question is the same code
    with every id ("arrays of length one" for one base), so there is one implementation of each
    rule. Everything the server shows about a rulebook (its settings, quick reference, terrain
    kinds, umpire tools, page module) comes from here, never from a copy in another layer.

    A rulebook's ruleset object subclasses this protocol for the bodies of the members all three
    answer alike: each hands the question to the rulebook's module of that name under
    ``package`` (``analysis.summaries`` on ``board.Board.of(state)``, ``resolution.fire_test``,
    ``sequence.SEQUENCE`` ...), imported on first use so a server that never rolls dice never
    loads the resolution module; no memory, no umpire tool. A ruleset overrides what its
    rulebook does otherwise."""

    package: str         # the rulebook's package, e.g. "campo.engine.rulesets.federico"
    settings_model: Any  # its settings model (a `settings_common.RulesetSettings`)
    name: str            # the scenario's ``ruleset``, e.g. "italia-se-desta"
    title: str           # "L'Italia s'è desta!"
    unit: str            # "in" or "cm"
    mm_per_unit: float
    vocabulary: Vocabulary
    terrain_kinds: Mapping[str, str]
    """Every terrain kind the engine knows (`campo.engine.terrain.TERRAIN_KINDS`) -> what it does
    under this rulebook, one line for the terrain editor ("wood: cover, halves movement")."""
    page_module: Path | None
    """The rulebook's ES module for the page (its own drawings and panels), or None."""
    warmup_scenario: Mapping[str, Any]
    """A small scenario the server analyses while it starts (imports and first-call costs paid
    before the first real frame)."""

    def module(self, name: str) -> Any:
        """The rulebook's module ``name`` (``"resolution"`` ...), imported on first use."""
        return importlib.import_module(f"{self.package}.{name}")

    # --- settings and reference ----------------------------------------------------------
    def load_settings(self, values: Mapping[str, Any] | None) -> Any:
        """The ruleset's settings model from a scenario's ``settings`` overrides."""
        return self.settings_model.load(values)

    def describe_settings(self) -> list[dict[str, Any]]:
        """One dict per setting for the settings panel and the docs (`settings_common`)."""
        return self.settings_model.describe()

    def reference(self, settings: Any) -> list[dict[str, Any]]:
        """Quick-reference tables ``{"title", "cites", "columns", "rows"[, "gap"]}`` built from
        the rulebook's tables modules (the numbers the verdicts use) under ``settings``."""
        return self.module("reference").reference(settings)

    # --- judging a moment ----------------------------------------------------------------
    def problems(self, state: GameState) -> list[Problem]:
        """Everything wrong with the state under this ruleset (errors and warnings)."""

    def board(self, state: GameState) -> Any:
        """The rulebook's facts about ``state`` (its ``board.Board``, one per state)."""
        return self.module("board").Board.of(state)

    def analyze(self, state: GameState, ids: Sequence[str] | None = None) -> dict[str, Any]:
        """The ``bases`` member of ``campo analyze --json`` for ``ids`` (every base when None),
        plus the table-level members (groups, regiments ...) when ``ids`` is None. A base's entry
        is the same whether asked alone or with every other. The collector is paused meanwhile
        (`analysis.gc_paused`: thousands of short-lived records, nothing for it to find)."""
        from campo.engine.analysis import gc_paused

        with gc_paused():
            return self.module("analysis").analyze_board(self.board(state), ids)

    def summaries(self, state: GameState, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The compact facts the board draws for every base without a tap, for ``ids``.

        Keys (each omitted when empty or false): ``contacts`` {enemy id: aspect of this base
        touched}, ``commanded_by`` [general ids], ``supported_by`` [ids], ``badges`` [short
        words the board writes on the base: "isolated", "must charge", "disordered" ...].
        A base's summary may depend only on bases within `summary_reach_mm` of it."""
        from campo.engine.analysis import gc_paused

        with gc_paused():
            return self.module("analysis").summaries(self.board(state), ids)

    def summary_reach_mm(self, state: GameState) -> float:
        """How far (edge to edge, mm) another base can be and still change a base's summary
        (the command radius, the contact tolerance ...): a moved base re-summarises only the
        bases this close to where it was or is."""
        return self.module("analysis").summary_reach_mm(self.board(state))

    def board_summary(self, state: GameState) -> dict[str, Any]:
        """Table-level facts the page draws without a tap (ISD groups and batteries, Federico
        isolated bases and regiments, ATTILA groups and mandatory charges ...), cheap enough to
        rebuild whenever anything changes; never target lists."""
        return self.module("analysis").board_summary(self.board(state))

    def charge(self, state: GameState, charger: str, target: str) -> Any:
        """One charge's verdict (has ``legal``); used by `GameState.legal_charges`."""
        return self.module("charges").judge_charge(self.board(state), charger, target)

    def charge_candidates(self, state: GameState, charger: str) -> list[str]:
        """Enemy base ids the charger could consider charging."""
        return self.module("charges").candidates(self.board(state), charger)

    def overlay_geometry(self, state: GameState, base_id: str) -> dict[str, Any]:
        """Polygons and paths (table mm) the overlay draws for one base."""

    def movement_allowance(self, state: GameState, base_id: str,
                           terrain_kinds: Sequence[str]) -> Allowance | None:
        """The base's full move (rules units) over ground of these scenario terrain kinds.

        ``terrain_kinds`` are the kinds the move touched (empty or ``["open"]``: open ground);
        the base's type and traits (formation, arm ...) are read from ``state``. A base the rules
        do not let move there gets ``amount = 0`` and a ``basis`` saying why (a Camp; terrain it
        may not enter). ``None`` only when the ruleset gives no movement rate at all."""

    # --- a live game ---------------------------------------------------------------------
    def sequence_of_play(self) -> SequenceOfPlay:
        """The rulebook's turn as data (`campo.engine.sequence`): its phases in order, who acts
        in each and what each side's bases may do with their move, with the rules cited; the
        server's turn clock steps through it and the movement audit judges moves against it."""
        return self.module("sequence").SEQUENCE

    def unit_state(self, base: BaseState) -> list[StateTrait]:
        """The state traits this base carries during a game (losses, disorder, formation ...),
        with its limits read from the rulebook's tables for its type and traits
        (`campo.engine.unit_state`)."""
        return self.module("unit_state").unit_state(base)

    def fire_test(self, state: GameState, shooter: str, target: str) -> DiceTest:
        """One shot ready to roll (`campo.engine.resolution`): the modifiers the fire verdict
        computed, the dice, the rulebook's fire table, and the reader that turns the dice into
        a result and its proposed effects. `CampoInputError` when the shot may not be taken."""
        return self.module("resolution").fire_test(state, shooter, target)

    def melee_test(self, state: GameState, attacker: str, defender: str) -> DiceTest:
        """One melee between two bases in contact ready to roll, as `fire_test` (both sides'
        modifiers, both sides' dice, the rulebook's results table). `CampoInputError` when they
        are not in melee."""
        return self.module("resolution").melee_test(state, attacker, defender)

    def manoeuvre_test(self, state: GameState, unit: str) -> DiceTest:
        """One base's own test ready to roll (ISD: the Manoeuvre Table; ATTILA: a Disordered
        unit's reorganisation), as `fire_test`; `CampoInputError` when the base does not take
        it now, or when the rulebook has no such test Campo resolves."""
        return self.module("resolution").manoeuvre_test(state, unit)

    def memory(self) -> GameMemory | None:
        """What this rulebook remembers from one moment of a live game to the next (ATTILA:
        groups that split stay split), or None."""
        return None

    def umpire_tool(self, seed: int | None) -> UmpireTool | None:
        """The umpire's helper this rulebook brings (ATTILA: the card deck), or None."""
        return None

    def roster_catalogue(self, settings: Mapping[str, Any]) -> RosterCatalogue:
        """What the page's roster builder offers: troop types with the rulebook's base sizes
        and starting traits, and its army lists (``settings``: the group's overrides)."""
        return self.module("catalogue").roster_catalogue()


class GameMemory(Protocol):
    """A live game's memory across moments: `apply` it to each scenario before analysing it,
    `learn` from each board summary after; `due` says a remembered fact wants a new analysis
    although nothing moved."""

    def apply(self, scenario: dict[str, Any]) -> None: ...

    def learn(self, board_summary: Mapping[str, Any], now: float) -> dict[str, str]: ...

    def due(self, now: float) -> bool: ...


class UmpireTool(Protocol):
    """An umpire's helper with a few actions (ATTILA's deck: shuffle, draw), shown on every
    page under its ``topic``."""

    topic: str
    actions: tuple[str, ...]

    def act(self, action: str, settings: Any) -> dict[str, Any]:
        """Do ``action`` (one of ``actions``) under the settings in force; the new view.
        `CampoInputError` when it cannot be done now."""

    def view(self) -> dict[str, Any]:
        """What every page shows."""

