"""`target_table.round2_all` gives Python's ``round(v, 2)`` to the bit (JSON answers must not
change when the rounding is done by numpy)."""

from __future__ import annotations

import math
import random
import struct

from hypothesis import given, settings, strategies as st

from campo.engine.rulesets.italia.target_table import round2_all


def _bits(values: list[float]) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


def test_round2_all_matches_round_on_halves_and_edges() -> None:
    values = [k / 200 for k in range(-4000, 4001)] + [k / 1000 for k in range(-3000, 3001)]
    values += [2.675, 1.005, 0.125, -0.125, 0.005, -0.005, -0.001, 0.0, -0.0, 5e-324,
               -1e-300, 1e300, -1e17, 123456.785, math.inf, -math.inf, math.nan]
    got, want = round2_all(values), [round(v, 2) for v in values]
    assert _bits(got) == _bits(want)


def test_round2_all_matches_round_on_random_values() -> None:
    rng = random.Random(7)
    values = [rng.uniform(-200, 200) for _ in range(20000)]
    values += [rng.uniform(-1, 1) * 10 ** rng.randint(-12, 14) for _ in range(20000)]
    assert _bits(round2_all(values)) == _bits([round(v, 2) for v in values])
    assert round2_all([]) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False), max_size=50))
def test_round2_all_property(values: list[float]) -> None:
    assert _bits(round2_all(values)) == _bits([round(v, 2) for v in values])
