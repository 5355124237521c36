"""`engine.analysis.gc_paused`: the collector is off inside, back on after, and what was built
inside is moved on unscanned yet still collectable (cycles found by the next full collection)."""

from __future__ import annotations

import gc
import weakref

from campo.engine.analysis import gc_paused


class _Node:
    def __init__(self) -> None:
        self.me = self      # a reference cycle: only the cyclic collector frees it


def test_collector_is_off_inside_and_on_after() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_young_objects_leave_unscanned_and_cycles_are_still_collected() -> None:
    with gc_paused():
        kept = [[k] for k in range(5000)]      # many young containers
        cycle = _Node()
        gone = weakref.ref(cycle)
        del cycle
    oldest = gc.get_objects(generation=2)      # moved on to the oldest generation, unscanned
    assert any(o is kept[0] for o in oldest) and any(o is kept[-1] for o in oldest)
    del oldest
    assert gone() is not None                  # reference counting cannot free a cycle
    gc.collect()
    assert gone() is None
    assert gc.get_freeze_count() == 0          # nothing left frozen
    assert len(kept) == 5000


def test_exceptions_pass_through_and_the_collector_comes_back() -> None:
    try:
        with gc_paused():
            raise KeyError("x")
    except KeyError:
        pass
    assert gc.isenabled()
