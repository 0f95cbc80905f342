"""confmig: read Apache httpd configuration the way Apache does."""

__version__ = "0.1.0"
