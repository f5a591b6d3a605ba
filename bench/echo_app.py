"""The bare WebSocket echo that ``bench/server_load.py`` compares the table server with.

The same stack as ``fouronefour serve`` (FastAPI on uvicorn, uvloop and httptools when
installed, per-message deflate off, the server's message limit, ``gc.freeze()`` after
start-up and the server's collector schedule), one endpoint ``/ws`` that sends every text
message straight back::

    python bench/echo_app.py --port 8499
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator

import uvicorn
from fastapi import FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

from fouronefour.server.collector import keep_collections_short
from fouronefour.server.config import ServerConfig

MAX_MESSAGE_BYTES = ServerConfig().max_frame_bytes


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # As the table server does: freeze after start-up, then its collector schedule (without
    # it a full collection over 4,000 sockets' objects pauses the echo ~200 ms).
    gc.collect()
    gc.freeze()
    defaults = ServerConfig()
    collector = asyncio.create_task(
        keep_collections_short(defaults.gc_freeze_seconds, defaults.gc_full_seconds)
    )
    yield
    collector.cancel()


app = FastAPI(lifespan=_lifespan, docs_url=None, redoc_url=None, openapi_url=None)


@app.get("/api/health")
async def health() -> dict[str, bool]:
    return {"ok": True}


@app.websocket("/ws")
async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            await websocket.send_text(await websocket.receive_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8499)
    args = parser.parse_args()
    # The settings of fouronefour.server.command.run, so only the application differs.
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_max_size=MAX_MESSAGE_BYTES,
        ws_per_message_deflate=False,
        lifespan="on",
    )


if __name__ == "__main__":
    main()
