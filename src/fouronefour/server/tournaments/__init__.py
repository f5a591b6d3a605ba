"""Tournaments inside a club (docs/tournaments.md): pairing, standings, the event's store
and the service that runs an event's rounds at real tables."""
