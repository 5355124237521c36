"""Status tokens in the demo game: which token lies against which base, when, and where.

`script.json` lists them under ``tokens``: ``{"token": id, "base": id, "t": [on, off], "at":
"behind" | "left" | "right" | "front", "gap_mm": 1.0, "turn_deg": 0}``. Between ``on`` and ``off``
(seconds of the loop) the token's card lies ``gap_mm`` from that side of the base, centred on
it, turned ``turn_deg`` from the base's heading; it follows the base when the base moves (the
player carries it along). That base is the truth the camera's attachment is measured against.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campo.errors import FileFormatError
from campo.vision.synthetic.scene import PlacedBase, PlacedToken
from campo.vision.tabletop import Roster, RosterToken, card_side_mm

SIDES = ("behind", "left", "right", "front")


@dataclass(frozen=True)
class TokenSpan:
    """One token against one base from ``t0`` to ``t1`` (s)."""

    token: RosterToken
    base: str
    t0: float
    t1: float
    at: str = "behind"
    gap_mm: float = 1.0
    turn_deg: float = 0.0

    def placed(self, base: PlacedBase, dictionary: str) -> PlacedToken:
        """The token's card beside ``base`` as it stands now."""
        half_card = card_side_mm(self.token.size_mm, dictionary) / 2
        b = base.base
        # (along the front, to the right) of the card's centre, in the base frame
        along, across = {"behind": (-(b.depth_mm / 2 + half_card + self.gap_mm), 0.0),
                         "front": (b.depth_mm / 2 + half_card + self.gap_mm, 0.0),
                         "right": (0.0, b.width_mm / 2 + half_card + self.gap_mm),
                         "left": (0.0, -(b.width_mm / 2 + half_card + self.gap_mm))}[self.at]
        a = math.radians(base.heading_deg)
        front, right = (math.cos(a), math.sin(a)), (math.sin(a), -math.cos(a))
        x = base.x_mm + along * front[0] + across * right[0]
        y = base.y_mm + along * front[1] + across * right[1]
        return PlacedToken(self.token, x, y, (base.heading_deg + self.turn_deg) % 360.0)


def load_token_spans(path: Path, roster: Roster, duration_s: float) -> list[TokenSpan]:
    """The ``tokens`` of ``script.json``, checked against the roster (a bad one names its key)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    tokens = {t.id: t for t in roster.tokens}
    bases = roster.by_id()
    spans = []
    for i, spec in enumerate(data.get("tokens", [])):
        key = f"tokens[{i}]"
        try:
            token, base = tokens[spec["token"]], spec["base"]
            t0, t1 = (float(v) for v in spec["t"])
            span = TokenSpan(token, base, t0, t1, spec.get("at", "behind"), float(spec.get("gap_mm", 1.0)),
                             float(spec.get("turn_deg", 0.0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise FileFormatError(f"a token needs a roster 'token', a 'base' and 't': [on, off] ({exc})",
                                  path=path, key=key) from None
        if base not in bases:
            raise FileFormatError("no base with this id in roster.toml", path=path, key=key + ".base")
        if not 0 <= t0 < t1 <= duration_s:
            raise FileFormatError(f"must be within 0..{duration_s:g} s, on before off", path=path, key=key + ".t")
        if span.at not in SIDES:
            raise FileFormatError(f"must be one of {', '.join(SIDES)}", path=path, key=key + ".at")
        spans.append(span)
    return spans


def tokens_at(spans: list[TokenSpan], bases: list[PlacedBase], t: float, dictionary: str) -> list[PlacedToken]:
    """The tokens on the table at loop time ``t``, beside their bases as these stand."""
    by_id = {b.id: b for b in bases}
    return [s.placed(by_id[s.base], dictionary) for s in spans if s.t0 <= t < s.t1]
