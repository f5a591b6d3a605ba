"""The friends' tables: one step of the players' migrations, the same SQL in SQLite and
PostgreSQL (referenced from both ``MIGRATIONS``: players/sqlite.py, players/postgres.py).

A friendship is two rows (one a side), so that "my friends" is one index range. A request
is kept until it is accepted or withdrawn: declined, it is only hidden from its recipient
(its sender sees it waiting, as one from a blocked profile), so that nobody learns which of
the two befell theirs. An invite is kept until it is seen or expires.
"""

FRIENDS_STEP = """
CREATE TABLE friend_links (
    profile_id TEXT NOT NULL, friend_id TEXT NOT NULL, since BIGINT NOT NULL,
    PRIMARY KEY (profile_id, friend_id));
CREATE TABLE friend_requests (
    from_id TEXT NOT NULL, to_id TEXT NOT NULL, created_at BIGINT NOT NULL,
    declined INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (from_id, to_id));
CREATE INDEX friend_requests_to ON friend_requests (to_id, created_at);
CREATE TABLE friend_blocks (
    profile_id TEXT NOT NULL, blocked_id TEXT NOT NULL, since BIGINT NOT NULL,
    PRIMARY KEY (profile_id, blocked_id));
CREATE INDEX friend_blocks_blocked ON friend_blocks (blocked_id);
CREATE TABLE friend_invites (
    id TEXT PRIMARY KEY, from_id TEXT NOT NULL, to_id TEXT NOT NULL, code TEXT NOT NULL,
    link TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL);
CREATE INDEX friend_invites_to ON friend_invites (to_id, expires_at);
CREATE INDEX friend_invites_from ON friend_invites (from_id);
CREATE INDEX friend_invites_expiry ON friend_invites (expires_at);
"""
