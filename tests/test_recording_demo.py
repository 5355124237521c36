"""Move events from the demo game (vision.synthetic.demo) against its script, the ground truth:
every scripted manoeuvre (back-to-back steps make one move) is one `move` event with the
scripted start and end poses and their distance in inches."""

from __future__ import annotations

import math

import pytest

from campo.server.recording.events import SETTLE_S, EventDeriver
from campo.vision.synthetic.demo import DemoGame, step_end

RATE_HZ = 10.0


def expected_moves(game: DemoGame) -> dict[str, list[tuple[tuple, tuple]]]:
    """Per base, (from pose, to pose) of each run of steps with less than SETTLE_S between."""
    by_id = game.roster.by_id()
    out: dict[str, list[tuple[tuple, tuple]]] = {}
    for base_id, track in game.tracks.items():
        runs: list[tuple[tuple, tuple]] = []
        pose, run_start, last_t1 = track.start, None, None
        for step in track.steps:
            end = step_end(pose, step, by_id[base_id])
            if run_start is not None and step.t0 - last_t1 < SETTLE_S:
                runs[-1] = (run_start, end)
            else:
                run_start = pose
                runs.append((pose, end))
            pose, last_t1 = end, step.t1
        out[base_id] = runs
    return out


@pytest.fixture(scope="module")
def derived() -> tuple[DemoGame, list]:
    game = DemoGame.load()
    deriver = EventDeriver(summarize=None)  # moves only: contacts are checked elsewhere
    events = []
    n = int(game.duration_s * RATE_HZ)
    for k in range(n + 1):
        events += deriver.update(k / RATE_HZ, game.scenario_at(min(k / RATE_HZ, game.duration_s - 1e-9)))
    events += deriver.finish(game.duration_s + 2 * SETTLE_S)
    return game, events


def test_every_scripted_manoeuvre_is_one_move_event(derived) -> None:
    game, events = derived
    moves: dict[str, list[dict]] = {}
    for e in events:
        if e.kind == "move":
            moves.setdefault(e.payload["base"], []).append(e.payload)
    expected = expected_moves(game)
    assert {b: len(v) for b, v in moves.items()} == {b: len(v) for b, v in expected.items()}
    for base_id, runs in expected.items():
        for got, (start, end) in zip(moves[base_id], runs, strict=True):
            assert (got["from"]["x_mm"], got["from"]["y_mm"]) == pytest.approx(start[:2], abs=0.02)
            assert (got["to"]["x_mm"], got["to"]["y_mm"]) == pytest.approx(end[:2], abs=0.02)
            turned = (end[2] - start[2] + 180.0) % 360.0 - 180.0
            assert got["turned_deg"] == pytest.approx(turned, abs=0.02)
            inches = math.dist(start[:2], end[:2]) / 25.0
            assert got["distance"] == pytest.approx(inches, abs=0.002), base_id
            assert got["unit"] == "in" and got["allowance"] is not None
            assert got["exceeded"] == (got["furthest"] > got["allowance"] + 3.0 / 25.0)


def test_the_charge_of_aosta_is_measured(derived) -> None:
    """Aosta advances 6" and charges on 6" without stopping: one 12" move, over its 6"."""
    _, events = derived
    aosta = [e.payload for e in events if e.kind == "move" and e.payload["base"] == "pie-aosta"]
    charge = aosta[1]
    assert charge["from"]["y_mm"] == pytest.approx(300.0) and charge["to"]["y_mm"] == 600.0
    assert charge["distance"] == pytest.approx(12.0) and charge["exceeded"] is True
    assert 28.0 < charge["t_start"] < 29.5  # seen once 2 mm out (the script eases in)
    assert charge["t_end"] == pytest.approx(46.0, abs=0.2)
