"""What the rules engine concludes about one moment of a game (a scenario JSON file).

With --json, prints one JSON object (shared/interfaces.md); otherwise a readable summary.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from campo import engine


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", metavar="SCENARIO.json", help="scenario file to analyse")
    parser.add_argument("--json", action="store_true", help="print the analysis as one JSON object")


def run(args: argparse.Namespace) -> int:
    scenario = engine.load_scenario(args.scenario)
    result = engine.analyze(scenario)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
    else:
        print(summary(result))
    return 0


def summary(result: dict[str, Any]) -> str:
    """A human summary: per base, legal shots, contacts, legal charges, melee modifiers, support
    and command."""
    unit = result["unit"]
    unit_name = {"in": "inches", "cm": "centimetres"}.get(unit, unit)
    lines = [f"{result['ruleset']} — distances in {unit_name} of {result['mm_per_unit']:g} mm"]
    for base_id, b in result["bases"].items():
        lines.append(f"\n{base_id}")
        for t in b["targets"]:
            verdict = "can fire" if t.get("legal") else "cannot fire"
            why = f" ({'; '.join(t['reasons'])})" if t.get("reasons") else ""
            band = f", {t['band']} range" if t["band"] else ""
            margin = t["margin"]
            edge = f"in range by {margin:.1f} {unit}" if margin >= 0 else f"{-margin:.1f} {unit} short"
            star = " — nearest, must be fired at" if t.get("priority") and t.get("legal") else ""
            lines.append(f"  target {t['id']}: {t['distance']:.1f} {unit}{band}, {edge}; "
                         f"{verdict}{why}{star}")
        for c in b["contacts"]:
            lines.append(f"  in contact with {c['id']} on its {c['aspect']}")
        for ch in b["charges"]:
            if ch["legal"]:
                lines.append(f"  may charge {ch['target']}: {ch['distance']:.1f} {unit}, strikes its "
                             f"{ch['contact_aspect']} ({ch['margin']:.1f} {unit} to spare)")
            else:
                lines.append(f"  may not charge {ch['target']}: {'; '.join(ch['reasons'])}")
        melee = b.get("melee")
        if melee and "modifiers" in melee:
            lines.append(f"  in melee against {melee['against']}: score d6 {melee['total']:+d} "
                         f"({'; '.join(m['label'] for m in melee['modifiers']) or 'no modifier'})")
        if b["supported_by"]:
            lines.append(f"  supported by {', '.join(b['supported_by'])}")
        if b["commanded_by"]:
            lines.append(f"  commanded by {', '.join(b['commanded_by'])}")
    for p in result.get("problems", []):
        lines.append(f"\n{p['severity']}: {p['key']}: {p['message']}")
    return "\n".join(lines)
