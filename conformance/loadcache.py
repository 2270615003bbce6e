"""A cache of loaded scenario files, so that ``check`` and ``run`` skip YAML and checks.

Loading a scenario file (PyYAML, the schema, the semantic checks) costs far more than
running its cases. A file that loaded without a problem is stored, as the scenarios it
gave, under a key made of everything the result depends on:

- the file's bytes and the name it is reported under;
- the catalogue it was checked against;
- the harness itself: every source, schema and data file of the ``conformance`` package,
  and the versions of Python, PyYAML and jsonschema-rs.

Change any of them and the key changes, so a stale entry is never read; a file with
problems is never stored (its messages are always fresh). The entries are pickles,
read only from a folder this user owns and no one else can write (``$CARIOCA_CACHE_DIR``,
else ``$XDG_CACHE_HOME/carioca-conformance``, else ``~/.cache/carioca-conformance``), as
pytest, mypy and ruff keep theirs. ``CARIOCA_NO_CACHE=1`` turns the cache off. Any
trouble with the cache (unreadable, full disk, a corrupt entry) falls back to loading.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import pickle
import stat
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from conformance.yamlsafe import MAX_FILE_BYTES

T = TypeVar("T")

#: Entries kept at most; beyond it the oldest are removed when a new one is written.
MAX_ENTRIES = 4000
_PACKAGE = Path(__file__).resolve().parent


@cache
def _harness_digest() -> str:
    """A digest of the harness code and data that loading depends on."""
    digest = hashlib.sha256()
    digest.update(sys.version.encode() + b"\0")
    # The parser and validator by where they are installed and when, without importing
    # them (a load from the cache never needs them).
    for module in ("yaml", "_yaml", "jsonschema_rs"):
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None and spec.origin else ""
        with contextlib.suppress(OSError):
            origin += f"@{os.stat(origin).st_mtime_ns}"
        digest.update(origin.encode("utf-8", "surrogateescape") + b"\0")
    for path in sorted(_PACKAGE.rglob("*")):
        if path.suffix in (".py", ".json") and path.is_file():
            digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_dir() -> Path | None:
    """The cache folder, created if needed; None when caching is off or unsafe."""
    env = os.environ
    return _cache_dir(
        env.get("CARIOCA_NO_CACHE", ""),
        env.get("CARIOCA_CACHE_DIR"),
        env.get("XDG_CACHE_HOME", ""),
    )


@cache
def _cache_dir(off: str, chosen: str | None, xdg: str) -> Path | None:
    if off not in ("", "0"):
        return None
    if chosen is not None:
        if not chosen:
            return None
        folder = Path(chosen)
    else:
        base = xdg or str(Path.home() / ".cache")
        folder = Path(base) / "carioca-conformance"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    # Pickles run code when read: only from a folder no one else can write into.
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return folder


def context_key(value: object) -> str:
    """A key for ``value`` (the catalogue) as a context of :func:`cached`.

    Computed once per object (the repr of a whole catalogue is not free); the object is
    kept alive with its key, so its id is never reused for another.
    """
    known = _CONTEXTS.get(id(value))
    if known is None or known[0] is not value:
        known = (value, hashlib.sha256(repr(value).encode()).hexdigest())
        _CONTEXTS[id(value)] = known
    return known[1]


_CONTEXTS: dict[int, tuple[object, str]] = {}


def cached(
    path: Path, label: str, context: str, load: Callable[[], T], keep: Callable[[T], bool]
) -> T:
    """``load()``'s result for the file at ``path``, from the cache when it holds it.

    ``context`` is anything else the result depends on (see :func:`context_key`);
    ``keep`` says whether a fresh result may be stored (a result with problems is not).
    """
    folder = cache_dir()
    content = _content(path) if folder is not None else None
    if folder is None or content is None:
        return load()
    entry = folder / f"{_key(label, context, content)}.pickle"
    found = _read(entry)
    if found is not None:
        return found  # type: ignore[no-any-return]
    result = load()
    if keep(result):
        _store(folder, entry, result)
    return result


def cached_group(
    paths: Sequence[Path],
    labels: Sequence[str],
    context: str,
    load: Callable[[int], T],
    keep: Callable[[T], bool],
) -> list[T]:
    """``[load(i) for each file]``, from one cache entry for the whole group when it holds it.

    The entry's key is made of every file's key (bytes and label), so a change to any file
    misses it; then each file is loaded through :func:`cached`, and the group is stored
    again when every result may be kept. One entry read and unpickled instead of one per
    file is what lets ``check`` start in a blink.
    """
    folder = cache_dir()
    keys: list[str] = []
    for path, label in zip(paths, labels, strict=True):
        content = _content(path) if folder is not None else None
        if content is None:
            folder = None  # each file's own load reports what is wrong with it
            break
        keys.append(_key(label, context, content))
    if folder is None:
        return [load(i) for i in range(len(paths))]
    entry = folder / f"{hashlib.sha256(' '.join(keys).encode()).hexdigest()}.group.pickle"
    found = _read(entry)
    if isinstance(found, list) and len(found) == len(paths):
        return found
    results = [load(i) for i in range(len(paths))]
    if all(keep(r) for r in results):
        _store(folder, entry, results)
    return results


def _content(path: Path) -> bytes | None:
    """The file's bytes, or None when it cannot be read or is too large to load (the
    loader then refuses it with its own message, never from the cache)."""
    try:
        with path.open("rb") as handle:
            content = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    return content if len(content) <= MAX_FILE_BYTES else None


def _key(label: str, context: str, content: bytes) -> str:
    """The cache key of one file: the harness, its label, the context and its bytes."""
    digest = hashlib.sha256()
    for part in (_harness_digest(), label, context):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(content)
    return digest.hexdigest()


def _read(entry: Path) -> Any:
    """The value stored at ``entry``, or None when there is none (or it is unreadable)."""
    with contextlib.suppress(Exception):
        # Our own entry, from a folder only this user can write (see cache_dir).
        return pickle.loads(entry.read_bytes())  # noqa: S301
    return None


def _store(folder: Path, entry: Path, value: object) -> None:
    """Write one entry atomically; prune the oldest when there are too many."""
    temporary = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(temporary, entry)
    except Exception:  # the cache is an optimisation: never fail a load for it
        with contextlib.suppress(OSError):
            temporary.unlink()
        return
    with contextlib.suppress(OSError):
        entries = list(folder.glob("*.pickle"))
        if len(entries) > MAX_ENTRIES:
            entries.sort(key=lambda p: p.stat().st_mtime)
            for old in entries[: len(entries) - MAX_ENTRIES]:
                old.unlink()
