"""Stage 2 of the pipeline: read files the way Apache does (Include, Define,
${VAR}, LoadModule, read-time conditionals) and find a docroot's access files."""

from confmig.load.conditions import ReadState
from confmig.load.config import IncludeEdge, LoadedConfig, load_config, load_htaccess
from confmig.load.docroot import DocrootScan, scan_docroot
from confmig.load.workspace import Workspace, load_path

__all__ = [
    "DocrootScan", "IncludeEdge", "LoadedConfig", "ReadState", "Workspace",
    "load_config", "load_htaccess", "load_path", "scan_docroot",
]
