"""The events' tables, as a step of the players' MIGRATIONS (appended to both tuples:
players/sqlite.py and players/postgres.py). Its own module, importing nothing, so that the
players' stores can name it without importing the tournaments' room."""

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
