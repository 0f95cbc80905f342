"""Flag words of a RewriteRule, split as ``cmd_parseflagfield`` splits them."""

from __future__ import annotations


def flag_words(flags: str | None) -> list[str]:
    """The flag names of ``[a,b=c]`` (values dropped), in written order."""
    if not flags or len(flags) < 2:
        return []
    return [item.strip().partition("=")[0] for item in flags[1:-1].split(",")]
