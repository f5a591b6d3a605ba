"""uvicorn's server as ``fouronefour serve`` runs it: it says where it serves once it
listens, and stops its tables before it closes their sockets."""

from __future__ import annotations

import socket

import uvicorn
from fastapi import FastAPI


class Serving(uvicorn.Server):
    """A uvicorn server of the app of ``create_app``."""

    def __init__(self, config: uvicorn.Config, app: FastAPI, banner: str | None = None) -> None:
        super().__init__(config)
        self._app = app
        self._banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self._banner:  # (not before: the port may be taken)
            print(self._banner, flush=True)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # The tables first: uvicorn closes the WebSockets next (code 1012), and a player's
        # going offline then would be a version no client saw (Table.stop).
        self._app.state.registry.stop()
        await super().shutdown(sockets)
