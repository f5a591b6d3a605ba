"""Typed refusals: every rejected request names one of these codes (docs/protocol.md s.6)."""

from __future__ import annotations

import enum


class ErrorCode(enum.StrEnum):
    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    HELLO_REQUIRED = "hello_required"
    BAD_PROTOCOL = "bad_protocol"
    ALREADY_HELLO = "already_hello"
    BAD_TOKEN = "bad_token"
    KICKED = "kicked"
    TABLE_NOT_FOUND = "table_not_found"
    NOT_SEATED = "not_seated"
    NOT_HOST = "not_host"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_MOVE = "illegal_move"
    STALE_VERSION = "stale_version"
    ALREADY_ANSWERED = "already_answered"
    WRONG_STATUS = "wrong_status"
    PAUSED = "paused"
    SEATS_EMPTY = "seats_empty"
    SEAT_TAKEN = "seat_taken"
    BAD_SEAT = "bad_seat"
    BAD_NAME = "bad_name"
    BAD_OPTION = "bad_option"
    CHAT_CLOSED = "chat_closed"
    BAD_HANDOFF = "bad_handoff"
    TOO_MANY_TABLES = "too_many_tables"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    MATCH_IN_PROGRESS = "match_in_progress"
    REPLAY_NOT_FOUND = "replay_not_found"
    NO_DECISION = "no_decision"
    NOT_AWAY = "not_away"
    STORAGE_ERROR = "storage_error"
    BROKER_UNAVAILABLE = "broker_unavailable"
    OWNER_UNAVAILABLE = "owner_unavailable"
    NOT_FINISHED = "not_finished"
    ANALYSIS_PENDING = "analysis_pending"
    NO_ANALYSIS = "no_analysis"
    #: A request that needs a signed-in session from the page (docs/players.md).
    NOT_SIGNED_IN = "not_signed_in"


class TableError(Exception):
    """A refused request; whatever it asked for did not happen. ``details``: more fields of
    the error message (a rate-limited chat line's ``retry_after_ms``)."""

    def __init__(
        self, code: ErrorCode, message: str, details: dict[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"code": str(self.code), "message": self.message}
        if self.details:
            body.update(self.details)
        return body
