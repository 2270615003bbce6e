"""The cache of loaded scenario files (conformance/scenarios/loadcache.py): never stale, never
unsafe."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import conformance.scenarios as scenarios_module
from conformance.knowledge.catalogue import load_catalogue
from conformance.scenarios import load_file
from conformance.scenarios.corpus import default_corpus_dir
from conformance.scenarios.loadcache import cache_dir

SOURCE = default_corpus_dir() / "contracts" / "deal-1.yaml"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache folder for this test, and a copy of one corpus file to load."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(cache))
    monkeypatch.delenv("CARIOCA_NO_CACHE", raising=False)
    shutil.copy(SOURCE, tmp_path / "deal-1.yaml")
    return cache


def _corpus(tmp_path: Path) -> Path:
    """A corpus folder holding a copy of one corpus file, ``a.yaml``."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SOURCE, corpus / "a.yaml")
    return corpus


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

    corpus = _corpus(tmp_path)
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


# -- a corpus's index (what `check` reads) ---------------------------------------------


def _corpus_with_problems(tmp_path: Path) -> Path:
    """Two clean files, a draft case, and an id used twice: what the checks across files
    find, and nothing the per-file checks refuse."""
    corpus = _corpus(tmp_path)
    text = (default_corpus_dir() / "contracts" / "deal-2.yaml").read_text(encoding="utf-8")
    first_id = text.split("id: ", 1)[1].split()[0]
    a_id = SOURCE.read_text(encoding="utf-8").split("id: ", 1)[1].split()[0]
    text = text.replace(f"id: {first_id}", f"id: {a_id}", 1)  # a duplicate of a.yaml's first
    head, _, rest = text.partition("review: checked")
    text = head + "review: checked" + rest.replace("review: checked", "review: draft", 1)
    (corpus / "b.yaml").write_text(text, encoding="utf-8")
    return corpus


@pytest.mark.parametrize("cached", [True, False])
def test_the_index_says_what_the_corpus_says(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached: bool
) -> None:
    from conformance.scenarios import CaseEntry, load_corpus, load_index

    if not cached:
        monkeypatch.setenv("CARIOCA_NO_CACHE", "1")
    corpus = _corpus_with_problems(tmp_path)
    catalogue = load_catalogue()
    whole = load_corpus([corpus], catalogue=catalogue)
    assert any("duplicate id" in str(e) for e in whole.errors)
    assert any(s.review != "checked" for s in whole.scenarios)
    for _ in range(2):  # a miss, then what the cache holds when it holds anything
        index = load_index([corpus], catalogue=catalogue)
        assert index.entries == tuple(map(CaseEntry.of, whole.scenarios))
        assert list(map(str, index.errors)) == list(map(str, whole.errors))
        assert index.files == whole.files


def test_an_unchanged_corpus_index_is_read_without_its_cases(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.scenarios import load_corpus, load_index

    corpus = _corpus(tmp_path)
    catalogue = load_catalogue()
    first = load_index([corpus], catalogue=catalogue)
    assert len(list(folder.glob("*.index.json"))) == 1
    monkeypatch.setattr(scenarios_module, "_load_files", lambda *_: 1 / 0)
    assert load_index([corpus], catalogue=catalogue) == first
    monkeypatch.undo()
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(folder))
    # An edit is another key: the index is worked out afresh, and says what load_corpus says.
    target = corpus / "a.yaml"
    title = load_corpus([corpus], catalogue=catalogue).scenarios[0].title
    target.write_text(target.read_text(encoding="utf-8").replace(title, "edited", 1))
    target.write_text(
        target.read_text(encoding="utf-8").replace("review: checked", "review: draft", 1)
    )
    again = load_index([corpus], catalogue=catalogue)
    assert again.entries[0].review == "draft" and first.entries[0].review == "checked"
    assert len(list(folder.glob("*.index.json"))) == 2


def test_an_index_of_a_corpus_with_problems_is_never_stored(folder: Path, tmp_path: Path) -> None:
    from conformance.scenarios import load_corpus, load_index

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    broken = SOURCE.read_text(encoding="utf-8").replace("review: checked", "review: maybe", 1)
    (corpus / "a.yaml").write_text(broken, encoding="utf-8")
    catalogue = load_catalogue()
    index = load_index([corpus], catalogue=catalogue)
    whole = load_corpus([corpus], catalogue=catalogue)
    assert index.errors and list(map(str, index.errors)) == list(map(str, whole.errors))
    assert not list(folder.glob("*.index.json"))


def test_check_says_the_same_from_the_index_and_from_the_cases_whole(
    folder: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    corpus = _corpus_with_problems(tmp_path)
    env = {**os.environ, "CARIOCA_CACHE_DIR": str(folder)}
    env.pop("CARIOCA_NO_CACHE", None)

    def check(*extra: str, **more: str) -> tuple[int, str, str]:
        done = subprocess.run(
            [sys.executable, "-m", "conformance", "check", str(corpus), *extra],
            capture_output=True,
            text=True,
            env={**env, **more},
            timeout=120,
        )
        return done.returncode, done.stdout, done.stderr

    fresh = check(CARIOCA_NO_CACHE="1")
    assert fresh[0] == 2 and "duplicate id" in fresh[2]
    assert check() == fresh  # a miss: the index is worked out and stored
    assert check() == fresh  # read back from the index
    # And without the duplicate, only the draft is left: a warning, exit 0, the count.
    text = (corpus / "b.yaml").read_text(encoding="utf-8")
    a_id = SOURCE.read_text(encoding="utf-8").split("id: ", 1)[1].split()[0]
    (corpus / "b.yaml").write_text(text.replace(f"id: {a_id}", "id: cc-0180", 1))
    fresh = check("--profile", "argentine", CARIOCA_NO_CACHE="1")
    assert fresh[0] == 0 and "review: draft" in fresh[2] and "for profile argentine" in fresh[1]
    assert check("--profile", "argentine") == fresh
    assert check("--profile", "argentine") == fresh


def test_only_the_newest_whole_corpus_entries_are_kept(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import conformance.scenarios.loadcache as loadcache
    from conformance.scenarios import load_corpus

    # Each is a few MB, and every edit of a corpus makes one: a rule-lawyer's edit-check
    # loop must not grow the cache by megabytes an edit.
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    target = corpus / "a.yaml"
    source = SOURCE.read_text(encoding="utf-8")
    title = source.split("title: ", 1)[1].split("\n", 1)[0]
    catalogue = load_catalogue()
    for edit in range(loadcache.MAX_GROUPS + 3):
        target.write_text(source.replace(title, f"{title} {edit}", 1), encoding="utf-8")
        assert load_corpus([corpus], catalogue=catalogue).scenarios[0].title.endswith(str(edit))
    assert len(list(folder.glob("*.group.json"))) == loadcache.MAX_GROUPS
    # The newest is among them: the last corpus is read back from its one entry.
    monkeypatch.setattr(scenarios_module, "load_file", lambda *_, **__: 1 / 0)
    last = load_corpus([corpus], catalogue=catalogue).scenarios[0]
    assert last.title.endswith(str(loadcache.MAX_GROUPS + 2))
