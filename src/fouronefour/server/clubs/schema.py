"""The clubs' tables: one step of the players' migrations (players/sqlite.py and
players/postgres.py both append it), in SQL that SQLite and PostgreSQL both run.

A leaf module: the players' store imports it, so it imports nothing of the server."""

CLUBS_STEP = """
CREATE TABLE clubs (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at BIGINT NOT NULL,
    invite TEXT NOT NULL UNIQUE, table_settings TEXT NOT NULL);
CREATE TABLE club_members (
    club_id TEXT NOT NULL, profile_id TEXT NOT NULL, role TEXT NOT NULL,
    joined_at BIGINT NOT NULL, PRIMARY KEY (club_id, profile_id));
CREATE INDEX club_members_profile ON club_members (profile_id);
CREATE TABLE club_bars (
    club_id TEXT NOT NULL, profile_id TEXT NOT NULL, kind TEXT NOT NULL,
    invite TEXT NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (club_id, profile_id));
CREATE TABLE club_tables (
    code TEXT PRIMARY KEY, club_id TEXT NOT NULL, invite TEXT NOT NULL,
    created_at BIGINT NOT NULL);
CREATE INDEX club_tables_club ON club_tables (club_id, created_at);
CREATE TABLE club_seats (
    code TEXT NOT NULL, profile_id TEXT NOT NULL, token_hash TEXT NOT NULL,
    PRIMARY KEY (code, profile_id));
CREATE TABLE club_chat (
    id TEXT PRIMARY KEY, club_id TEXT NOT NULL, profile_id TEXT NOT NULL,
    text TEXT NOT NULL, at BIGINT NOT NULL);
CREATE INDEX club_chat_club ON club_chat (club_id, at);
CREATE INDEX club_chat_at ON club_chat (at);
"""
