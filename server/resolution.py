"""The umpire resolves a test with the dice (fire, melee, a base's manoeuvre or rally): Campo
shows the modifiers the engine computed and the rulebook's table (`Ruleset.fire_test`,
`melee_test`, `manoeuvre_test`), reads the dice the umpire entered or rolls them itself (seeded,
the seed recorded), and proposes the result's effects; one tap confirms them into the bases'
state through `UnitStates` (source "page", so Undo takes them back).

Every roll is published as a `roll` event and every result as a `resolution` event (``status``
"proposed", then "confirmed" when applied), so a recording keeps them (docs/recording.md).

Routes (writes need the umpire's token off localhost, as every write):

- ``GET /api/resolve/{fire|melee|manoeuvre}?actor=ID&target=ID`` (fire: ``shooter`` for
  ``actor``; a manoeuvre has no target): the test (modifiers, dice, table, notes);
- ``POST /api/resolve/{fire|melee|manoeuvre}`` ``{"actor", "target", "dice": [[faces], ...]}`` (no
  ``dice``: Campo rolls): the test, the roll and the outcome with its proposed effects, under an
  ``id``;
- ``POST /api/resolve/{id}/confirm``: applies the proposed state changes; the changes made.
"""

from __future__ import annotations

import itertools
import random
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse

from campo.engine.live import Snapshot
from campo.engine.registry import get_ruleset
from campo.engine.resolution import DiceTest, Outcome, check_dice, roll
from campo.engine.unit_state import check_state
from campo.errors import CampoInputError, UnknownBaseError
from campo.server.request_body import json_object
from campo.server.hub import StateHub
from campo.server.unit_state import StateChange, UnitStates

KINDS = ("fire", "melee", "manoeuvre")
"""The tests Campo resolves: `Ruleset.fire_test`, `melee_test`, `manoeuvre_test` (no target)."""
PENDING_KEPT = 50
"""Proposed results waiting for a confirmation (the oldest are forgotten)."""


@dataclass
class Proposal:
    """A result read and not yet applied, with the values its state changes were read against
    (``seen``: base -> trait -> value): a change made meanwhile refuses the confirmation."""

    id: str
    test: DiceTest
    outcome: Outcome
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Resolutions:
    """The dice Campo rolls (each roll seeded from ``seed`` and its number, so one roll can be
    replayed from its event alone) and the results waiting for the umpire's confirmation."""

    seed: int = field(default_factory=lambda: secrets.randbelow(10**9))
    _count: itertools.count = field(default_factory=itertools.count, repr=False)
    _pending: OrderedDict[str, Proposal] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def roll_seed(self) -> int:
        """The seed of the next roll: this game's seed and the roll's number."""
        return self.seed * 100_000 + next(self._count)

    def propose(self, test: DiceTest, outcome: Outcome,
                seen: dict[str, dict[str, Any]]) -> Proposal:
        with self._lock:
            p = Proposal(f"r{secrets.token_hex(4)}", test, outcome, seen)
            self._pending[p.id] = p
            while len(self._pending) > PENDING_KEPT:
                self._pending.popitem(last=False)
            return p

    def take(self, proposal_id: str) -> Proposal:
        """The proposal to confirm, once (`KeyError` when unknown or already confirmed)."""
        with self._lock:
            return self._pending.pop(proposal_id)


def resolve(test: DiceTest, dice: Any, resolutions: Resolutions) -> tuple[dict[str, Any], Outcome]:
    """The roll's event payload and the outcome: the umpire's ``dice``, or Campo's roll when
    ``dice`` is None (`CampoInputError` naming a bad die)."""
    if dice is None:
        seed = resolutions.roll_seed()
        first, final = roll(test.rolls, random.Random(seed))
        event = {"by": "campo", "seed": seed, "thrown": first, "dice": final}
    else:
        event = {"by": "umpire", "dice": check_dice(test.rolls, dice)}
    outcome = test.read(event["dice"])
    return event, outcome


def state_values(units: UnitStates | None, outcome: Outcome) -> dict[str, dict[str, Any]]:
    """The values now of the state traits the outcome's effects change."""
    if units is None:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for e in outcome.effects:
        if e.traits:
            now = {c["key"]: c["value"] for c in units.controls(e.base)}
            out.setdefault(e.base, {}).update({k: now.get(k) for k in e.traits})
    return out


def add_resolution_routes(app: FastAPI, snapshot: Callable[[], Snapshot | None],
                          units: UnitStates | None, hub: StateHub, resolutions: Resolutions,
                          refusal: Callable[[Request], JSONResponse | None],
                          durable: Callable[[FastAPI], Awaitable[None]]) -> None:
    """The resolution routes; ``refusal(request)`` says why a write is refused (None: allowed),
    ``durable(app)`` waits until what was published is on disk (a recorded game)."""

    def dice_test(kind: str, actor: str, target: str) -> DiceTest:
        snap = snapshot()
        if snap is None or snap.state is None:
            raise HTTPException(422, "no game state the rules engine can judge now")
        state = snap.state
        if units is not None and any(
                state.base(b).traits.get(k) != v for b in (actor, target) if b in state.ids
                for k, v in units.traits(b).items()):
            raise HTTPException(409, "the rules engine has not judged the last change of state "
                                     "yet: try again in a moment")
        ruleset = get_ruleset(state.scenario.ruleset)
        if kind not in KINDS:
            raise HTTPException(404, f"no test {kind!r} ({', '.join(KINDS)})")
        try:
            if kind == "manoeuvre":
                return ruleset.manoeuvre_test(state, actor)
            build = ruleset.fire_test if kind == "fire" else ruleset.melee_test
            return build(state, actor, target)
        except UnknownBaseError as exc:
            raise HTTPException(404, str(exc)) from None
        except CampoInputError as exc:
            raise HTTPException(422, str(exc)) from None

    @app.get("/api/resolve/{kind}")
    def get_test(kind: str, target: str = "", actor: str | None = None,
                 shooter: str | None = None) -> dict[str, Any]:
        """The test ready to roll: the modifiers, the dice and the rulebook's table."""
        who = actor or shooter
        if who is None:
            raise HTTPException(422, "give actor (fire: or shooter) and target")
        return dice_test(kind, who, target).to_dict()

    @app.post("/api/resolve/{kind}")
    async def post_test(kind: str, request: Request) -> JSONResponse:
        """Read the umpire's dice (or roll them) for one test; the outcome and its proposed
        effects, recorded as a `roll` and a `resolution` event."""
        refused = refusal(request)
        if refused is not None:
            return refused
        data = await json_object(request)
        actor, target = data.get("actor", data.get("shooter")), data.get("target", "")
        if not isinstance(actor, str) or not isinstance(target, str):
            return _refused('give {"actor" (fire: or "shooter"): id, "target": id'
                            '[, "dice": [[faces], ...]]}', 422)
        test = dice_test(kind, actor, target)
        try:
            rolled, outcome = resolve(test, data.get("dice"), resolutions)
        except CampoInputError as exc:
            return _refused(str(exc), 422)
        proposal = resolutions.propose(test, outcome, state_values(units, outcome))
        now = round(time.time(), 3)
        who = {"test": test.kind, "actor": actor, "target": target, "resolution": proposal.id}
        hub.publish("event", {"kind": "roll", **who, **rolled,
                              "rolls": [r.label for r in test.rolls], "time_unix": now})
        hub.publish("event", {"kind": "resolution", **who, "status": "proposed",
                              "outcome": outcome.to_dict(), "time_unix": now})
        await durable(request.app)
        return JSONResponse({"ok": True, "id": proposal.id, "test": test.to_dict(),
                             "roll": rolled, "outcome": outcome.to_dict()})

    @app.post("/api/resolve/{proposal_id}/confirm")
    async def confirm(proposal_id: str, request: Request) -> JSONResponse:
        """Apply a proposed result's state changes (each base's, as the page's own change)."""
        refused = refusal(request)
        if refused is not None:
            return refused
        if units is None:
            return _refused("this game keeps no unit state", 422)
        try:
            proposal = resolutions.take(proposal_id)
        except KeyError:
            return _refused(f"no result {proposal_id!r} waiting (already confirmed?)", 404)
        if state_values(units, proposal.outcome) != proposal.seen:
            return _refused("the state of these bases changed after the dice were read: "
                            "read them again", 409)
        wanted = [e for e in proposal.outcome.effects if e.traits]
        try:   # judged whole before anything is applied, as every change of state
            for e in wanted:
                problems = check_state(units.declared(e.base), e.traits)
                if problems:
                    raise CampoInputError(problems[0][1], key=f"{e.base}.{problems[0][0]}")
        except CampoInputError as exc:
            return _refused(str(exc), 422)
        changes: list[StateChange] = []
        for e in wanted:
            changes.append(units.set(e.base, e.traits, source="page"))
            hub.publish("event", changes[-1].event())
        test = proposal.test
        hub.publish("event", {"kind": "resolution", "test": test.kind, "actor": test.actor,
                              "target": test.target, "resolution": proposal.id,
                              "status": "confirmed", "outcome": proposal.outcome.to_dict(),
                              "time_unix": round(time.time(), 3)})
        await durable(request.app)
        return JSONResponse({"ok": True, "id": proposal.id,
                             "changes": [{"base": c.base, "traits": c.after, "before": c.before}
                                         for c in changes],
                             "by_hand": [e.to_dict() for e in proposal.outcome.effects
                                         if e.remove or e.ghost is not None]})


def _refused(error: str, status: int) -> JSONResponse:
    return JSONResponse({"ok": False, "error": error}, status_code=status)
