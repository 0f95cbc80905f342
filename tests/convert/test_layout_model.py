"""convert --to httpd asks the model which ``<Directory>`` sections decide the AllowOverride in
force for a directory (:func:`confmig.model.walk.directory_sections`, which lint asks too), so
the converter, lint and explain cannot disagree about what an access file may do."""

from __future__ import annotations

from pathlib import Path

import pytest

import confmig.convert.httpd.layout as layout_module
from confmig.convert.httpd.layout import read_layout
from confmig.lint.context import ServerLayout
from confmig.load import load_config

CONFIGS = {
    "nested": "<Directory {d}/www>\n<IfModule headers_module>\nAllowOverride FileInfo\n"
              "</IfModule>\n</Directory>\n<Directory {d}/www/a>\nAllowOverride AuthConfig "
              "Nonfatal=Override\nAllowOverrideList Redirect\n</Directory>\n",
    "wildcards": "<Directory {d}/w*>\nAllowOverride FileInfo\n</Directory>\n"
                 "<Directory {d}/*/a>\nAllowOverride Options=Indexes\n</Directory>\n",
    "order": "<Directory {d}/www/a>\nAllowOverride Limit\n</Directory>\n"
             "<Directory {d}/www>\nAllowOverride All\n</Directory>\n"
             "<Directory {d}//www/>\nAllowOverride Indexes\n</Directory>\n",
    "vhost": "<Directory {d}/www>\nAllowOverride FileInfo\n</Directory>\n"
             "<VirtualHost *:80>\nDocumentRoot {d}/www\n<Directory {d}>\nAllowOverride "
             "AuthConfig\n</Directory>\n<Directory {d}/www/a/b>\nAllowOverride None\n"
             "</Directory>\n</VirtualHost>\n",
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_in_force_is_the_models_directory_walk(tmp_path: Path, name: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "www/a/b").mkdir(parents=True)
    conf = tmp_path / "site.conf"
    conf.write_text("LoadModule headers_module modules/mod_headers.so\n"
                    + CONFIGS[name].format(d=tmp_path))
    loaded = load_config(str(conf))
    layout = read_layout(loaded)
    model = ServerLayout.from_config(loaded)
    asked: list[str] = []
    walk = layout_module.directory_sections

    def spy(server: object, directory: str) -> object:
        asked.append(directory)
        return walk(server, directory)  # type: ignore[arg-type]

    monkeypatch.setattr(layout_module, "directory_sections", spy)
    context = layout.contexts[-1]
    for sub in ("www", "www/a", "www/a/b"):  # inside the vhost's DocumentRoot
        directory = str(tmp_path / sub).rstrip("/")
        force = layout.in_force(context, directory)
        expected = model.overrides_for(directory)
        assert force.allow == expected.spec, (sub, force.describe())
        assert force.listed_words == expected.list_words, sub
        assert asked[-1] == directory
