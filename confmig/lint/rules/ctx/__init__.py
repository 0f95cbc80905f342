"""CTX: context and AllowOverride — what makes Apache answer 500, refuse to start, or ignore."""
