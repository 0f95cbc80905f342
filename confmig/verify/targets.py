"""The servers a verification compares: a target is anything that can start, answer on a
``base_url``, and stop (:class:`confmig.servers.ServerUnderTest`, which the bench's targets
subclass too).

``confmig verify --to httpd`` compares two :class:`ApacheTarget` instances (the original
``.htaccess`` setup and the converted configuration); the nginx and Flask converters add their
own :class:`Target` subclasses for the converted side.
"""

from __future__ import annotations

from confmig.servers import ApacheUnderTest, ServerError, ServerUnderTest

# The server under test is confmig.servers' (shared with the bench); verify's names for it.
Target = ServerUnderTest
ApacheTarget = ApacheUnderTest


def planned_message(target: str) -> str:
    """What verify says for a converter the registry lists as planned, not yet built."""
    return (f"--to {target}: not available yet — the {target} converter is planned; "
            "`confmig verify --to httpd` works today")


__all__ = ["ApacheTarget", "ServerError", "Target", "planned_message"]
