"""A write endpoint's JSON body, read one way for every route that takes a JSON object."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request

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
