"""The load cache bounded and bound to what it was made from (conformance/scenarios/loadcache.py):
an entry only this harness's key can make, read before the adapter under test starts,
validated field by field, of bounded size, and pruned without a stat per entry a store."""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import conformance.scenarios as scenarios_module
import conformance.scenarios.loadcache as loadcache
from conformance.knowledge.catalogue import load_catalogue
from conformance.scenarios import _CACHE_CODEC, LoadResult, load_corpus, load_file, pin_corpus
from conformance.scenarios.corpus import default_corpus_dir

SOURCE = default_corpus_dir() / "contracts" / "deal-1.yaml"
#: A file of one case (``{id}``: its number; ``{n}``: a copy number in its title).
ONE_CASE = """id: cc-{id}
title: Ace, queen and three cost 33, copy {n}
rules: [SCORE-2]
source: "000 §07"
profiles: [argentine]
level: melds
tags: [score]
review: checked
checks:
  - penalty: [AS, QD, 3C]
    expect: {{points: 33}}
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache folder for this test, and a corpus folder holding one file."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(cache))
    monkeypatch.delenv("CARIOCA_NO_CACHE", raising=False)
    monkeypatch.delenv("CI", raising=False)  # run under CI reads no cache
    loadcache._open_folder.cache_clear()
    (tmp_path / "corpus").mkdir()
    shutil.copy(SOURCE, tmp_path / "corpus" / "a.yaml")
    return cache


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the real loads of a file from now on (a cache hit is not one)."""
    calls: list[int] = []
    real = scenarios_module._load_file

    def counting(*args: object) -> LoadResult:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(scenarios_module, "_load_file", counting)
    return calls


def _forged(first: LoadResult) -> bytes:
    """``first`` with its first case's title changed: what an engine would plant."""
    case = replace(first.scenarios[0], title="planted by the engine")
    return _CACHE_CODEC.encode([replace(first, scenarios=(case, *first.scenarios[1:]))])


def _secret() -> bytes:
    found = loadcache._folder()
    assert found is not None
    secret = loadcache._secret(found)
    assert secret is not None
    return secret


def test_a_header_anyone_can_compute_is_not_accepted(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue = load_catalogue()
    first = load_corpus([tmp_path / "corpus"], catalogue=catalogue)
    (group,) = folder.glob("*.group.json")
    key = group.name.split(".")[0]
    body = _forged(LoadResult(first.scenarios, (), ("a",)))
    # The header of the previous format: the key and a plain digest of the body.
    plain = hashlib.blake2b(body, digest_size=20).hexdigest()
    group.write_bytes(b"%s %s %s\n" % (loadcache._MAGIC, key.encode(), plain.encode()) + body)
    # Or a MAC under a key the engine made up.
    assert loadcache._header(key, body, b"\0" * 32) != loadcache._header(key, body, _secret())
    loads = _loads(monkeypatch)
    again = load_corpus([tmp_path / "corpus"], catalogue=catalogue)
    assert again == first and "planted" not in again.scenarios[0].title
    assert loads == []  # the file's own entry, not the planted group entry
    assert (folder / "entry-key").stat().st_mode & 0o777 == 0o600


def test_entries_read_before_the_adapter_starts_cannot_be_swapped_under_the_run(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue = load_catalogue()
    corpus = [tmp_path / "corpus"]
    first = load_corpus(corpus, catalogue=catalogue)
    pin_corpus(corpus, catalogue=catalogue)  # what run does before it starts the adapter
    # Meanwhile the engine (same user) replaces every entry, even with a right header.
    secret = _secret()
    for entry in folder.glob("*.json"):
        key = entry.name.split(".")[0]
        body = _forged(LoadResult(first.scenarios, (), ("a",)))
        entry.write_bytes(loadcache._header(key, body, secret) + body)
    loads = _loads(monkeypatch)
    assert load_corpus(corpus, catalogue=catalogue) == first
    assert loads == []  # from the entry read before, not from the YAML


def test_run_pins_the_corpus_before_it_starts_the_adapter(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import conformance.run.runner as runner
    from conformance.cli import main

    monkeypatch.setattr(loadcache, "_PINNED", {})
    corpus = str(tmp_path / "corpus")
    assert main(["check", corpus]) == 0
    assert main(["run", "-q", corpus]) == 0  # stores the whole-corpus entry
    real = runner.new_session

    def engine_first(*args: object, **kwargs: object) -> object:
        # Where the adapter under test starts: it wipes the cache and plants its own.
        assert loadcache._PINNED, "the corpus entries were not read before the adapter"
        for entry in folder.glob("*.json"):
            entry.write_bytes(b"planted\n")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "new_session", engine_first)
    loads = _loads(monkeypatch)
    assert main(["run", "-q", corpus]) == 0
    assert loads == []


def test_an_entry_with_wrong_nested_types_is_dropped_not_a_type_error(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue = load_catalogue()
    path = tmp_path / "corpus" / "a.yaml"
    first = load_file(path, catalogue=catalogue)
    (entry,) = folder.glob("*.json")
    key = entry.name.split(".")[0]
    case = first.scenarios[0]
    bad = [
        replace(case, rules=(1, 2)),  # ints where rule ids belong
        replace(case, title=["not", "a", "title"]),
        replace(case, tags=None),
        replace(case, assumes={"DISPUTE-01": 3}),
        replace(case, level="sideways"),
    ]
    secret = _secret()
    for wrong in bad:
        body = _CACHE_CODEC.encode(replace(first, scenarios=(wrong,)))
        entry.write_bytes(loadcache._header(key, body, secret) + body)
        loads = _loads(monkeypatch)
        assert load_file(path, catalogue=catalogue) == first
        assert loads == [1]  # dropped, loaded afresh, and stored again
        monkeypatch.undo()
        monkeypatch.setenv("CARIOCA_CACHE_DIR", str(folder))


def test_an_entry_past_the_size_limit_is_neither_read_nor_written(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue = load_catalogue()
    path = tmp_path / "corpus" / "a.yaml"
    first = load_file(path, catalogue=catalogue)
    (entry,) = folder.glob("*.json")
    size = entry.stat().st_size
    # The limit lowered below this entry (the test stays cheap): it is no longer read...
    monkeypatch.setattr(loadcache, "MAX_ENTRY_BYTES", size // 2)
    loads = _loads(monkeypatch)
    assert load_file(path, catalogue=catalogue) == first
    assert loads == [1]
    # ...nor written again (it would cost its size on every run).
    entry.unlink()
    assert load_file(path, catalogue=catalogue) == first
    assert not list(folder.glob("*.json"))


def test_pruning_stats_the_entries_once_in_many_stores(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loadcache, "MAX_ENTRIES", 20)
    monkeypatch.setattr(loadcache, "PRUNE_EVERY", 8)
    stats: list[str] = []
    real_stat = os.stat

    def counting(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if kwargs.get("dir_fd") is not None:
            stats.append(str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", counting)
    source = SOURCE.read_text(encoding="utf-8")
    title = source.split("title: ", 1)[1].split("\n", 1)[0]
    catalogue = load_catalogue()
    stores = 60
    for n in range(stores):
        target = tmp_path / f"f{n}.yaml"
        target.write_text(source.replace(title, f"{title} {n}", 1), encoding="utf-8")
        load_file(target, catalogue=catalogue)
    entries = list(folder.glob("*.json"))
    # Bounded: never more than MAX_ENTRIES plus the stores since the last prune.
    assert len(entries) <= 20 + 8
    # Cheap: a prune every 8 stores, each stat'ing at most the entries there are, against
    # a prune (and a stat of every entry) at every store before.
    assert len(stats) <= (stores // 8 + 1) * (20 + 8)
    assert len(stats) < stores * 20 // 2


def test_a_corpus_of_more_files_than_entries_reloads_only_what_was_edited(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pruning in the middle of a load evicted the entries the same load was about to read:
    # past MAX_ENTRIES files every one missed in turn (150 s for a one-file edit of 4,900).
    monkeypatch.setattr(loadcache, "MAX_ENTRIES", 10)
    monkeypatch.setattr(loadcache, "PRUNE_EVERY", 4)
    corpus = tmp_path / "big"
    corpus.mkdir()
    files = 15
    for n in range(files):
        (corpus / f"f{n:02d}.yaml").write_text(ONE_CASE.format(id=7000 + n, n=n), encoding="utf-8")
    catalogue = load_catalogue()
    first = load_corpus([corpus], catalogue=catalogue)
    assert not first.errors and len(first.scenarios) == files
    edited = corpus / "f00.yaml"
    edited.write_text(edited.read_text().replace("copy 0", "copy 0 edited"))
    loads = _loads(monkeypatch)
    again = load_corpus([corpus], catalogue=catalogue)
    assert again.scenarios[0].title.endswith("edited")
    assert loads == [1]  # the edited file only; the other 14 from their entries
    again = load_corpus([corpus], catalogue=catalogue)
    assert loads == [1]  # and then the whole corpus from one entry


@pytest.mark.parametrize(
    ("flag", "ci"), [("--no-cache", ""), (None, "true")], ids=["--no-cache", "CI"]
)
def test_a_forged_entry_cannot_green_a_run_under_ci_or_no_cache(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str | None, ci: str
) -> None:
    """An engine runs as the user, so it can read the cache's key and forge the entries a
    later run reads: under CI, and with --no-cache, run reads none (the corpus is loaded
    afresh) and writes none."""
    from conformance.cli import main

    corpus = str(tmp_path / "corpus")
    assert main(["run", "-q", corpus]) == 0  # fills the cache
    entries = sorted(folder.glob("*.json"))
    assert entries
    forged = {entry: entry.read_bytes() + b"forged" for entry in entries}
    for entry, data in forged.items():
        entry.write_bytes(data)  # whatever an entry holds, nothing reads it now
    monkeypatch.setenv("CI", ci)
    loads = _loads(monkeypatch)
    assert main(["run", "-q", corpus, *([flag] if flag else [])]) == 0
    assert loads, "the corpus was not loaded afresh"
    assert {entry: entry.read_bytes() for entry in entries} == forged
    assert sorted(folder.glob("*.json")) == entries  # nothing written either
