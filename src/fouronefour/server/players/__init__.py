"""The players' room: lasting profiles (guest or claimed), their sessions, sign-in, one-time
device codes, ratings, history, stats and leaderboards (docs/players.md), kept in the same
database as the tables (:mod:`.sqlite`, :mod:`.postgres`) behind :class:`.store.PlayerStore`;
:class:`.service.Players` is what the HTTP routes (routes/players.py) call.
"""
