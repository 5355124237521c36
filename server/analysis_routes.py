"""The routes that read the engine's verdicts on the moment shown, shared by the live server and
the replay server: the whole table for scripts, one base's full analysis and overlay geometry
when the umpire taps it, and each rulebook's page module.

Both servers publish small `state` messages (the scenario and each base's summary); everything
heavier is computed here, from the same `engine.live.Snapshot`, only when asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, JSONResponse

from campo.engine.live import Snapshot
from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.unit_state import state_controls
from campo.errors import CampoInputError, UnknownBaseError
from campo.server.unit_state import UnitStates

Moment = Callable[[], tuple[dict[str, Any] | None, Snapshot | None]]
"""The latest `state` payload and its snapshot (either may be None before the first one)."""


def full_state(payload: dict[str, Any], snapshot: Snapshot | None) -> dict[str, Any]:
    """A `state` payload with the whole table's ``analysis`` instead of the summaries (what
    `GET /api/state` returns: interfaces.md)."""
    out = {k: v for k, v in payload.items() if k != "summary"}
    if snapshot is None or snapshot.error is not None:
        error = "no game state yet" if snapshot is None else snapshot.error
        out["analysis"] = {"ruleset": payload.get("ruleset"), "bases": {}, "error": error}
    else:
        out["analysis"] = snapshot.analysis()
    return out


def page_module_url(ruleset: str) -> str | None:
    """Where the page loads the rulebook's module from (None: it has none)."""
    return None if get_ruleset(ruleset).page_module is None else f"/rulesets/{ruleset}.js"


def page_module_path(ruleset: str) -> Path:
    """The rulebook's page module file (404 when it has none)."""
    if ruleset not in ruleset_names():
        raise HTTPException(404, f"no ruleset {ruleset!r}")
    path = get_ruleset(ruleset).page_module
    if path is None:
        raise HTTPException(404, f"the {ruleset} ruleset has no page module")
    return path


@contextmanager
def answered_as_http(base_id: str) -> Iterator[None]:
    """The engine's refusals of a question about one base as HTTP errors: 404 for a base not on
    the table, 422 with the engine's own words for a state it cannot judge."""
    try:
        yield
    except UnknownBaseError:
        raise HTTPException(404, f"no base {base_id!r} on the table now") from None
    except CampoInputError as exc:
        raise HTTPException(422, str(exc)) from None


def add_analysis_routes(app: FastAPI, moment: Moment, unit_states: UnitStates | None = None) -> None:
    """`/api/state`, `/api/bases/{id}/analysis`, `/api/bases/{id}/detail`, `/api/geometry/{id}`,
    `/rulesets/{name}.js`. A base's detail carries its state (losses, disorder ...): with
    ``unit_states`` (a live game) what the umpire can set, else (a replay) the state the base
    had at the moment shown."""

    def judged(base_id: str) -> Snapshot:
        _, snapshot = moment()
        if snapshot is not None and snapshot.state is None:   # the engine could not judge it
            raise HTTPException(422, snapshot.error or "the rules engine cannot judge this moment")
        if snapshot is None or snapshot.state is None or base_id not in snapshot.state.ids:
            raise HTTPException(404, f"no base {base_id!r} on the table now")
        return snapshot

    @app.get("/api/state")
    def api_state() -> JSONResponse:
        """The current scenario JSON with the whole table's `analysis` (for scripts)."""
        payload, snapshot = moment()
        if payload is None:
            raise HTTPException(503, "no game state yet")
        return JSONResponse(full_state(payload, snapshot))

    @app.get("/api/bases/{base_id}/analysis")
    def api_base_analysis(base_id: str) -> dict[str, Any]:
        """One base's full analysis in the current state (`analysis.bases[id]` of /api/state)."""
        snapshot = judged(base_id)
        with answered_as_http(base_id):
            return snapshot.base_analysis(base_id)

    @app.get("/api/bases/{base_id}/detail")
    def api_base_detail(base_id: str) -> dict[str, Any]:
        """What the page shows for a tapped base, in one read: ``analysis`` (as
        /api/bases/{id}/analysis) and ``geometry`` (as /api/geometry/{id})."""
        snapshot = judged(base_id)
        with answered_as_http(base_id):
            out = {"analysis": snapshot.base_analysis(base_id), "geometry": snapshot.geometry(base_id)}
            if unit_states is not None:
                out["state"] = unit_states.controls(base_id)
            else:   # a replay: the state the base had at the moment shown, to read
                game = snapshot.state
                base = game.base(base_id)
                out["state"] = state_controls(game.ruleset.unit_state(base), base.traits)
            return out

    @app.get("/api/geometry/{base_id}")
    def api_geometry(base_id: str) -> dict[str, Any]:
        """Arc, range bands, charge arc and charge paths of one base in the current state (mm)."""
        snapshot = judged(base_id)
        with answered_as_http(base_id):
            return snapshot.geometry(base_id)

    @app.get("/rulesets/{name}.js", include_in_schema=False)
    def ruleset_page_module(name: str) -> FileResponse:
        """The rulebook's own page module (its drawings and panels), found in its package."""
        return FileResponse(page_module_path(name), media_type="text/javascript",
                            headers={"Cache-Control": "no-cache"})
