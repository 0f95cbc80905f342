"""SYN: syntax and structure, argument counts, unknown directives."""
