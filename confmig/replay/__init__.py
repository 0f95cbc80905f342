"""``confmig explain --requests FILE``: many requests (URLs or an access log) through the
model in one process, each answer on one line, and a summary of what the configuration does to
that traffic (:mod:`.logs` reads the requests, :mod:`.run` evaluates them, :mod:`.summary`
adds them up)."""
