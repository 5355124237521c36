"""`analyze(scenario)`: the object `campo analyze --json` prints (shared/interfaces.md)."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from campo.engine.scenario import Scenario, parse_scenario
from campo.engine.state import GameState


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the duration (re-enabled after, if it was
    on). An analysis allocates tens of thousands of short-lived containers (target records,
    sight questions) that reference counting frees; the cyclic collector's repeated scans of
    every live object cost about a third of a large analysis and find nothing to collect.

    On leaving, everything allocated meanwhile is moved to the oldest generation unscanned
    (``freeze`` then ``unfreeze``: two list splices). Otherwise the first allocation after
    ``enable`` would trace the whole fresh answer (some 20,000 containers at 200 bases, ~3 ms),
    which reference counting frees anyway when the caller drops it. Cycles among those objects,
    if any, are still found, by the next full collection. (Campo freezes nothing else, so the
    ``unfreeze`` releases nobody's frozen objects.)"""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def analyze_state(state: GameState, *, keep_facts: bool = True) -> dict[str, Any]:
    """Raise `ScenarioError` on errors; otherwise the full analysis with warnings in
    ``problems``. ``keep_facts=False`` drops the state's derived facts afterwards (they refer
    back to the state, a reference cycle: dropped while the collector is paused, they are freed
    at once instead of being traced by it)."""
    with gc_paused():
        try:
            problems = state.validate()
            errors = [p for p in problems if p.severity == "error"]
            if errors:
                state.check()
            rs = state.ruleset
            body = rs.analyze(state)
        finally:
            if not keep_facts:
                state.forget()
    out = {"ruleset": rs.name, "unit": rs.unit, "mm_per_unit": rs.mm_per_unit}
    out.update(body)
    out["problems"] = [p.to_dict() for p in problems]
    return out


def analyze(scenario: Scenario | Mapping[str, Any] | GameState) -> dict[str, Any]:
    """What the rules engine concludes about one moment of a game (deterministic)."""
    if isinstance(scenario, GameState):
        return analyze_state(scenario)
    return analyze_state(GameState(parse_scenario(scenario)), keep_facts=False)


def overlay_geometry(scenario: Scenario | Mapping[str, Any] | GameState, base_id: str) -> dict[str, Any]:
    """Polygons and paths in table mm for drawing one base's arc, bands and charges."""
    state = scenario if isinstance(scenario, GameState) else GameState(parse_scenario(scenario))
    state.base(base_id)
    return state.ruleset.overlay_geometry(state, base_id)
