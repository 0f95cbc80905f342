"""DEP: Apache 2.2 syntax that 2.4 deprecates, ignores or rejects."""
