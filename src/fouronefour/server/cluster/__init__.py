"""Several processes as one server: the Redis broker, relaying to a table's owner, fan-out and
shared limits.
"""
