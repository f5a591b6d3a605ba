"""HTTP routes beside the table's own: lessons, analyses, request bodies."""
