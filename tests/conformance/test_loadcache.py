"""The cache of loaded scenario files (conformance/loadcache.py): never stale, never unsafe."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import conformance.scenarios as scenarios_module
from conformance.catalogue import load_catalogue
from conformance.corpus import default_corpus_dir
from conformance.loadcache import cache_dir
from conformance.scenarios import load_file

SOURCE = default_corpus_dir() / "contracts" / "deal-1.yaml"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache folder for this test, and a copy of one corpus file to load."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(cache))
    monkeypatch.delenv("CARIOCA_NO_CACHE", raising=False)
    shutil.copy(SOURCE, tmp_path / "deal-1.yaml")
    return cache


def _forbid_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("the file was loaded again instead of read from the cache")

    monkeypatch.setattr(scenarios_module, "_load_file", refuse)


def test_a_second_load_comes_from_the_cache_and_is_equal(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue = load_catalogue()
    first = load_file(tmp_path / "deal-1.yaml", catalogue=catalogue)
    assert first.scenarios and not first.errors
    assert len(list(folder.glob("*.json"))) == 1
    _forbid_loading(monkeypatch)
    second = load_file(tmp_path / "deal-1.yaml", catalogue=catalogue)
    assert second == first


def test_an_edited_file_is_loaded_afresh(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "deal-1.yaml"
    catalogue = load_catalogue()
    before = load_file(target, catalogue=catalogue)
    title = before.scenarios[0].title
    target.write_text(
        target.read_text(encoding="utf-8").replace(title, title + " (edited)", 1),
        encoding="utf-8",
    )
    after = load_file(target, catalogue=catalogue)
    assert after.scenarios[0].title == title + " (edited)"


def test_another_catalogue_or_label_is_another_entry(folder: Path, tmp_path: Path) -> None:
    target = tmp_path / "deal-1.yaml"
    load_file(target, catalogue=load_catalogue())
    load_file(target, catalogue=None)
    load_file(target, catalogue=load_catalogue(), label="elsewhere.yaml")
    assert len(list(folder.glob("*.json"))) == 3


def test_a_file_with_problems_is_never_stored(folder: Path, tmp_path: Path) -> None:
    target = tmp_path / "deal-1.yaml"
    target.write_text(target.read_text(encoding="utf-8").replace("rules:", "rulez:", 1))
    result = load_file(target, catalogue=load_catalogue())
    assert result.errors
    assert not list(folder.glob("*.json"))


def test_a_corrupt_entry_falls_back_to_loading(folder: Path, tmp_path: Path) -> None:
    target = tmp_path / "deal-1.yaml"
    first = load_file(target, catalogue=load_catalogue())
    for entry in folder.glob("*.json"):
        entry.write_bytes(b"not an entry")
    assert load_file(target, catalogue=load_catalogue()) == first


def test_a_folder_others_can_write_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(shared))
    assert cache_dir() is None
    shutil.copy(SOURCE, tmp_path / "deal-1.yaml")
    assert load_file(tmp_path / "deal-1.yaml", catalogue=load_catalogue()).scenarios
    assert not list(shared.iterdir())


def test_the_cache_can_be_turned_off(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARIOCA_NO_CACHE", "1")
    assert cache_dir() is None
    load_file(tmp_path / "deal-1.yaml", catalogue=load_catalogue())
    assert not folder.exists() or not list(folder.glob("*.json"))


def test_a_corpus_is_read_back_from_one_entry_and_an_edit_is_seen(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.scenarios import load_corpus

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SOURCE, corpus / "a.yaml")
    shutil.copy(default_corpus_dir() / "contracts" / "deal-2.yaml", corpus / "b.yaml")
    catalogue = load_catalogue()
    first = load_corpus([corpus], catalogue=catalogue)
    assert first.scenarios and not first.errors
    assert len(list(folder.glob("*.group.json"))) == 1
    # Read back whole: neither a file nor its own entry is loaded again.
    monkeypatch.setattr(scenarios_module, "load_file", lambda *_, **__: 1 / 0)
    assert load_corpus([corpus], catalogue=catalogue) == first
    monkeypatch.undo()
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(folder))
    # An edit to one file misses the group: that file is loaded afresh, the other is not.
    title = first.scenarios[-1].title
    target = corpus / "b.yaml"
    target.write_text(target.read_text(encoding="utf-8").replace(title, "edited", 1))
    again = load_corpus([corpus], catalogue=catalogue)
    assert [s.title for s in again.scenarios][-1] == "edited"
    assert [s.title for s in again.scenarios][:-1] == [s.title for s in first.scenarios][:-1]
    assert len(list(folder.glob("*.group.json"))) == 2
