"""How the service reports failures: one JSON line ``{"error": ...}`` with the right status.

Validation failures are 422 naming the field; a library ``InputError`` is 422 too; an index
problem 503; a model timeout 504; any other model failure 502. Messages come from docqa's
error tree, which never holds a key or a secret; anything unexpected is logged in full on the
server and reported as a generic line.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from docqa.errors import DocqaError, IndexStoreError, InputError, ModelError, ModelTimeout

log = logging.getLogger("docqa.serve")
INTERNAL = "internal error while answering; the server log has the details"


def status_of(exc: DocqaError) -> int:
    """The HTTP status of a docqa error."""
    if isinstance(exc, InputError):
        return 422
    if isinstance(exc, IndexStoreError):
        return 503
    if isinstance(exc, ModelTimeout):
        return 504
    if isinstance(exc, ModelError):
        return 502
    return 500


def public_message(exc: BaseException) -> str:
    """The line a client may see for ``exc`` (docqa's own message, else a generic one)."""
    if isinstance(exc, DocqaError):
        return str(exc)
    log.error("docqa serve: unexpected error", exc_info=exc)
    return INTERNAL


OBJECT = 'the request body must be a JSON object such as {"question": "..."}'


def validation_line(errors: list[Any], content_type: str = "application/json") -> str:
    """The first validation error as ``field: message`` (``k: Input should be ...``), or, when
    the body as a whole is wrong (not JSON, not an object, not sent as JSON), what it must be."""
    if not errors:
        return "the request is not valid"
    first = errors[0]
    loc = [str(part) for part in first.get("loc", ()) if part != "body"]
    if first.get("type") == "json_invalid":
        return f"{OBJECT}; this one is not valid JSON"
    if not loc:  # the body itself: absent, or not an object
        if content_type.split(";")[0].strip().lower() != "application/json":
            sent = f"Content-Type {content_type}" if content_type else "no Content-Type"
            return f"{OBJECT}, sent with Content-Type: application/json (this one has {sent})"
        return OBJECT
    return f"{'.'.join(loc)}: {first.get('msg', 'invalid')}"


def known_error(exc: BaseException) -> JSONResponse | None:
    """The response for an ``HTTPException`` (its status, detail and headers) or a
    ``DocqaError`` (:func:`status_of`); None for anything else."""
    if isinstance(exc, HTTPException):
        return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)
    if isinstance(exc, DocqaError):
        return JSONResponse({"error": str(exc)}, status_of(exc))
    return None


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into ``{"error": ...}``."""

    async def known(request: Request, exc: Exception) -> JSONResponse:
        return cast(JSONResponse, known_error(exc))

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        found = list(cast(RequestValidationError, exc).errors())
        detail = [{"loc": e.get("loc"), "msg": e.get("msg")} for e in found]
        line = validation_line(found, request.headers.get("content-type", ""))
        return JSONResponse({"error": line, "detail": detail}, 422)

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": public_message(exc)}, 500)

    app.add_exception_handler(HTTPException, known)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(DocqaError, known)
    app.add_exception_handler(Exception, unexpected)
