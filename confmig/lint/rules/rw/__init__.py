"""RW: mod_rewrite mistakes (one module per rule; shared helpers in ``scopes`` and ``refs``)."""
