"""One table: its state, rules of the table, claim windows, seating, round end, chat and what
each seat sees.
"""
