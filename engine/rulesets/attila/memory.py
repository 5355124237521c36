"""ATTILA's groups over time: a group that has split is never merged again (ATT 4.M).

The engine judges one moment at a time: it links bases that carry the same deployment label
(``traits.group``) and touch, and when a group has broken it gives, in ``group_splits``, the
labels that would keep its pieces apart (``G.1``, ``G.2``). If the pieces touched again without
them it would see one group. The live server therefore remembers those labels once a split has
lasted ``SETTLE_S`` seconds (a base nudged by a hand for a moment does not split its group for
good) and gives them as the bases' ``traits.group`` in every later moment. The memory lasts as
long as the server (a new game: restart it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SETTLE_S = 2.0


class GroupMemory:
    """The pieces of split groups, per base (`apply` before an analysis, `learn` after it)."""

    def __init__(self, settle_s: float = SETTLE_S) -> None:
        self.settle_s = settle_s
        self.labels: dict[str, str] = {}                 # base id -> the piece it belongs to
        self._pending: tuple[tuple[str, str], ...] = ()  # the split seen, not yet remembered
        self._since = 0.0

    def apply(self, scenario: dict[str, Any]) -> None:
        """Give each remembered base its piece's label as ``traits.group`` (in place)."""
        for base in scenario.get("bases", []):
            label = self.labels.get(base["id"])
            if label is not None:
                base["traits"] = {**base.get("traits", {}), "group": label}

    def learn(self, board_summary: Mapping[str, Any], now: float) -> dict[str, str]:
        """Remember the engine's ``group_splits`` once the same split has lasted ``settle_s``;
        returns what was newly remembered (base -> label)."""
        split = tuple(sorted((board_summary.get("group_splits") or {}).items()))
        if split != self._pending:
            self._pending, self._since = split, now
        if not split or now - self._since < self.settle_s:
            return {}
        self.labels.update(split)
        self._pending = ()
        return dict(split)

    def due(self, now: float) -> bool:
        """A split seen earlier has lasted long enough to be remembered: analyse again (the
        server analyses only when something moves)."""
        return bool(self._pending) and now - self._since >= self.settle_s
