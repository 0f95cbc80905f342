"""convert --to httpd --config: the whole configuration rewritten, losslessly."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from confmig.cli import app
from confmig.convert import Options, convert
from confmig.convert.httpd import convert_config

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NO_CHECK = Options(check=False)


def make_config(tmp_path: Path, *, vhost_file: bool = False) -> tuple[Path, Path]:
    """A docroot with .htaccess files and a config with a pre-existing <Directory> for the
    same path as one of them; optionally the vhost in an included file (Debian's layout)."""
    root = tmp_path / "site"
    (root / "sub").mkdir(parents=True)
    (root / ".htaccess").write_text("Header set X-Root ht\n")
    (root / "sub" / ".htaccess").write_text("Header set X-Sub ht\n")
    vhost = (f"<VirtualHost *:80>\n"
             f"    ServerName site.test\n"
             f"    DocumentRoot {root}\n"
             f"    <Directory {root}>\n"
             f"        AllowOverride All\n"
             f"        Require all granted\n"
             f"    </Directory>\n"
             f"    <Directory {root}/sub>\n"
             f"        # the server's own settings for sub/\n"
             f"        Header set X-Sub server\n"
             f"    </Directory>\n"
             f"    CustomLog /dev/null combined\n"
             f"</VirtualHost>\n")
    main = ("# main config\n"
            "LoadModule headers_module modules/mod_headers.so\n"
            "ServerName main.test\n"
            "<Directory />\n    AllowOverride None\n</Directory>\n\n")
    config = tmp_path / "httpd.conf"
    if vhost_file:
        (tmp_path / "sites").mkdir()
        (tmp_path / "sites" / "site.conf").write_text(vhost)
        config.write_text(main + "IncludeOptional sites/*.conf\n")
    else:
        config.write_text(main + vhost)
    return config, root


def subsequence(needles: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(line == h for h in it) for line in needles)


def test_untouched_lines_come_back_byte_for_byte(tmp_path: Path) -> None:
    config, _root = make_config(tmp_path)
    result = convert_config(config, options=NO_CHECK)
    original = config.read_text().splitlines()
    kept = [line for line in original if "AllowOverride All" not in line]
    assert subsequence(kept, result.text.splitlines())
    assert '        # confmig: was "AllowOverride All"; the .htaccess files are <Directory> ' \
        "blocks now.\n        AllowOverride None\n" in result.text
    assert list(result.files) == [str(config)]


def test_blocks_come_after_the_existing_directory_for_the_same_path(tmp_path: Path) -> None:
    config, root = make_config(tmp_path)
    text = convert_config(config, options=NO_CHECK).text
    existing = text.index(f"    <Directory {root}/sub>\n")
    moved = text.index(f'    <Directory "{root}/sub">\n')
    assert existing < moved < text.index("</VirtualHost>")
    assert text.index(f'    <Directory "{root}">\n        AllowOverride None\n') > existing
    assert "        Header set X-Sub ht\n" in text[moved:]


def test_the_vhost_in_an_included_file_is_edited_there(tmp_path: Path) -> None:
    config, root = make_config(tmp_path, vhost_file=True)
    result = convert_config(config, options=NO_CHECK)
    site_conf = str(tmp_path / "sites" / "site.conf")
    assert list(result.files) == [site_conf]  # the main file needs no change
    assert f'<Directory "{root}/sub">' in result.files[site_conf]
    # -o: one file with the Include inlined
    assert "# confmig: IncludeOptional sites/*.conf (inlined below)" in result.text
    assert f"# confmig: begin {site_conf}" in result.text


def test_cli_write_keeps_numbered_backups_and_never_needs_force(tmp_path: Path) -> None:
    config, _root = make_config(tmp_path)
    before = config.read_text()
    runner = CliRunner()
    first = runner.invoke(app, ["convert", "--config", str(config), "--write"])
    assert first.exit_code == 0, first.output
    assert Path(f"{config}.~1~").read_text() == before
    assert "AllowOverride None" in config.read_text()
    assert f"backup: {config}.~1~" in first.stderr
    converted = config.read_text()
    # the original put back by hand and converted again: a second backup, the first kept
    config.write_text(before)
    second = runner.invoke(app, ["convert", "--config", str(config), "--write"])
    assert second.exit_code == 0, second.output
    assert f"backup: {config}.~2~" in second.stderr
    assert Path(f"{config}.~1~").read_text() == before
    assert Path(f"{config}.~2~").read_text() == before
    assert config.read_text() == converted
    assert not Path(f"{config}.bak").exists()


def test_cli_output_file_is_never_overwritten_without_force(tmp_path: Path) -> None:
    config, _root = make_config(tmp_path)
    out = tmp_path / "new.conf"
    out.write_text("precious\n")
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", "--config", str(config), "-o", str(out)])
    assert refused.exit_code == 2 and out.read_text() == "precious\n"
    done = runner.invoke(app, ["convert", "--config", str(config), "-o", str(out), "--force"])
    assert done.exit_code == 0 and "AllowOverride None" in out.read_text()


def test_a_docroot_that_is_no_documentroot_is_refused(tmp_path: Path) -> None:
    config, _root = make_config(tmp_path)
    result = CliRunner().invoke(app, ["convert", str(tmp_path), "--config", str(config),
                                      "--write"])
    assert result.exit_code == 2
    assert "not the DocumentRoot of any server" in result.stderr


def test_docroot_with_config_uses_its_allowoverride(tmp_path: Path) -> None:
    config, root = make_config(tmp_path)
    text = config.read_text().replace("AllowOverride All", "AllowOverride AuthConfig")
    config.write_text(text)
    result = convert("httpd", root, config, Options(keep_500=False, check=False))
    assert "# Header set X-Root ht" in result.text
    assert {n.directive for n in result.untranslatable} == {"Header"}


def test_relative_directory_paths_resolve_against_slash_not_serverroot() -> None:
    """fixtures/demo-httpd.conf has <Directory demo-site>: a daemonised Apache reads it as
    /demo-site/ (verified), so the demo site's .htaccess files were never read under it."""
    result = convert_config(FIXTURES / "demo-httpd.conf", options=NO_CHECK)
    relative = [n for n in result.warnings if n.directive == "<Directory demo-site>"]
    assert relative and "/demo-site/" in relative[0].reason
    assert result.untranslatable == []
    assert all("never read it" in n.reason for n in result.warnings
               if n.file.endswith(".htaccess"))


def test_keep_500_names_server_sections_that_would_answer_instead(tmp_path: Path) -> None:
    config, root = make_config(tmp_path)
    (root / "sub" / ".htaccess").write_text("Bogus directive\n")
    (root / "sub" / "private").mkdir()
    config.write_text(config.read_text().replace(
        "    CustomLog", f"    <Directory {root}/sub/private>\n        Require all denied\n"
                        "    </Directory>\n    CustomLog"))
    result = convert_config(config, options=Options(keep_500=True, check=False))
    (note,) = result.untranslatable
    assert note.directive == "Require" and note.scope == f"{root}/sub/private"
    assert "cannot keep the 500" in note.reason
