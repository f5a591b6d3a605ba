"""What a client asks the server about itself: its health and its settings
(docs/protocol.md, section 2, "/api/config"), from which the web client builds its forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter
from fastapi.responses import Response

from ...bots.levels import LEVELS
from ...engine.rules import BOMB_LADDERS, MIN_PLAYERS
from ..background.botrunner import available_bots
from ..config import ServerConfig
from ..registry import TableRegistry
from ..sockets.session import PROTOCOL
from ..tables.chat import CHAT_LENGTH, CHAT_LINES, CHAT_SECONDS, PHRASES
from ..tables.model import HOOK_MODES, ONLINE_MAX_DECKS, ONLINE_MAX_PLAYERS
from ..tables.settings import ROUND_PAUSE_SECONDS_RANGE
from ..tables.table import HOOK_SECONDS_RANGE, NAME_LENGTH, TURN_SECONDS_RANGE
from .answers import json_answer

if TYPE_CHECKING:
    from .state import ServerState


def config_router(state: ServerState) -> APIRouter:
    router = APIRouter()

    @router.get("/api/health")
    async def health() -> Response:
        return json_answer({"ok": True, "tables": len(state.registry.tables)})

    @router.get("/api/config")
    async def server_config() -> Response:
        return json_answer(server_settings(state.config, state.registry))

    return router


def server_settings(config: ServerConfig, registry: TableRegistry) -> dict[str, Any]:
    """``/api/config``'s answer: the defaults of a new table, the limits and choices of
    its options, the chat's phrases and pace."""
    defaults = registry.default_options()
    return {
        "protocol": PROTOCOL,
        "bots": available_bots(),
        "levels": [level.to_dict() for level in LEVELS],
        "default_bot": defaults.bot,
        "defaults": {
            **{
                key: value
                for key, value in defaults.public().items()
                if key not in ("decks", "bot")
            },
            **registry.default_settings().to_dict(),
        },
        "limits": {
            "min_players": MIN_PLAYERS,
            "max_players": ONLINE_MAX_PLAYERS,
            "max_decks": ONLINE_MAX_DECKS,
            "name_length": NAME_LENGTH,
            "max_message_bytes": config.max_message_bytes,
            "turn_seconds": list(TURN_SECONDS_RANGE),
            "hook_seconds": list(HOOK_SECONDS_RANGE),
            "round_pause_seconds": list(ROUND_PAUSE_SECONDS_RANGE),
            "chat_length": CHAT_LENGTH,
        },
        "choices": {"bomb_ladder": list(BOMB_LADDERS), "hook_mode": list(HOOK_MODES)},
        "chat": {
            "phrases": list(PHRASES),
            "lines": CHAT_LINES,
            "per_seconds": CHAT_SECONDS,
        },
    }
