"""LINT: the linter's own comments (inline suppressions, judged by :mod:`confmig.lint.suppress`)."""
