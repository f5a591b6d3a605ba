"""Web Push's tables in the players' database (push/store.py reads and writes them): one
step of both players' MIGRATIONS (players/sqlite.py, players/postgres.py), in SQL both
databases run. A leaf: the players' modules import it, and it imports nothing."""

#: ``push_keys`` has one row (id 1); a subscription's endpoint is the device's, so a device
#: subscribed by another profile since (a sign-in on a shared browser) is that profile's.
PUSH_STEP = """
CREATE TABLE push_keys (
    id INTEGER PRIMARY KEY, private_key TEXT NOT NULL, public_key TEXT NOT NULL,
    created_at BIGINT NOT NULL);
CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY, profile_id TEXT NOT NULL, p256dh TEXT NOT NULL,
    auth TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX push_subscriptions_profile ON push_subscriptions (profile_id, created_at);
CREATE TABLE push_settings (
    profile_id TEXT NOT NULL, kind TEXT NOT NULL, enabled INTEGER NOT NULL,
    PRIMARY KEY (profile_id, kind));
"""
