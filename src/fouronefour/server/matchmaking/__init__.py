"""Quick match and play again (docs/quickmatch.md): a public queue that seats people of
similar rating at rated tables, bots filling what stays empty; and, when a match ends, the
same people at a new table."""
