"""Sockets: one WebSocket connection, its outbox, its session at a table, who is admitted, and
guards on idle sockets.
"""
