"""Review of a recorded game: the state at any moment, re-analysed by the current engine.

`ReplaySession` is the model behind `campo replay`: a timeline (duration, events, turns), the
state at a time or at an event, and the moves to draw at that moment (their recorded paths and
measured lengths). The verdicts are NOT read from the file: every moment is judged again by
today's engine (`engine.live`: the summaries at once, a base's full analysis when the page asks),
so a rules fix applies to old games. The web part is `replay_app`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from campo.engine.live import LiveAnalysis, Snapshot
from campo.server.recording.export import summary
from campo.server.recording.reader import Entry, Recording, open_recording

MOVES_WINDOW_S = 60.0
"""Without turn markers, the moves drawn at a moment are those that ended in the last minute."""
_CACHE = 128


class ReplaySession:
    """One open recording under review; safe to use from several threads."""

    def __init__(self, path: str | Path) -> None:
        self.rec: Recording = open_recording(path)
        self.path = self.rec.path
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[int, int], Snapshot] = OrderedDict()
        self._live = LiveAnalysis()
        with self._lock:
            self.events: list[Entry] = self.rec.events()
            self.duration = self.rec.duration
            self.state_count = self.rec.count("state")
            first = self.rec.state_at(self.duration)
        self.ruleset = (first.data.get("ruleset") if first else None) or "italia-se-desta"
        self.t = 0.0

    def close(self) -> None:
        self.rec.close()

    def timeline(self) -> dict[str, Any]:
        """What the scrubber needs: length, every event (with a one-line summary), the turns."""
        events = []
        for e in self.events:
            item = {"seq": e.seq, "t": e.t, "kind": e.kind, "summary": summary(e)}
            if e.kind == "move":
                item.update(base=e.data["base"], t_start=e.data.get("t_start"),
                            t_end=e.data.get("t_end"))
            events.append(item)
        turns = [{"t": e.t, "seq": e.seq, "turn": e.data.get("turn")}
                 for e in self.events if e.kind == "turn"]
        return {"file": self.path.name, "duration": self.duration, "states": self.state_count,
                "events": events, "turns": turns, "ruleset": self.ruleset}

    def _judged(self, key: tuple[int, int], scenario: dict[str, Any]) -> Snapshot:
        """Today's engine on a recorded moment (cached by the state's seq and the last unit
        state change applied to it; a state the engine rejects shows its error instead)."""
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
            snapshot = self._live.update(scenario)
            self._cache[key] = snapshot
            while len(self._cache) > _CACHE:
                self._cache.popitem(last=False)
            return snapshot

    def turn_at(self, t: float, state: dict[str, Any]) -> Any:
        """The turn in play at ``t``: the state's own ``turn``, else the umpire's last marker."""
        if state.get("turn") is not None:
            return state["turn"]
        turn = None
        for e in self.events:
            if e.t > t:
                break
            if e.kind == "turn":
                turn = e.data.get("turn")
        return turn

    def moves_at(self, t: float, turn: Any) -> list[dict[str, Any]]:
        """Moves finished by ``t`` in the current turn (or the last minute): path and lengths."""
        out = []
        for e in self.events:
            if e.kind != "move" or float(e.data.get("t_end", e.t)) > t:
                continue
            recent = (e.data.get("turn") == turn) if turn is not None \
                else t - float(e.data.get("t_end", e.t)) <= MOVES_WINDOW_S
            if recent:
                out.append({"seq": e.seq, **e.data})
        return out

    def with_unit_states(self, state: dict[str, Any], seq: int, t: float) -> tuple[dict[str, Any], int]:
        """The recorded state with the umpire's changes of unit state made after it and by
        ``t`` applied, and the seq of the last one applied (0: none). A change is recorded the
        moment it is made; the next state that carries it comes a frame later, or never (a
        server killed in between): the replay shows the change from its own moment."""
        later = [e for e in self.events if e.kind == "unit_state" and e.seq > seq and e.t <= t]
        if not later:
            return state, 0
        bases = [dict(b) for b in state.get("bases") or []]   # shared with other states: copied
        by_id = {b["id"]: b for b in bases}
        for e in later:
            base = by_id.get(e.data.get("base"))
            if base is not None:
                base["traits"] = {**(base.get("traits") or {}), **(e.data.get("traits") or {})}
        return {**state, "bases": bases}, later[-1].seq

    def state_at(self, t: float) -> dict[str, Any]:
        """The scenario shown at ``t`` with today's ``summary``; ``live.replay`` says which
        moment (``t``, the state's ``seq`` and ``state_t``) and holds the moves to draw."""
        return self.moment_at(t)[0]

    def moment_at(self, t: float) -> tuple[dict[str, Any], Snapshot]:
        """`state_at`'s payload and the engine's snapshot of that moment (a base's full
        analysis is asked of the snapshot)."""
        t = min(max(0.0, float(t)), self.duration)
        with self._lock:
            entry = self.rec.state_at(t)
        if entry is None:
            state: dict[str, Any] = {"ruleset": self.ruleset,
                                     "table": {"width_mm": 1800, "depth_mm": 1200},
                                     "terrain": [], "bases": []}
            seq, state_t = 0, 0.0
        else:
            state, seq, state_t = entry.data, entry.seq, entry.t
        state, applied = self.with_unit_states(state, seq, t)
        snapshot = self._judged((seq, applied), state)
        state["summary"] = snapshot.summary
        state["live"] = {"mode": "replay", "frame": None, "captured_unix": None, "replay": {
            "t": t, "seq": seq, "state_t": state_t, "duration": self.duration,
            "file": self.path.name, "turn": self.turn_at(t, state),
            "moves": self.moves_at(t, self.turn_at(t, state))}}
        self.t = t
        return state, snapshot

    def state_at_event(self, seq: int) -> dict[str, Any]:
        """The state right after event ``seq`` was recorded (for "jump to event")."""
        event = next((e for e in self.events if e.seq == seq), None)
        if event is None:
            raise KeyError(seq)
        return self.state_at(event.t)

    def moment_at_event(self, seq: int) -> tuple[dict[str, Any], Snapshot]:
        """`moment_at` right after event ``seq`` was recorded."""
        event = next((e for e in self.events if e.seq == seq), None)
        if event is None:
            raise KeyError(seq)
        return self.moment_at(event.t)
