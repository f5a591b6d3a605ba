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
    TABLE_NOT_FOUND = "table_not_found"
    NOT_SEATED = "not_seated"
    NOT_HOST = "not_host"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_MOVE = "illegal_move"
    STALE_VERSION = "stale_version"
    ALREADY_ANSWERED = "already_answered"
    WRONG_STATUS = "wrong_status"
    SEATS_EMPTY = "seats_empty"
    SEAT_TAKEN = "seat_taken"
    BAD_SEAT = "bad_seat"
    BAD_NAME = "bad_name"
    BAD_OPTION = "bad_option"
    TOO_MANY_TABLES = "too_many_tables"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    MATCH_IN_PROGRESS = "match_in_progress"
    REPLAY_NOT_FOUND = "replay_not_found"
    NO_DECISION = "no_decision"
    NOT_AWAY = "not_away"
    STORAGE_ERROR = "storage_error"


class TableError(Exception):
    """A refused request; whatever it asked for did not happen."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": str(self.code), "message": self.message}
