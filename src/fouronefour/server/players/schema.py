"""The tables other rooms keep in the players' database, one migration step each (both
players' MIGRATIONS append them, players/sqlite.py and players/postgres.py, in the order
they were added), in SQL that SQLite and PostgreSQL both run. They live in the players'
room, which owns that database and its schema's history, so that it imports none of the
rooms built on it; each room reads and writes its own tables (clubs/store.py,
push/store.py, tournaments/store.py, friends/store.py).
"""

# ---------------------------------------------------------------- clubs/

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


# ---------------------------------------------------------------- push/ (Web Push)

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


# ---------------------------------------------------------------- tournaments/

#: The step of the players' MIGRATIONS (players/sqlite.py and players/postgres.py) that
#: makes the events' tables: the same SQL in both databases.
TOURNAMENTS_STEP = """
CREATE TABLE tournament_events (
    id TEXT PRIMARY KEY, club_id TEXT NOT NULL, setup TEXT NOT NULL, status TEXT NOT NULL,
    round INTEGER NOT NULL, seed BIGINT NOT NULL, created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL, seeds TEXT NOT NULL);
CREATE INDEX tournament_events_club ON tournament_events (club_id, created_at);
CREATE INDEX tournament_events_status ON tournament_events (status);
CREATE TABLE tournament_players (
    event_id TEXT NOT NULL, profile_id TEXT NOT NULL, team TEXT NOT NULL,
    registered_at BIGINT NOT NULL, PRIMARY KEY (event_id, profile_id));
CREATE INDEX tournament_players_profile ON tournament_players (profile_id);
CREATE TABLE tournament_games (
    event_id TEXT NOT NULL, round INTEGER NOT NULL, number INTEGER NOT NULL,
    north TEXT NOT NULL, east TEXT NOT NULL, code TEXT NOT NULL, invite TEXT NOT NULL,
    status TEXT NOT NULL,
    winner TEXT, level_difference INTEGER NOT NULL, created_at BIGINT NOT NULL,
    PRIMARY KEY (event_id, round, number));
"""


# ---------------------------------------------------------------- friends/

# A friendship is two rows (one a side), so that "my friends" is one index range. A request
# is kept until it is accepted or withdrawn: declined, it is only hidden from its recipient
# (its sender sees it waiting, as one from a blocked profile), so that nobody learns which of
# the two befell theirs. An invite is kept until it is seen or expires.
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


# ---------------------------------------------------------------- tournaments/, its final table

#: The step that keeps a finished event's final standings for its club's history
#: (tournaments/history.py): when the event finished, and one row a player of each place
#: (a pair's two; none for a bot partner; ``profile_id`` NULL once the profile is deleted),
#: written once, with the event's finish.
TOURNAMENT_FINALS_STEP = """
ALTER TABLE tournament_events ADD COLUMN finished_at BIGINT;
CREATE INDEX tournament_events_finished ON tournament_events (club_id, finished_at);
CREATE TABLE tournament_final (
    event_id TEXT NOT NULL, place INTEGER NOT NULL, member INTEGER NOT NULL,
    entrant TEXT NOT NULL, profile_id TEXT, points INTEGER NOT NULL,
    buchholz INTEGER NOT NULL, level_difference INTEGER NOT NULL,
    head_to_head INTEGER NOT NULL, played INTEGER NOT NULL, won INTEGER NOT NULL,
    byes INTEGER NOT NULL, PRIMARY KEY (event_id, place, member));
CREATE INDEX tournament_final_profile ON tournament_final (profile_id);
"""
