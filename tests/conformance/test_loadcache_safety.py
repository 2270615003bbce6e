"""The load cache against another local user: nothing it plants is read.

The cache holds plain JSON, read only from a private folder and from entries of this user
that no one else can write, checked on the open descriptor. Tests that hand a file or a
folder to another uid need root (the suite's CI runs as root; elsewhere they skip).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import conformance.scenarios as scenarios_module
import conformance.scenarios.loadcache as loadcache
from conformance.knowledge.catalogue import load_catalogue
from conformance.scenarios import LoadResult, load_file
from conformance.scenarios.corpus import default_corpus_dir
from conformance.scenarios.loadcache import cache_dir

SOURCE = default_corpus_dir() / "contracts" / "deal-1.yaml"
OTHER_UID = 54321
as_root = pytest.mark.skipif(os.getuid() != 0, reason="handing files to another uid needs root")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private cache folder (not created yet) and a copy of one corpus file to load."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(cache))
    monkeypatch.delenv("CARIOCA_NO_CACHE", raising=False)
    shutil.copy(SOURCE, tmp_path / "deal-1.yaml")
    loadcache._open_folder.cache_clear()
    yield cache
    loadcache._open_folder.cache_clear()


@pytest.fixture(scope="module")
def catalogue() -> object:
    return load_catalogue()


def _load(tmp_path: Path, catalogue: object) -> LoadResult:
    return load_file(tmp_path / "deal-1.yaml", catalogue=catalogue)  # type: ignore[arg-type]


def _entry(folder: Path) -> Path:
    (entry,) = folder.glob("*.json")
    return entry


def _count_loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the real loads from now on (a cache hit is not one)."""
    calls: list[int] = []
    real = scenarios_module._load_file

    def counting(*args: object) -> LoadResult:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(scenarios_module, "_load_file", counting)
    return calls


def _plant(entry: Path, body: bytes) -> None:
    """Replace ``entry`` with ``body`` under a header that is right in every other way."""
    key = entry.name.split(".")[0]
    folder = loadcache._folder()
    assert folder is not None
    secret = loadcache._secret(folder)
    assert secret is not None
    entry.write_bytes(loadcache._header(key, body, secret) + body)


def test_entries_are_private_whatever_the_umask(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    nested = tmp_path / "a" / "b" / "cache"
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(nested))
    old = os.umask(0)
    try:
        _load(tmp_path, catalogue)
    finally:
        os.umask(old)
    for made in (tmp_path / "a", tmp_path / "a" / "b", nested):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700
    assert stat.S_IMODE(_entry(nested).stat().st_mode) == 0o600


def test_a_pickle_planted_in_an_entry_never_runs(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _load(tmp_path, catalogue)
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, (f"touch {marker}",))

    entry = _entry(folder)
    entry.write_bytes(pickle.dumps(Payload()))
    loads = _count_loads(monkeypatch)
    assert _load(tmp_path, catalogue) == first
    assert not marker.exists()
    assert loads == [1]  # ignored, loaded afresh...
    assert _load(tmp_path, catalogue) == first
    assert loads == [1]  # ...and written again, so the next load is a hit


@pytest.mark.parametrize(
    "body",
    [b"42\n", b"[]\n", b'{"\\u0000Scenario": []}\n', b"{\n", b"[" * 50_000 + b"\n"],
    ids=["int", "list", "wrong-class", "truncated", "deep"],
)
def test_an_entry_of_the_wrong_type_is_ignored_and_rewritten(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch, body: bytes
) -> None:
    first = _load(tmp_path, catalogue)
    _plant(_entry(folder), body)
    loads = _count_loads(monkeypatch)
    assert _load(tmp_path, catalogue) == first
    assert _load(tmp_path, catalogue) == first
    assert loads == [1]


def test_an_entry_whose_body_does_not_match_its_digest_is_ignored(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _load(tmp_path, catalogue)
    entry = _entry(folder)
    data = entry.read_bytes()
    edited = data.replace(first.scenarios[0].title.encode(), b"planted", 1)
    assert edited != data
    entry.write_bytes(edited)
    loads = _count_loads(monkeypatch)
    assert _load(tmp_path, catalogue) == first
    assert loads == [1]


def test_an_entry_copied_under_another_key_is_ignored(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _load(tmp_path, catalogue)
    entry = _entry(folder)
    other = tmp_path / "other.yaml"
    shutil.copy(default_corpus_dir() / "contracts" / "deal-2.yaml", other)
    second = load_file(other, catalogue=catalogue)  # type: ignore[arg-type]
    (other_entry,) = set(folder.glob("*.json")) - {entry}
    # deal-2's entry (a valid entry, of the right type) in place of deal-1's.
    shutil.copy(other_entry, entry)
    os.chmod(entry, 0o600)
    loads = _count_loads(monkeypatch)
    assert _load(tmp_path, catalogue) == first != second
    assert loads == [1]


@pytest.mark.parametrize("mode", [0o666, 0o644, 0o620])
def test_an_entry_others_can_read_or_write_is_ignored_and_rewritten_private(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    first = _load(tmp_path, catalogue)
    entry = _entry(folder)
    os.chmod(entry, mode)
    loads = _count_loads(monkeypatch)
    assert _load(tmp_path, catalogue) == first
    assert loads == [1]
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600


@as_root
def test_an_entry_owned_by_another_user_is_ignored_and_replaced(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _load(tmp_path, catalogue)
    entry = _entry(folder)
    os.chown(entry, OTHER_UID, OTHER_UID)
    loads = _count_loads(monkeypatch)
    assert _load(tmp_path, catalogue) == first
    assert loads == [1]
    assert entry.stat().st_uid == os.getuid()


def test_an_entry_that_is_a_symlink_is_not_followed(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _load(tmp_path, catalogue)
    entry = _entry(folder)
    elsewhere = tmp_path / "elsewhere.json"
    os.replace(entry, elsewhere)
    entry.symlink_to(elsewhere)
    loads = _count_loads(monkeypatch)
    assert _load(tmp_path, catalogue) == first
    assert loads == [1]
    assert not entry.is_symlink()


def test_a_fifo_in_place_of_an_entry_does_not_block(
    folder: Path, tmp_path: Path, catalogue: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _load(tmp_path, catalogue)
    entry = _entry(folder)
    entry.unlink()
    os.mkfifo(entry, 0o600)
    result: list[LoadResult] = []
    # In a thread, so that a regression fails this test instead of hanging the suite.
    worker = threading.Thread(target=lambda: result.append(_load(tmp_path, catalogue)))
    worker.start()
    worker.join(timeout=60)
    assert result == [first]


def test_a_folder_others_can_write_is_refused(folder: Path) -> None:
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o770)
    assert cache_dir() is None


def test_a_folder_under_a_parent_others_can_write_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # not sticky: anyone may rename the cache folder away
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(shared / "cache"))
    loadcache._open_folder.cache_clear()
    assert cache_dir() is None
    os.chmod(shared, 0o1777)  # sticky, as /tmp: only the owner may rename it
    loadcache._open_folder.cache_clear()
    assert cache_dir() == shared / "cache"
    loadcache._open_folder.cache_clear()


def test_a_symlink_of_the_user_to_a_private_folder_is_followed(
    folder: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    folder.symlink_to(real)
    assert cache_dir() == real


@as_root
def test_a_folder_owned_by_another_user_is_refused(folder: Path) -> None:
    folder.mkdir(mode=0o700)
    os.chown(folder, OTHER_UID, OTHER_UID)
    assert cache_dir() is None


@as_root
def test_a_folder_reached_through_another_users_symlink_is_refused(
    folder: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)  # ours, private: only the link is not
    folder.symlink_to(real)
    os.lchown(folder, OTHER_UID, OTHER_UID)
    assert cache_dir() is None


@as_root
def test_a_folder_under_another_users_parent_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = tmp_path / "theirs"
    (theirs / "cache").mkdir(parents=True, mode=0o700)
    os.chmod(theirs, 0o755)
    os.chown(theirs, OTHER_UID, OTHER_UID)  # they can swap our folder for theirs
    monkeypatch.setenv("CARIOCA_CACHE_DIR", str(theirs / "cache"))
    loadcache._open_folder.cache_clear()
    assert cache_dir() is None
    loadcache._open_folder.cache_clear()


def test_a_refused_folder_still_loads_and_writes_nothing(
    folder: Path, tmp_path: Path, catalogue: object
) -> None:
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o777)
    assert _load(tmp_path, catalogue).scenarios
    assert not list(folder.iterdir())


def test_entries_of_an_older_pickle_cache_are_removed_unread(
    folder: Path, tmp_path: Path, catalogue: object
) -> None:
    folder.mkdir(mode=0o700)
    old = folder / f"{hashlib.sha256(b'old').hexdigest()}.pickle"
    old.write_bytes(b"never read")
    _load(tmp_path, catalogue)
    assert not old.exists()
    assert len(list(folder.glob("*.json"))) == 1
