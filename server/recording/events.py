"""Events derived from consecutive states: moves, presence, contacts, charges, turns, losses.

The pure functions compare two states (and their engine summaries: who touches whom) and say
what happened between them.
`EventDeriver` adds the one thing a pair of states cannot tell: when a move is *over*. A base
that starts moving is followed, point by point, until it has been still for `SETTLE_S` seconds;
then one ``move`` event says where it went from and to, how far (rules units), its allowance
for its type, formation and terrain, and whether it was exceeded.

Event kinds and payloads (docs/recording.md lists them all):
``move`` {base, side, from, to, t_start, t_end, path_mm, distance, path_length, furthest,
turned_deg, unit, allowance, allowance_basis, exceeded, turn[, phase, phase_check]};
``appeared``/``disappeared`` {base, side,
x_mm, y_mm}; ``stale``/``fresh`` {base}; ``contact``/``contact_broken`` {bases: [a, b], aspects:
{a: aspect of a touched, b: ...}}; ``charge`` {charger, target, aspect (of the target struck),
legal}; ``turn`` {turn}; ``phase`` {phase, turn}; ``losses`` {base, side, losses, previous};
``note`` {text} (from the umpire). Once the turn clock runs, every derived event also carries
the ``turn`` and ``phase`` it happened in (a move: those it began in), and a move its
``phase_check`` (`movement.phase_check`: may this side move in this phase, how far).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from campo.server.recording.movement import measure_move

log = logging.getLogger(__name__)

SETTLE_S = 1.5
"""A move ends when the base has been still this long (a player's adjustments join the move)."""
START_MM, START_DEG = 2.0, 2.0
"""A pose change smaller than this from the resting pose does not start a move (marker noise)."""
MIN_MOVE_MM, MIN_TURN_DEG = 5.0, 3.0
"""A finished move shorter than this (and turning less) is not reported."""
HIDDEN_SETTLE_S = 10.0
"""A moving base hidden this long (removed from the table?) ends its move where last seen."""
MAX_PATH_POINTS = 60
STAMPED_EXTERNAL = ("note", "unit_state")
"""Events from outside that get the turn and phase in play (the deck's carry their own turn)."""

State = Mapping[str, Any]
Summary = Mapping[str, Any]
"""The engine's summary of a state (`engine.live.Snapshot.summary`): per base its contacts."""


@dataclass(frozen=True)
class Event:
    t: float
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)


def _bases(state: State | None) -> dict[str, Mapping[str, Any]]:
    return {b["id"]: b for b in (state or {}).get("bases") or []}


def pose(base: Mapping[str, Any]) -> dict[str, float]:
    return {"x_mm": round(float(base["x_mm"]), 2), "y_mm": round(float(base["y_mm"]), 2),
            "heading_deg": round(float(base["heading_deg"]), 2)}


def pose_changed(a: Mapping[str, Any], b: Mapping[str, Any], mm: float, deg: float) -> bool:
    d = math.dist((a["x_mm"], a["y_mm"]), (b["x_mm"], b["y_mm"]))
    turn = abs((float(a["heading_deg"]) - float(b["heading_deg"]) + 180.0) % 360.0 - 180.0)
    return d > mm or turn > deg


# --- pure comparisons ------------------------------------------------------------------------
def presence_events(prev: State | None, state: State, t: float) -> list[Event]:
    """Bases that appeared, disappeared, went stale (marker unseen) or were seen again."""
    old, new = _bases(prev), _bases(state)
    out = []
    for bid, b in new.items():
        if bid not in old:
            out.append(Event(t, "appeared", {"base": bid, "side": b.get("side"),
                                             **pose(b)}))
        elif bool(b.get("stale")) != bool(old[bid].get("stale")):
            out.append(Event(t, "stale" if b.get("stale") else "fresh", {"base": bid}))
    for bid, b in old.items():
        if bid not in new:
            out.append(Event(t, "disappeared", {"base": bid, "side": b.get("side"), **pose(b)}))
    return out


def turn_phase_events(prev: State | None, state: State, t: float) -> list[Event]:
    """A new turn or phase set on the state (by the umpire's page)."""
    out = []
    prev = prev or {}
    if state.get("turn") is not None and state.get("turn") != prev.get("turn"):
        out.append(Event(t, "turn", {"turn": state["turn"]}))
    if state.get("phase") is not None and (state.get("phase") != prev.get("phase")
                                           or state.get("turn") != prev.get("turn")):
        out.append(Event(t, "phase", {"phase": state["phase"], "turn": state.get("turn")}))
    return out


def loss_events(prev: State | None, state: State, t: float) -> list[Event]:
    """``traits.losses`` changed on a base."""
    old = _bases(prev)
    out = []
    for bid, b in _bases(state).items():
        if bid not in old:
            continue
        before = (old[bid].get("traits") or {}).get("losses", 0) or 0
        now = (b.get("traits") or {}).get("losses", 0) or 0
        if now != before:
            out.append(Event(t, "losses", {"base": bid, "side": b.get("side"), "losses": now,
                                           "previous": before, "turn": state.get("turn")}))
    return out


def contacts_of(summary: Summary | None) -> dict[tuple[str, str], dict[str, str]]:
    """Touching pairs (sorted ids) -> the aspect of each base that is touched."""
    pairs: dict[tuple[str, str], dict[str, str]] = {}
    for bid, info in ((summary or {}).get("bases") or {}).items():
        for other, aspect in (info.get("contacts") or {}).items():
            key = tuple(sorted((bid, other)))
            pairs.setdefault(key, {})[bid] = aspect  # type: ignore[index]
    return pairs  # type: ignore[return-value]


def contact_events(prev: Summary | None, summary: Summary | None, t: float) -> list[Event]:
    """Contacts made and broken between two summaries."""
    before, after = contacts_of(prev), contacts_of(summary)
    out = [Event(t, "contact", {"bases": list(k), "aspects": v})
           for k, v in after.items() if k not in before]
    out += [Event(t, "contact_broken", {"bases": list(k), "aspects": v})
            for k, v in before.items() if k not in after]
    return out


def charge_legal(state: State | None, charger: str, target: str) -> bool | None:
    """Whether the engine allowed ``charger`` to charge ``target`` in ``state`` (the moment
    the move began); None when it cannot say (no state, a base absent, a state it rejects)."""
    from campo.engine.state import GameState
    from campo.errors import CampoInputError

    if state is None:
        return None
    try:
        game = GameState.from_dict({k: v for k, v in state.items()
                                    if k not in ("analysis", "summary", "live")})
        if charger not in game.ids or target not in game.ids:
            return None
        return bool(game.charge(charger, target).legal)
    except CampoInputError as exc:
        log.warning("charge %s -> %s not judged: %s", charger, target, exc)
        return None


def usable(summary: Summary | None) -> bool:
    """A summary that says something (not missing, not the server's "analysis failed")."""
    return (summary is not None and not summary.get("error")
            and isinstance(summary.get("bases"), dict))


def derive_events(prev: State | None, state: State, t: float, *,
                  prev_summary: Summary | None = None,
                  summary: Summary | None = None) -> list[Event]:
    """Everything that a pair of states shows at once (moves need `EventDeriver`).

    Contacts are compared only when ``summary`` is usable: a state the engine could not
    judge says nothing about contacts (it does not break them all)."""
    contacts = contact_events(prev_summary, summary, t) if usable(summary) else []
    return [*turn_phase_events(prev, state, t), *presence_events(prev, state, t),
            *loss_events(prev, state, t), *contacts]


# --- moves over time ------------------------------------------------------------------------
@dataclass
class _Track:
    start: dict[str, Any]
    t_start: float
    last_change: float
    end: dict[str, Any]
    path: list[tuple[float, float]]
    state_before: State | None      # the moment the move began (for the charge's legality)
    hidden_since: float | None = None  # the base is stale or absent: it may be moving unseen
    turn: Any = None  # the turn in play when the move began
    phase: Any = None  # the phase in play then (the turn clock's), and the side playing first
    first: str = "A"


def _thin(path: list[tuple[float, float]]) -> list[list[float]]:
    if len(path) > MAX_PATH_POINTS:
        step = (len(path) - 1) / (MAX_PATH_POINTS - 1)
        path = [path[round(i * step)] for i in range(MAX_PATH_POINTS)]
    return [[round(x, 1), round(y, 1)] for x, y in path]


class EngineSummaries:
    """Today's engine summaries of a stream of states (incremental, `engine.live`); None for
    a state the engine rejects."""

    def __init__(self) -> None:
        from campo.engine.live import LiveAnalysis

        self.live = LiveAnalysis()

    def __call__(self, state: State) -> Summary | None:
        snapshot = self.live.update({k: v for k, v in state.items()
                                     if k not in ("analysis", "summary", "live")})
        if snapshot.error is not None:
            log.warning("state not analysed: %s", snapshot.error)
            return None
        return snapshot.summary


class EventDeriver:
    """Feeds on the stream of states; returns the events each new state (or time) brings."""

    def __init__(self, summarize: Callable[[State], Summary | None] | None | str = "engine",
                 settle_s: float = SETTLE_S) -> None:
        """``summarize`` gives each state's contacts: "engine" (today's engine, the default),
        a function, or None (no contacts: moves and presence only)."""
        self.summarize = EngineSummaries() if summarize == "engine" else summarize
        self.settle_s = settle_s
        self.prev: State | None = None
        self.prev_summary: Summary | None = None
        self.rest: dict[str, dict[str, Any]] = {}
        self.tracks: dict[str, _Track] = {}
        self.turn: Any = None
        self.phase: Any = None
        self.first = "A"   # the side that plays first this turn (the turn clock's)

    def prime(self, state: State) -> None:
        """Continue after an earlier session: ``state`` is where things were left."""
        self.prev = state
        self.prev_summary = self._summary_of(state)
        self.rest = {bid: dict(b) for bid, b in _bases(state).items()}
        self.turn, self.phase = state.get("turn"), state.get("phase")

    def prime_clock(self, turn: Any, phase: Any, first: Any) -> None:
        """Continue after an earlier session whose turn clock was at ``turn`` and ``phase``."""
        self.turn, self.phase = turn, phase
        if first in ("A", "B"):
            self.first = first

    def _summary_of(self, state: State) -> Summary | None:
        return self.summarize(state) if callable(self.summarize) else None

    def update(self, t: float, state: State, summary: Summary | None = None) -> list[Event]:
        """The events ``state`` brings; ``summary`` is the engine's for it when the caller has
        it (the live server), else it is worked out here."""
        if summary is None:
            summary = self._summary_of(state)
        events = derive_events(self.prev, state, t, prev_summary=self.prev_summary,
                               summary=summary)
        for e in events:
            if e.kind == "turn":
                self.turn = e.payload["turn"]
            elif e.kind == "phase":
                self.phase = e.payload["phase"]
        self._follow(t, state)
        events += self._charges(events, state)
        for e in events:   # what happened carries the turn and phase it happened in
            if e.kind not in ("turn", "phase"):
                self._stamp(e)
        events += self._settled(t, state)
        self.prev = state
        if usable(summary):
            self.prev_summary = summary
        return events

    def _stamp(self, event: Event) -> None:
        """Put the turn (and the phase, when the turn clock has one) on a derived event."""
        if event.payload.get("turn") is None and self.turn is not None:
            event.payload["turn"] = self.turn
        if self.phase is not None:
            event.payload.setdefault("phase", self.phase)

    def tick(self, t: float) -> list[Event]:
        """Time passed with no new state: moves whose base has been still long enough end."""
        return self._settled(t, self.prev) if self.prev is not None else []

    def finish(self, t: float) -> list[Event]:
        """The recording ends: every move in progress ends where its base is."""
        return self._settled(t, self.prev, force=True) if self.prev is not None else []

    def admit_external(self, kind: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """The umpire's event as it will be stored, or None for a turn/phase marker that the
        state already announced. A turn marker without a number is the next turn; a phase
        marker gets the current turn; a note or a change of a base's state the turn and phase
        in play."""
        payload = {k: v for k, v in payload.items() if v not in ("", None)}
        if kind == "turn":
            if "turn" not in payload:
                payload["turn"] = self.turn + 1 if isinstance(self.turn, int) else 1
            turn = payload["turn"]
            if turn == self.turn:
                return None
            self.turn, self.phase = turn, None
        elif kind == "phase":
            if self.turn is not None:
                payload.setdefault("turn", self.turn)
            first = payload.get("first") if payload.get("first") in ("A", "B") else self.first
            if (payload.get("phase"), payload.get("turn"), first) == (self.phase, self.turn,
                                                                      self.first):
                return None
            self.phase, self.first = payload.get("phase"), first
        elif kind in STAMPED_EXTERNAL:
            self._stamp(Event(0.0, kind, payload))
        return payload

    def _follow(self, t: float, state: State) -> None:
        """Start, extend or keep following each base's move.

        While a moving base is hidden (stale: a hand over it, or gone from the state) its move
        is not over: it is followed again, and its settle clock restarts, when it is seen."""
        bases = _bases(state)
        for bid, track in self.tracks.items():
            if bid not in bases and track.hidden_since is None:
                track.hidden_since = t
        for bid, b in bases.items():
            rest = self.rest.get(bid)
            if rest is None:
                self.rest[bid] = dict(b)
                continue
            track = self.tracks.get(bid)
            if track is not None and b.get("stale"):
                if track.hidden_since is None:
                    track.hidden_since = t
                continue
            if track is not None and track.hidden_since is not None:
                track.hidden_since, track.last_change = None, t
            if track is None:
                if pose_changed(rest, b, START_MM, START_DEG):
                    self.tracks[bid] = _Track(
                        start=dict(rest), t_start=t, last_change=t, end=dict(b),
                        path=[(rest["x_mm"], rest["y_mm"]), (b["x_mm"], b["y_mm"])],
                        state_before=self.prev, turn=self.turn, phase=self.phase,
                        first=self.first)
            elif pose_changed(track.end, b, 0.0, 0.0):
                track.end, track.last_change = dict(b), t
                track.path.append((b["x_mm"], b["y_mm"]))
            else:
                track.end = dict(b)  # traits may change while still

    def _charges(self, events: list[Event], state: State) -> list[Event]:
        """A contact made by a moving base against an enemy is a charge that ended in contact."""
        out = []
        state_bases = _bases(state)
        for e in events:
            if e.kind != "contact":
                continue
            a, b = e.payload["bases"]
            movers = [x for x in (a, b) if x in self.tracks]
            if not movers:
                continue
            charger = max(movers, key=lambda x: math.dist(
                (self.tracks[x].start["x_mm"], self.tracks[x].start["y_mm"]),
                (self.tracks[x].end["x_mm"], self.tracks[x].end["y_mm"])))
            target = b if charger == a else a
            sides = {x: state_bases.get(x, {}).get("side") for x in (a, b)}
            if sides[a] == sides[b]:
                continue
            out.append(Event(e.t, "charge", {
                "charger": charger, "target": target,
                "aspect": e.payload["aspects"].get(target),
                "legal": charge_legal(self.tracks[charger].state_before, charger, target),
            }))
        return out

    def _settled(self, t: float, state: State | None, force: bool = False) -> list[Event]:
        out = []
        for bid, track in list(self.tracks.items()):
            if not force:
                if track.hidden_since is not None:
                    if t - track.hidden_since < HIDDEN_SETTLE_S:
                        continue
                elif t - track.last_change < self.settle_s:
                    continue
            del self.tracks[bid]
            self.rest[bid] = dict(track.end)
            if not pose_changed(track.start, track.end, MIN_MOVE_MM, MIN_TURN_DEG):
                continue
            payload = {"base": bid, "side": track.end.get("side"),
                       "from": pose(track.start), "to": pose(track.end),
                       "t_start": round(track.t_start, 3), "t_end": round(track.last_change, 3),
                       "path_mm": _thin(track.path), "turn": track.turn}
            if track.phase is not None:
                payload["phase"] = track.phase
            payload |= measure_move(state or {}, track.start, track.end, track.path,
                                    phase=track.phase, first=track.first)
            out.append(Event(t, "move", payload))
        return out
