"""Compact storage of states: a full snapshot every `SNAPSHOT_EVERY` states, per-base deltas between.

A delta names only what changed since the previous state: top-level members set or removed, bases
that appeared (whole), disappeared (ids), or changed (only their changed fields), and the base
order when it changed. Bodies are zlib-compressed JSON. `apply_delta(prev, encode_delta(prev, s))`
equals ``s`` exactly (tested), so a replay shows the very state that was live.
"""

from __future__ import annotations

import copy
import json
import zlib
from typing import Any

from campo.safe_input import parse_json

SNAPSHOT_EVERY = 200
"""A snapshot at least every this many states bounds the work of `state_at` (deltas applied)."""

MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""Largest decompressed entry read back (a 1000-base state with detailed terrain is a few MB): a
damaged or hostile body that inflates beyond this (a "zlib bomb") is refused, not inflated."""

State = dict[str, Any]


def pack(value: Any) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
                         .encode("utf-8"), 6)


def unpack(body: bytes, max_bytes: int = MAX_ENTRY_BYTES) -> Any:
    """The value `pack` stored; `ValueError` (or `zlib.error`) for a damaged body, one that
    inflates beyond ``max_bytes``, or JSON that `campo.safe_input.parse_json` refuses."""
    if not isinstance(body, bytes):
        raise ValueError(f"body is {type(body).__name__}, not compressed bytes")
    inflate = zlib.decompressobj()
    raw = inflate.decompress(body, max_bytes + 1)
    if len(raw) > max_bytes or inflate.unconsumed_tail:
        raise ValueError(f"body inflates beyond {max_bytes // 2**20} MB")
    if not inflate.eof:
        raise ValueError("body is cut short")
    return parse_json(raw)


def _bases(state: State) -> dict[str, dict[str, Any]]:
    return {b["id"]: b for b in state.get("bases") or []}


def encode_delta(prev: State, state: State) -> dict[str, Any]:
    """What turns ``prev`` into ``state`` (both scenario dicts with unique base ids)."""
    delta: dict[str, Any] = {}
    top_set = {k: v for k, v in state.items() if k != "bases" and prev.get(k, _MISSING) != v}
    top_del = [k for k in prev if k != "bases" and k not in state]
    if top_set:
        delta["set"] = top_set
    if top_del:
        delta["del"] = top_del
    old, new = _bases(prev), _bases(state)
    changed: dict[str, dict[str, Any]] = {}
    added: dict[str, dict[str, Any]] = {}
    for bid, base in new.items():
        before = old.get(bid)
        if before is None or any(k not in base for k in before):
            added[bid] = base
        elif before != base:
            changed[bid] = {k: v for k, v in base.items() if before.get(k, _MISSING) != v}
    gone = [bid for bid in old if bid not in new]
    if changed:
        delta["bases"] = changed
    if added:
        delta["new"] = added
    if gone:
        delta["gone"] = gone
    if "bases" in state or "bases" in prev:
        order = [b["id"] for b in state.get("bases") or []]
        expected = [bid for bid in old if bid in new] + [bid for bid in new if bid not in old]
        if order != expected:
            delta["order"] = order
        if "bases" not in state:
            delta["no_bases"] = True
    return delta


def apply_delta(prev: State, delta: dict[str, Any]) -> State:
    """The state that `encode_delta` described (``prev`` is left untouched)."""
    state = {k: v for k, v in prev.items() if k not in delta.get("del", ())}
    state.update(copy.deepcopy(delta.get("set", {})))
    old = _bases(prev)
    gone = set(delta.get("gone", ()))
    merged: dict[str, dict[str, Any]] = {}
    for bid, base in old.items():
        if bid in gone:
            continue
        fields = delta.get("bases", {}).get(bid)
        merged[bid] = {**base, **copy.deepcopy(fields)} if fields else base
    for bid, base in delta.get("new", {}).items():
        merged[bid] = copy.deepcopy(base)
    order = delta.get("order") or list(merged)
    if delta.get("no_bases"):
        state.pop("bases", None)
    elif "bases" in prev or merged or "order" in delta:
        state["bases"] = [merged[bid] for bid in order]
    return state


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()
