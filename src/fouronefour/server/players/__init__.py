"""The players' room: lasting profiles (guest or claimed), their sessions, sign-in (passwords,
one-time device codes, passkeys), ratings, history, stats and leaderboards (docs/players.md),
kept in the same database as the tables (:mod:`.sqlite`, :mod:`.postgres`, one SQL in
:mod:`.sqlstore`) behind :class:`.store.PlayerStore`; :class:`.service.Players` is what the
HTTP routes (routes/players.py) call, and :mod:`.setup` makes it for a server's settings.
"""
