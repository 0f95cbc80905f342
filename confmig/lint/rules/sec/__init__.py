"""SEC: configurations that expose files, versions or dangerous features."""
