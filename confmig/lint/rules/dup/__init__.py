"""DUP: the same configuration written more than once."""
