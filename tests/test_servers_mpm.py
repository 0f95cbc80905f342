"""Modules that only run under one MPM (issue 17: the suite must pass on a machine where
mod_php is installed).  Debian's ``libapache2-mod-php`` enables ``php8.2`` (its ``.load``
says ``# Depends: mpm_prefork``) and switches the machine to prefork; a server started with
``mpm="event"`` from the machine's module set must leave it out, or Apache refuses to start
("Apache is running a threaded MPM, but your PHP Module is not compiled to be threadsafe")."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.servers import (
    ApacheBinary,
    ServerConfigError,
    assumed_modules,
    default_modules,
    mpm_required,
    resolve_modules,
)


def _machine(tmp_path: Path) -> ApacheBinary:
    """A Debian layout with mod_php enabled, as libapache2-mod-php leaves it."""
    available, enabled = tmp_path / "mods-available", tmp_path / "mods-enabled"
    available.mkdir()
    enabled.mkdir()
    loads = {
        "php8.2": "# Conflicts: php5\n# Depends: mpm_prefork\n"
                  "LoadModule php_module /usr/lib/apache2/modules/libphp8.2.so\n",
        "mpm_prefork": "# Conflicts: mpm_event mpm_worker\nLoadModule mpm_prefork_module "
                       "/usr/lib/apache2/modules/mod_mpm_prefork.so\n",
        "mime": "LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so\n",
    }
    for name, text in loads.items():
        (available / f"{name}.load").write_text(text)
        (enabled / f"{name}.load").symlink_to(available / f"{name}.load")
    return ApacheBinary(Path("/nonexistent/apache2"), tmp_path / "modules", enabled, available)


def test_the_mpm_a_module_depends_on_is_read_from_its_load_file(tmp_path: Path) -> None:
    binary = _machine(tmp_path)
    assert mpm_required(binary, "php8.2") == "prefork"
    assert mpm_required(binary, "mime") is None
    assert mpm_required(binary, "mpm_prefork") is None  # "Conflicts" is not a dependency
    assert mpm_required(binary, "absent") is None


def test_a_default_set_for_another_mpm_leaves_the_module_out(tmp_path: Path) -> None:
    binary = _machine(tmp_path)
    assert "php8.2" in default_modules(binary)
    assert "php8.2" in default_modules(binary, "prefork")
    event = default_modules(binary, "event")
    assert "php8.2" not in event and "mime" in event and "rewrite" in event


def test_asking_for_the_module_under_another_mpm_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ServerConfigError, match=r"php8\.2.*needs mpm_prefork, not mpm_event"):
        resolve_modules(_machine(tmp_path), ["mime", "php8.2"], "event")


def test_no_modules_and_no_mpm_load_nothing(tmp_path: Path) -> None:
    """A copy of a real configuration brings its own LoadModule lines (and its MPM)."""
    assert resolve_modules(_machine(tmp_path), [], None) == []


def test_the_assumed_set_is_debians_whatever_the_machine_enabled() -> None:
    assumed = assumed_modules()
    assert "mpm_event" in assumed and "rewrite" in assumed
    assert not [m for m in assumed if m.startswith("php")]


def test_the_servers_default_set_is_the_one_the_model_assumes() -> None:
    """servers/ may not import the Apache facts (layers), so it lists Debian's default set
    itself; it must be the stored set the model answers <IfModule> with (mod_status was
    missing: verify's Apache and the model disagreed on <IfModule mod_status.c>)."""
    from confmig.apache.modules import debian_default_modules, identities
    from confmig.servers import BUILTIN_DEFAULT_MODULES, module_short_name

    static = {i.identifier for i in identities() if i.static}
    stored = {module_short_name(m) for m in debian_default_modules() - static}
    assert set(BUILTIN_DEFAULT_MODULES) == stored


@pytest.mark.apache
def test_verify_runs_the_original_with_the_modules_the_plan_assumed(
        tmp_path: Path, apache_binary: object, nginx_binary: object) -> None:
    """On a machine with mod_php, `application/x-httpd-php` would run scripts in verify's
    Apache while the model (Debian's defaults) serves them as files."""
    from confmig.verify.nginx import prepare
    from confmig.verify.session import VerifyRequest

    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text("hi\n")
    setup = prepare(VerifyRequest(target="nginx", docroot=root))
    loaded = {spec.name for spec in setup.original.server.modules}
    binary = setup.original.server.binary
    expected = set(assumed_modules()) - binary.static_modules
    assert loaded == expected, (loaded ^ expected)
