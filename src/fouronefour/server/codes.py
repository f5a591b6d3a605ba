"""Invite codes: a table's name in links, in storage and in a cluster's owner locks."""

#: Invite codes avoid look-alike characters (0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
