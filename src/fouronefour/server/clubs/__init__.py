"""Clubs: a friend group with its own table link, leaderboard, history and chat wall
(docs/clubs.md)."""
