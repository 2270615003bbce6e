"""Peak memory of the readers of reports, at the largest input their limits allow.

``report --html``, ``report --markdown``, ``report diff``, ``report merge`` and
``fuzz --merge`` read JSON reports of at most ``conformance.io.jsonsafe.MAX_JSON_BYTES``
bytes each. Each command runs as its own process, on reports made just under that
limit (or ``--mb``), and its peak resident memory (``ru_maxrss`` of the child) is shown
beside the size of its largest input and of all its inputs, as a ratio: the promise is
at most about 10 times the file for a report the harness wrote, and at most about 11
for one padded, in any shape the readers take, under keys no schema names (and a padding
denser than they take is refused at once).

The reports are real ones grown to size: a run report of the bundled corpus against the
reference (``--run-report``, else one is run), its cases copied under new ids; a fuzz
report of ``tests/fake_adapters/buggy_engine.py`` (``--fuzz-report``, else a 6-game
campaign is run), its findings copied under new keys. They are written compact (no
indentation), which puts the most values in the fewest bytes. The padded reports are
the same two reports with ``PADDING`` under a free key (the engine's handshake, whose
extras the schemas allow), grown to the same size. Run from the repository
root::

    PYTHONPATH=. python benchmarks/memory_bench.py
    PYTHONPATH=. python benchmarks/memory_bench.py --mb 32 --keep /tmp/bench --only html
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conformance.io.jsonsafe import MAX_JSON_BYTES

ROOT = Path(__file__).resolve().parents[1]
BUGGY = ROOT / "tests" / "fake_adapters" / "buggy_engine.py"

#: Runs ``argv`` as a child and prints the child's peak resident memory in KiB.
_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.stderr.write(done.stderr.decode(errors='replace')[-400:])\n"
)


def peak_rss(argv: list[str]) -> tuple[int, int]:
    """Exit code and peak resident bytes of ``python -m conformance *argv``."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "conformance", *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    code, kib = done.stdout.split()
    if int(code) not in (0, 1):
        sys.stderr.write(done.stderr)
    return int(code), int(kib) * 1024


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _write_grown(
    path: Path, document: dict[str, Any], field: str, copies: Iterator[Any], size: int
) -> int:
    """Write ``document`` with ``field`` filled from ``copies`` until the file is about
    ``size`` bytes; returns how many items went in."""
    marker = "\u0000MARK\u0000"
    shell = dict(document)
    shell[field] = marker
    head, tail = _compact(shell).split(json.dumps(marker), 1)
    budget = size - len(head.encode()) - len(tail.encode()) - 2
    written = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(head + "[")
        for item in copies:
            text = ("," if written else "") + _compact(item)
            piece = len(text.encode())
            if piece > budget:
                break
            out.write(text)
            budget -= piece
            written += 1
        out.write("]" + tail)
    return written


def grow_run_report(
    base: dict[str, Any], path: Path, size: int, shard: str | None, tag: str
) -> int:
    """A run report of about ``size`` bytes: ``base``'s cases again and again, new ids."""
    cases = base["cases"]

    def copies() -> Iterator[Any]:
        n = 0
        while True:
            for case in cases:
                item = dict(case)
                item["id"] = f"{case['id']}~{tag}{n}"
                yield item
            n += 1

    document = copy.deepcopy({k: v for k, v in base.items() if k != "cases"})
    document["cases"] = []
    if shard is not None:
        document["header"]["shard"] = shard
    count = _write_grown(path, document, "cases", copies(), size)
    # The summary counts what was written, so no reader has to recount.
    statuses: dict[str, int] = {}
    for i in range(count):
        status = cases[i % len(cases)]["status"]
        statuses[status] = statuses.get(status, 0) + 1
    text = path.read_text(encoding="utf-8")
    old = _compact(base["summary"])
    summary = {k: statuses.get(k, 0) for k in base["summary"] if k != "total"}
    summary["total"] = count
    path.write_text(text.replace(old, _compact(summary), 1), encoding="utf-8")
    return count


def grow_fuzz_report(base: dict[str, Any], path: Path, size: int, index: int, of: int) -> int:
    """A fuzz shard report of about ``size`` bytes: ``base``'s findings under new keys."""
    findings = base["findings"]

    def copies() -> Iterator[Any]:
        n = 0
        while True:
            for finding in findings:
                item = dict(finding)
                item["key"] = f"{finding['key']} #{n}"
                item["summary"] = f"{finding['summary']} #{n}"
                yield item
            n += 1

    document = copy.deepcopy(base)
    document["campaign"]["shards"] = [{"index": index, "count": of}]
    return _write_grown(path, document, "findings", copies(), size)


#: Padding just within the readers' limits on density (conformance/io/jsonsafe.py:
#: DENSITY, BYTES_PER_NUMBER), in its costliest shapes, and one shape past them: each an
#: item maker, the comma before it included.
PADDING: dict[str, Any] = {
    "distinct keys": lambda i: "," + f'"{i:08x}":0.5'.ljust(15),
    "distinct strings": lambda i: "," + f'"{i:x}"'.ljust(7),
    "arrays of numbers": lambda i: "," + "[0.5,1.5,2.5,3.5]".ljust(33),
    "objects of numbers": lambda i: "," + '{"a":0.5,"b":1.5,"c":2.5}'.ljust(49),
    "empty lists (refused)": lambda i: ",[]",
}


def write_padded(base: dict[str, Any], path: Path, size: int, shape: str, fuzz: bool) -> None:
    """``base`` with about ``size`` bytes of ``shape`` under a key no schema names: the
    engine's handshake (``header.engine`` of a run report, ``engine`` of a fuzz report)."""
    marker = "\u0000PAD\u0000"
    document = copy.deepcopy(base)
    (document["engine"] if fuzz else document["header"]["engine"])["pad"] = marker
    head, tail = _compact(document).split(json.dumps(marker), 1)
    opening, closing = ("{", "}") if shape == "distinct keys" else ("[", "]")
    budget = size - len(head.encode()) - len(tail.encode()) - 2
    make = PADDING[shape]
    with path.open("w", encoding="utf-8") as out:
        out.write(head + opening)
        count, written = 0, 0
        while True:
            items = [make(i) for i in range(count, count + 10_000)]
            if count == 0:
                items[0] = items[0][1:]  # no comma before the first item
            piece = "".join(items)
            if written + len(piece) > budget:  # the last piece item by item, within budget
                for item in items:
                    if written + len(item) > budget:
                        break
                    out.write(item)
                    written += len(item)
                break
            out.write(piece)
            written += len(piece)
            count += 10_000
        out.write(closing + tail)


def base_reports(args: argparse.Namespace, work: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run report and the fuzz report to grow (made when not given)."""
    run_path = Path(args.run_report) if args.run_report else work / "base-run.json"
    if not args.run_report:
        subprocess.run(
            [sys.executable, "-m", "conformance", "run", "-q", "--json", str(run_path)],
            check=False,
            stdout=subprocess.DEVNULL,
        )
    fuzz_path = Path(args.fuzz_report) if args.fuzz_report else work / "base-fuzz.json"
    if not args.fuzz_report:
        subprocess.run(
            [
                *(sys.executable, "-m", "conformance", "fuzz", "--games", "6", "--shard", "1/2"),
                *("--adapter", f"{sys.executable} {BUGGY}", "--out", str(work / "fuzz-out")),
                *("--json", str(fuzz_path)),
            ],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return (
        json.loads(run_path.read_text(encoding="utf-8")),
        json.loads(fuzz_path.read_text(encoding="utf-8")),
    )


def main() -> None:
    """Make the reports, measure each reader, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, help="size of each input in MiB (default: the limit)")
    parser.add_argument("--run-report", metavar="FILE", help="the run report to grow")
    parser.add_argument("--fuzz-report", metavar="FILE", help="the fuzz report to grow")
    parser.add_argument("--keep", metavar="DIR", help="make the reports here and keep them")
    parser.add_argument(
        "--only", action="append", metavar="WORD", help="measure only commands naming WORD"
    )
    args = parser.parse_args()
    size = int(args.mb * 2**20) if args.mb else MAX_JSON_BYTES - 2**16
    work = Path(args.keep or tempfile.mkdtemp(prefix="memory-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        run_base, fuzz_base = base_reports(args, work)
        run_a, run_b = work / "run-a.json", work / "run-b.json"
        shard_1, shard_2 = work / "shard-1.json", work / "shard-2.json"
        fuzz_1, fuzz_2 = work / "fuzz-1.json", work / "fuzz-2.json"

        def made(path: Path) -> bool:
            # Reports kept (--keep) from a run at the same size are used again.
            return path.exists() and abs(path.stat().st_size - size) < 2**20

        if not made(run_a):
            grow_run_report(run_base, run_a, size, None, "a")
        if not made(run_b):
            shutil.copyfile(run_a, run_b)
        for path, shard, tag in ((shard_1, "1/2", "s"), (shard_2, "2/2", "t")):
            if not made(path):
                grow_run_report(run_base, path, size, shard, tag)
        for path, index in ((fuzz_1, 1), (fuzz_2, 2)):
            if not made(path):
                grow_fuzz_report(fuzz_base, path, size, index, 2)
        rows = [
            ("report --html", ["report", str(run_a), "--html", str(work / "r.html")], [run_a]),
            (
                "report --markdown",
                ["report", str(run_a), "--markdown", str(work / "r.md")],
                [run_a],
            ),
            ("report diff", ["report", "diff", str(run_a), str(run_b)], [run_a, run_b]),
            (
                "report merge (2 shards)",
                ["report", "merge", str(shard_1), str(shard_2), "--output", str(work / "m.json")],
                [shard_1, shard_2],
            ),
            (
                "fuzz --merge (2 shards)",
                [
                    *("fuzz", "--merge", str(fuzz_1), str(fuzz_2)),
                    *("--out", str(work / "fuzz-out"), "--json", str(work / "f.json")),
                ],
                [fuzz_1, fuzz_2],
            ),
        ]
        for number, shape in enumerate(PADDING):
            padded = work / f"padded-run-{number}.json"
            shard = work / f"padded-fuzz-{number}.json"
            if not made(padded):
                write_padded(run_base, padded, size, shape, fuzz=False)
            if not made(shard):
                write_padded(fuzz_base, shard, size, shape, fuzz=True)
            rows += [
                (
                    f"report --html, {shape}",
                    ["report", str(padded), "--html", str(work / "p.html")],
                    [padded],
                ),
                (
                    f"report merge, {shape}",
                    ["report", "merge", str(padded), "--output", str(work / "pm.json")],
                    [padded],
                ),
                (
                    f"fuzz --merge, {shape}",
                    ["fuzz", "--merge", str(shard), "--out", str(work / "padded-out")],
                    [shard],
                ),
            ]
        print(
            f"limit per file: {MAX_JSON_BYTES / 2**20:.0f} MiB; inputs made: {size / 2**20:.1f} MiB"
        )
        columns = ("exit", 5), ("peak MiB", 10), ("largest MiB", 13), ("x largest", 11)
        print(f"{'command':<44}" + "".join(f"{n:>{w}}" for n, w in columns) + f"{'x all':>8}")
        for name, argv, inputs in rows:
            if args.only and not any(word in name for word in args.only):
                continue
            code, peak = peak_rss(argv)
            sizes = [p.stat().st_size for p in inputs]
            print(
                f"{name:<44}{code:>5}{peak / 2**20:>10.0f}{max(sizes) / 2**20:>13.1f}"
                f"{peak / max(sizes):>11.1f}{peak / sum(sizes):>8.1f}"
            )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
