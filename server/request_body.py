"""A write endpoint's JSON body, read one way for every route that takes a JSON object, and
pydantic's complaint about a body or message said in one line."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from pydantic import BaseModel, ValidationError

from campo.errors import CampoInputError
from campo.safe_input import parse_json


async def json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object (empty body: ``{}``), read with the project's bounded parser
    (depth, duplicate keys, non-finite numbers); anything else is a 400 saying what is wrong."""
    raw = await request.body()
    try:
        data = parse_json(raw) if raw else {}
    except CampoInputError as exc:
        raise HTTPException(400, f"body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "body must be a JSON object")
    return data


def first_problem(exc: ValidationError) -> tuple[str, str]:
    """(where, what) of pydantic's first complaint: the dotted key ("" for the whole body) and
    its message, for a reply that names the one thing to fix."""
    first = exc.errors()[0]
    return ".".join(str(p) for p in first["loc"]), first["msg"]


def parse_model(model: type[BaseModel], data: Any) -> Any:
    """``data`` as ``model``, or a `CampoInputError` naming the first bad key in one line."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        where, what = first_problem(exc)
        raise CampoInputError(what, key=where or None) from None
