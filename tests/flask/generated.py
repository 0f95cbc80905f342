"""Load what ``confmig convert --to flask`` wrote as a module of its own (it must not need
confmig), and lint it with ruff the way a reviewer would."""

from __future__ import annotations

import importlib.util
import itertools
import subprocess
import sys
from pathlib import Path
from types import ModuleType

RUFF = Path(sys.executable).with_name("ruff")
_COUNTER = itertools.count()


def load(text: str, directory: Path) -> ModuleType:
    """Import *text* as a fresh module from a file in *directory*."""
    name = f"confmig_generated_{next(_COUNTER)}"
    path = directory / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


def ruff(text: str, directory: Path) -> list[str]:
    """What ``ruff check`` (the project's rule set, ruff's default line length) and
    ``ruff format --check`` say about *text*; empty when both are clean."""
    path = directory / "generated_app.py"
    path.write_text(text)
    problems = []
    for args in (["check", "--isolated", "--select", "E,F,W,I,B,UP,SIM,RUF", str(path)],
                 ["format", "--isolated", "--check", "--diff", str(path)]):
        proc = subprocess.run([str(RUFF), *args], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            problems.append(f"ruff {args[0]}: {proc.stdout}{proc.stderr}"[:3000])
    return problems
