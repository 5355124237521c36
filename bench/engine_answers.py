"""Engine answers as one JSON file, to compare two trees byte for byte (an engine change that
should not change answers: `cmp` the two files).

Writes the whole table's analysis of the dense battles (bench/battles.py) at 50, 100 and 200
bases, the live summaries before and after one unit moves, every base's detail at 100 bases (a
fresh snapshot each) and some details after the move; prints how many details differ from their
whole-table entry (must be 0). Settings as key=value (JSON values, else strings):

    .venv/bin/python bench/engine_answers.py italia-se-desta /tmp/a.json a14_line_of_sight=all_lines
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from battles import dense_battle, moved_unit  # noqa: E402

from campo.engine.analysis import analyze  # noqa: E402
from campo.engine.live import LiveAnalysis  # noqa: E402


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def main() -> None:
    ruleset, out = sys.argv[1], sys.argv[2]
    settings = {k: _value(v) for k, v in (kv.split("=", 1) for kv in sys.argv[3:])}

    def scenario(n: int) -> dict[str, Any]:
        s = dense_battle(ruleset, n)
        if settings:
            s["settings"] = dict(s.get("settings", {}), **settings)
        return s

    answers: dict[str, Any] = {f"whole{n}": analyze(scenario(n)) for n in (50, 100, 200)}
    s100 = scenario(100)
    live = LiveAnalysis()
    answers["summary100"] = live.update(s100).summary
    moved = moved_unit(s100)
    if settings:
        moved["settings"] = s100["settings"]
    after = live.update(moved)
    answers["summary_moved"] = after.summary
    whole = answers["whole100"]["bases"]
    details = {b: LiveAnalysis().update(s100).base_analysis(b) for b in sorted(whole)}
    differ = sum(json.dumps(details[b], sort_keys=True) != json.dumps(whole[b], sort_keys=True)
                 for b in whole)
    answers["details100"] = details
    answers["moved_details"] = {b: after.base_analysis(b) for b in sorted(whole)[::7]}
    Path(out).write_text(json.dumps(answers, sort_keys=True, default=str))
    print(f"{ruleset}: details differing from their whole-table entry: {differ}")


if __name__ == "__main__":
    main()
