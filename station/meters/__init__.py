"""The pit's meters: figures per gaming day, dealer session and shoe, read from the journal
through its projection (docs/meters.md)."""
