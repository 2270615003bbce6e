"""A cache of loaded scenario files, so that ``check`` and ``run`` skip YAML and checks.

Loading a scenario file (PyYAML, the schema, the semantic checks) costs far more than
running its cases. A file that loaded without a problem is stored, as the scenarios it
gave, under a key made of everything the result depends on:

- the file's bytes and the name it is reported under;
- the catalogue it was checked against;
- the harness itself: every source, schema and data file of the ``conformance`` package,
  and the versions of Python, PyYAML and jsonschema-rs.

Change any of them and the key changes, so a stale entry is never read; a file with
problems is never stored (its messages are always fresh).

The cache lives in ``$CARIOCA_CACHE_DIR``, else ``$XDG_CACHE_HOME/carioca-conformance``,
else ``~/.cache/carioca-conformance``; ``CARIOCA_NO_CACHE=1`` turns it off. Another local
user must not be able to change what a later run loads, so:

- an entry is plain JSON (:mod:`conformance.io.plaindata`): reading it builds data and the
  scenario dataclasses, never code (it used to be a pickle);
- the folder is used only when it is a directory the user owns and no one else can
  write, reached through no symlink another user owns, under parents that are each
  owned by the user or root and not writable by others (unless sticky, as ``/tmp``).
  Missing folders are created 0700. The folder is then held open and every entry is
  reached through that descriptor;
- entries are written 0600 (whatever the umask) through a temporary file and a rename;
  an entry is read from a descriptor opened with ``O_NOFOLLOW`` and checked on that
  descriptor (a regular file of this user that no one else can read or write, of a
  sane size: no window between the check and the read), then its header (format, key,
  and a MAC of key and body under the folder's own random key, kept 0600 beside the
  entries: a header is not something any process of the user can compute) and the type
  of everything it holds, field by field (conformance/io/plaindata.py);
- ``run`` reads the entries it will use before the adapter under test starts
  (:func:`pin_group`), so the engine cannot swap an entry under the run that grades it;
- an entry is at most :data:`MAX_ENTRY_BYTES`, and pruning the oldest entries is done
  once in :data:`PRUNE_EVERY` stores, so a corpus of thousands of files stays cheap.

Any entry that fails is ignored and written afresh from a real load; any trouble with
the cache (an unsafe folder, a full disk) falls back to loading, never to a traceback.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, TypeVar

from conformance.io.plaindata import Codec
from conformance.io.resources import package_root
from conformance.io.yamlsafe import MAX_FILE_BYTES
from conformance.scenarios.identity import kept

T = TypeVar("T")

#: Entries kept at most; beyond it the oldest are removed when a new one is written.
MAX_ENTRIES = 4000
#: Whole-corpus entries kept at most (a few MB each; every edit of a corpus makes one).
MAX_GROUPS = 8
#: Largest entry read or written (the whole corpus as one entry is about 4 MB, and decoding
#: takes about 5 times its size): a larger one is loaded afresh, never cached.
MAX_ENTRY_BYTES: Final = 16 * 2**20
#: Stores between two prunes of one process: a prune lists and stats every entry, so a
#: prune per store made a run that stores thousands of entries quadratic.
PRUNE_EVERY: Final = 256
#: A prune removes entries down to this share of MAX_ENTRIES, so the next is far off.
_PRUNE_TO: Final = 0.9
#: First word of every entry's header line; the number changes with the format.
_MAGIC: Final = b"carioca-conformance-cache/2"
#: The file holding the folder's key, 0600: entries are authenticated with it (_header).
_KEY_FILE: Final = "entry-key"
_SUFFIX: Final = ".json"
_PACKAGE = package_root()
_OTHERS_WRITE: Final = stat.S_IWGRP | stat.S_IWOTH
_OPEN_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


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
    # os.walk, not Path.rglob: this runs at every start of ``check``, and rglob's
    # per-entry Path objects cost more than reading the files.
    found: list[tuple[str, str]] = []
    for folder, folders, names in os.walk(_PACKAGE):
        folders[:] = [name for name in folders if name != "__pycache__"]
        for name in names:
            if name.endswith((".py", ".json")):
                path = os.path.join(folder, name)
                found.append((os.path.relpath(path, _PACKAGE), path))
    for relative, path in sorted(found):
        try:
            with open(path, "rb") as handle:
                content = handle.read()
        except (IsADirectoryError, FileNotFoundError):
            continue  # a broken symlink, or a folder's symlink: not a file of the harness
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(content + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class _Folder:
    """The cache folder, checked, and a descriptor on it every entry is reached through."""

    path: Path
    fd: int


def cache_dir() -> Path | None:
    """The cache folder, created if needed; None when caching is off or unsafe."""
    folder = _folder()
    return folder.path if folder is not None else None


#: One item per :func:`turned_off` block open: while any is, no entry is read or written.
_TURNED_OFF: list[bool] = []


@contextlib.contextmanager
def turned_off() -> Iterator[None]:
    """Read and write no cache entry inside the block (``run --no-cache``, and ``run``
    under CI: a verdict that must not depend on what an earlier process wrote there)."""
    _TURNED_OFF.append(True)
    try:
        yield
    finally:
        _TURNED_OFF.pop()


def ci_environment() -> bool:
    """True under a CI system (the ``CI`` variable every common one sets, not empty,
    ``0`` or ``false``): where ``run`` reads no cache."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _folder() -> _Folder | None:
    if _TURNED_OFF:
        return None
    env = os.environ
    return _open_folder(
        env.get("CARIOCA_NO_CACHE", ""),
        env.get("CARIOCA_CACHE_DIR"),
        env.get("XDG_CACHE_HOME", ""),
    )


@cache
def _open_folder(off: str, chosen: str | None, xdg: str) -> _Folder | None:
    if off not in ("", "0"):
        return None
    if chosen is not None:
        if not chosen:
            return None
        folder = Path(chosen)
    else:
        base = xdg or str(Path.home() / ".cache")
        folder = Path(base) / "carioca-conformance"
    with contextlib.suppress(OSError, ValueError):
        return _checked_folder(Path(os.path.abspath(folder)))
    return None


def _checked_folder(folder: Path) -> _Folder | None:
    """``folder`` opened, when it and the way to it are safe (see the module's docstring)."""
    uid = os.getuid()
    # A symlink on the way that another user owns could be pointed elsewhere by them.
    for prefix in (*reversed(folder.parents), folder):
        try:
            info = os.lstat(prefix)
        except FileNotFoundError:
            break
        if stat.S_ISLNK(info.st_mode) and info.st_uid not in (0, uid):
            return None
    _make_private_dirs(folder)
    real = Path(os.path.realpath(folder))
    for parent in real.parents:
        if not _trusted_parent(os.stat(parent), uid):
            return None
    fd = os.open(real, _OPEN_FLAGS | os.O_DIRECTORY)
    info = os.fstat(fd)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & _OTHERS_WRITE:
        os.close(fd)
        return None
    return _Folder(real, fd)


def _trusted_parent(info: os.stat_result, uid: int) -> bool:
    """True when no one but ``uid`` and root can rename what a folder holds.

    A sticky folder (``/tmp``) lets others write, but not rename or remove our entries.
    """
    if info.st_uid not in (0, uid):
        return False
    return not info.st_mode & _OTHERS_WRITE or bool(info.st_mode & stat.S_ISVTX)


def _make_private_dirs(folder: Path) -> None:
    """Create the missing folders on the way to ``folder``, each 0700.

    (``Path.mkdir(parents=True)`` gives the parents the umask's mode, world-writable under
    umask 000, and such a parent would then disable the cache.)
    """
    missing: list[Path] = []
    for path in (folder, *folder.parents):
        if os.path.lexists(path):
            break
        missing.append(path)
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)


def context_key(value: object) -> str:
    """A key for ``value`` (the catalogue) as a context of :func:`cached`.

    Computed once per object (the repr of a whole catalogue is not free); the object is
    kept alive with its key, so its id is never reused for another.
    """
    return kept(_CONTEXTS, value, lambda v: hashlib.sha256(repr(v).encode()).hexdigest())


_CONTEXTS: dict[int, tuple[object, str]] = {}


def cached(
    path: Path,
    label: str,
    context: str,
    load: Callable[[], T],
    keep: Callable[[T], bool],
    *,
    codec: Codec,
) -> T:
    """``load()``'s result for the file at ``path``, from the cache when it holds it.

    ``context`` is anything else the result depends on (see :func:`context_key`);
    ``keep`` says whether a fresh result may be stored (a result with problems is not);
    ``codec`` encodes the result (its root class is the result's type).
    """
    folder = _folder()
    content = _content(path) if folder is not None else None
    if folder is None or content is None:
        return load()
    key = _key(label, context, content)
    found = _read(folder, key + _SUFFIX, key, codec, many=False)
    if found is not None:
        return found  # type: ignore[no-any-return]
    result = load()
    if keep(result):
        _store(folder, key + _SUFFIX, key, result, codec, many=False)
    return result


def cached_group(
    paths: Sequence[Path],
    labels: Sequence[str],
    context: str,
    load: Callable[[int], T],
    keep: Callable[[T], bool],
    *,
    codec: Codec,
) -> list[T]:
    """``[load(i) for each file]``, from one cache entry for the whole group when it holds it.

    The entry's key is made of every file's key (bytes and label), so a change to any file
    misses it; then each file is loaded through :func:`cached`, and the group is stored
    again when every result may be kept. One entry read and decoded instead of one per
    file is what lets ``check`` start in a blink.
    """
    found_key = _group_key(paths, labels, context)
    if found_key is None:
        return [load(i) for i in range(len(paths))]
    folder, key = found_key
    name = f"{key}.group{_SUFFIX}"
    found = _read(folder, name, key, codec, many=True)
    if found is not None and len(found) == len(paths):
        return found  # type: ignore[no-any-return]
    # Each file's store leaves the pruning to the end of the group: a prune in the middle
    # would evict entries of files this very load is about to read (with more files than
    # MAX_ENTRIES, every one of them, in turn).
    _DEFERRING[0] += 1
    try:
        results = [load(i) for i in range(len(paths))]
    finally:
        _DEFERRING[0] -= 1
    try:
        if all(keep(r) for r in results):
            _store(folder, name, key, results, codec, many=True)  # a group store prunes
        elif _PENDING.pop(folder, False):
            with contextlib.suppress(OSError):
                _prune(folder.fd)
    finally:
        _USED.clear()
    return results


def cached_index(
    paths: Sequence[Path],
    labels: Sequence[str],
    context: str,
    build: Callable[[], tuple[list[T], bool]],
    *,
    codec: Codec,
) -> list[T]:
    """A small index of a group (what ``check`` needs of each case), cached beside the
    group's entry under the same key, so that reading it skips decoding the whole group.

    ``build()`` works it out on a miss (loading the group) and says whether it may be kept
    (not when a file has problems).
    """
    found_key = _group_key(paths, labels, context)
    if found_key is None:
        return build()[0]
    folder, key = found_key
    name = f"{key}.index{_SUFFIX}"
    found = _read(folder, name, key, codec, many=True)
    if found is not None:
        return found  # type: ignore[no-any-return]
    index, keep = build()
    if keep:
        _store(folder, name, key, index, codec, many=True)
    return index


def _group_key(
    paths: Sequence[Path], labels: Sequence[str], context: str
) -> tuple[_Folder, str] | None:
    """The cache folder and the key of a group: made of every file's key (bytes and label),
    so a change to any file changes it. None without a cache, or when a file cannot be
    read (each file's own load reports what is wrong with it)."""
    folder = _folder()
    if folder is None:
        return None
    keys: list[str] = []
    for path, label in zip(paths, labels, strict=True):
        content = _content(path)
        if content is None:
            return None
        keys.append(_key(label, context, content))
    return folder, hashlib.sha256(" ".join(keys).encode()).hexdigest()


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


def _header(key: str, body: bytes, secret: bytes) -> bytes:
    """An entry's first line: format, key and a MAC of the key and body under the folder's
    ``secret``. The key is made of the files' contents, so an entry is bound to them; and
    without the secret no one can make a header this accepts (a digest anyone can compute
    let any process of the user, the engine under test among them, plant an entry)."""
    mac = hashlib.blake2b(key.encode() + b"\0", digest_size=20, key=secret)
    mac.update(body)
    return b"%s %s %s\n" % (_MAGIC, key.encode(), mac.hexdigest().encode())


def _secret(folder: _Folder) -> bytes | None:
    """The folder's secret, made (32 random bytes, 0600) the first time; None when it
    cannot be read or made safely (the cache is then not used)."""
    known = _SECRETS.get(folder)
    if known is not None:
        return known
    with contextlib.suppress(OSError):
        data: bytes | None = None
        with contextlib.suppress(FileNotFoundError):
            data = _read_private(folder.fd, _KEY_FILE)
        if data is None:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            flags |= getattr(os, "O_CLOEXEC", 0)
            with contextlib.suppress(FileExistsError):  # another process made it first
                fd = os.open(_KEY_FILE, flags, 0o600, dir_fd=folder.fd)
                try:
                    os.fchmod(fd, 0o600)
                    os.write(fd, os.urandom(32))
                finally:
                    os.close(fd)
            data = _read_private(folder.fd, _KEY_FILE)
        if data is not None and len(data) == 32:
            _SECRETS[folder] = data
            return data
    return None


_SECRETS: dict[_Folder, bytes] = {}

#: Entries read before the adapter under test started (:func:`pin_group`), by name: their
#: bytes, or None for one that was not there. A pinned entry is not read again from disk:
#: what appears there meanwhile may come from the engine.
_PINNED: dict[str, bytes | None] = {}


def _verified(folder: _Folder, name: str, key: str) -> bytes | None:
    """The body of entry ``name`` when its header is right (the pinned copy if there is
    one), else None."""
    if name in _PINNED:
        return _PINNED.pop(name)
    secret = _secret(folder)
    data = _read_private(folder.fd, name) if secret is not None else None
    if data is None or secret is None:
        return None
    newline = data.find(b"\n")
    body = data[newline + 1 :]
    if newline < 0 or data[: newline + 1] != _header(key, body, secret):
        return None
    return body


def _read(folder: _Folder, name: str, key: str, codec: Codec, *, many: bool) -> Any:
    """The value of entry ``name``, or None when there is none or it fails a check."""
    try:
        body = _verified(folder, name, key)
        if body is None:
            return None
        value = codec.decode(body, many=many)
    except (OSError, ValueError):
        return None
    if _DEFERRING[0]:
        _USED.add(name)
    return value


def pin_group(paths: Sequence[Path], labels: Sequence[str], context: str) -> None:
    """Read the entries a load of the group ``paths`` will use now, before the adapter
    under test starts: the whole-group entry or, when there is none, each file's. The load
    then takes them from memory, so nothing the engine writes to the cache meanwhile can
    reach the run (each is still checked against its header first).
    """
    found = _group_key(paths, labels, context)
    if found is None:
        return
    folder, key = found
    group = f"{key}.group{_SUFFIX}"
    with contextlib.suppress(OSError):
        _PINNED[group] = _verified(folder, group, key)
        if _PINNED[group] is None:
            for path, label in zip(paths, labels, strict=True):
                content = _content(path)
                if content is not None:
                    one = _key(label, context, content)
                    _PINNED[one + _SUFFIX] = _verified(folder, one + _SUFFIX, one)


def _read_private(folder_fd: int, name: str) -> bytes | None:
    """The bytes of ``name`` when it is a regular file of this user that only this user
    can read and write; checked on the open descriptor, so nothing can be swapped in
    between the check and the read."""
    # O_NONBLOCK: a FIFO put in the entry's place must not block the open.
    fd = os.open(name, _OPEN_FLAGS | os.O_NONBLOCK, dir_fd=folder_fd)
    try:
        info = os.fstat(fd)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.getuid()
            or info.st_mode & 0o077
            or info.st_size > MAX_ENTRY_BYTES + 200  # the header line
        ):
            return None
        chunks: list[bytes] = []
        left = info.st_size
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                return None  # shorter than its size said: being rewritten
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _store(
    folder: _Folder, name: str, key: str, value: object, codec: Codec, *, many: bool
) -> None:
    """Write one entry atomically, 0600; prune the oldest when there are too many."""
    secret = _secret(folder)
    if secret is None:
        return
    try:
        body = codec.encode(value)
        # Larger than a read accepts: it would cost its size again on every run.
        if len(body) > MAX_ENTRY_BYTES:
            return
        # Stored only when it reads back as what was loaded. Compared as values, not by
        # encoding the copy again: a second encoding of the whole corpus was most of a
        # cold run's peak memory.
        if codec.decode(body, many=many) != value:
            return
    except (TypeError, ValueError, RecursionError):
        return
    temporary = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        fd = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
            0o600,
            dir_fd=folder.fd,
        )
        try:
            os.fchmod(fd, 0o600)  # whatever the umask took away
            view = memoryview(_header(key, body, secret) + body)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(temporary, name, src_dir_fd=folder.fd, dst_dir_fd=folder.fd)
    except OSError:  # the cache is an optimisation: never fail a load for it
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder.fd)
        return
    if _DEFERRING[0]:
        _USED.add(name)
    stores = _STORES[folder] = _STORES.get(folder, 0) + 1
    if _DEFERRING[0] and not name.endswith(".group" + _SUFFIX):
        _PENDING[folder] = True  # pruned once the group's load is done
        return
    # A process's first store in the folder prunes, then one in PRUNE_EVERY, and a
    # whole-corpus entry always (there are few, and each is megabytes).
    if stores % PRUNE_EVERY == 1 or name.endswith(".group" + _SUFFIX):
        _PENDING.pop(folder, None)
        with contextlib.suppress(OSError):
            _prune(folder.fd)


#: Stores made by this process, per folder.
_STORES: dict[_Folder, int] = {}
#: Entries the group being loaded read or wrote: its prune keeps them (they are what it
#: works with).
_USED: set[str] = set()
#: Above 0 while a group loads its files (their stores do not prune: cached_group does).
_DEFERRING: list[int] = [0]
#: Folders a deferred store left unpruned.
_PENDING: dict[_Folder, bool] = {}


def _prune(folder_fd: int) -> None:
    """Remove the oldest entries beyond :data:`MAX_ENTRIES` (down to nine tenths of it, so
    that the next prune is far off), the oldest whole-corpus entries beyond
    :data:`MAX_GROUPS`, and pickles of old versions; never an entry of the group being
    loaded (a corpus of more files than MAX_ENTRIES keeps all of its entries).

    Only the group entries are stat'ed unless the folder holds more than MAX_ENTRIES."""
    names = os.listdir(folder_fd)
    groups = [name for name in names if name.endswith(".group" + _SUFFIX)]
    if len(groups) <= MAX_GROUPS and len(names) <= MAX_ENTRIES:
        for name in names:
            if name.endswith(".pickle"):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder_fd)
        return
    entries: list[tuple[int, str]] = []
    for name in names:
        if name in _USED:
            continue  # the group being loaded uses it: the oldest others go first
        if name.endswith(".pickle"):
            # An older harness's entry: never read now, so never kept.
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=folder_fd)
        elif name.endswith(_SUFFIX) and not name.startswith("."):
            with contextlib.suppress(OSError):
                entries.append((os.stat(name, dir_fd=folder_fd).st_mtime_ns, name))
    entries.sort()
    used = [name for name in names if name in _USED]
    in_use_groups = sum(name.endswith(".group" + _SUFFIX) for name in used)
    groups = [name for _, name in entries if name.endswith(".group" + _SUFFIX)]
    old = groups[: max(len(groups) + in_use_groups - MAX_GROUPS, 0)]
    stale = set(old)
    kept = [name for _, name in entries if name not in stale]
    if len(kept) + len(used) > MAX_ENTRIES:
        old += kept[: len(kept) + len(used) - int(MAX_ENTRIES * _PRUNE_TO)]
    for name in old:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder_fd)


__all__ = [
    "MAX_ENTRIES",
    "MAX_ENTRY_BYTES",
    "MAX_GROUPS",
    "PRUNE_EVERY",
    "cache_dir",
    "cached",
    "cached_group",
    "cached_index",
    "ci_environment",
    "context_key",
    "pin_group",
    "turned_off",
]
