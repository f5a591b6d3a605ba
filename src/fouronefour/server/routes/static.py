"""The browser client: its page at ``/`` and at a table's link ``/t/{code}``, its service
worker and its files under ``/static`` (a placeholder page where it is not installed)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

WEB_DIR = Path(__file__).resolve().parent.parent.parent / "web"

_PLACEHOLDER = """<!doctype html><html lang="en"><meta charset="utf-8"><title>414</title>
<body><h1>414</h1><p>The server is running; the browser client is not installed here.
See docs/protocol.md to play with examples/client.py.</p></body></html>"""


def index() -> Response:
    page = WEB_DIR / "index.html"
    if page.is_file():
        return FileResponse(page, media_type="text/html")
    return HTMLResponse(_PLACEHOLDER)


def static_router() -> APIRouter:
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    async def home() -> Response:
        return index()

    @router.get("/t/{code}", include_in_schema=False)
    async def invite(code: str) -> Response:
        return index()

    @router.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        # Served from the root so that it may look after "/" and "/t/{code}" (a worker's
        # scope is the folder it is served from); no-cache so an update is seen at once.
        worker = WEB_DIR / "static" / "sw.js"
        if not worker.is_file():
            return Response(status_code=404)
        return FileResponse(
            worker, media_type="text/javascript", headers={"Cache-Control": "no-cache"}
        )

    return router


def serve_client(app: FastAPI) -> None:
    """The client's routes, and its files under ``/static`` (a mount: no router has one)."""
    app.include_router(static_router())
    app.mount("/static", StaticFiles(directory=WEB_DIR / "static", check_dir=False), name="static")
