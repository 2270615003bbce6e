"""Docs that cannot drift: every sample output in README.md and docs/ comes from a real run,
and every count they state from the corpus.

Like pytest's regendoc, a sample block is marked in the markdown by a comment on the line
before its fence::

    <!-- regendoc: quickstart-run -->
    ```text
    331 cases: 101 pass, 230 unsupported in 0.1 s; graded 265/3589 checks (...)
    ```

and :data:`SAMPLES` (tests/doc_samples.py) says how to produce it: the command the page shows,
run in a scratch folder as a reader would run it, and which of its lines the page keeps
(the others become one ``…`` line). A count in running text (``686 YAML cases``) is a
:class:`Count`: a pattern on one page whose numbers a function computes from the corpus.

``tests/test_regendoc.py`` fails when a block or a count no longer matches. To regenerate
every block and count after a change of output or corpus (as the lead does after a merge)::

    PYTHONPATH=$PWD python3 -m tests.regendoc --write          # every page
    PYTHONPATH=$PWD python3 -m tests.regendoc --write quickstart-run   # one sample

then read ``git diff`` before committing: a sample is the page's promise, and prose next to
it may need the same change. Without ``--write`` it only reports what differs (exit 1).

What varies from run to run is never compared: durations (``in 0.1 s``, ``in 2.41s``, and
the ``=`` padding of pytest's summary around them), and the scratch and checkout folders,
which are written as ``…``.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

from conformance.run.budget import COST_VARIABLE
from tests.paths import ROOT

#: The marker of a sample block, on the line before its fence.
MARKER = re.compile(r"^\s*<!-- regendoc: (?P<name>[a-z0-9-]+) -->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)```")
#: Durations, which differ from run to run: compared as equal whatever their figure.
DURATION = re.compile(r"(?<=\bin )\d+(?:\.\d+)?(?= ?s\b)")
#: The line that stands for output lines a page leaves out.
ELIDED = "…"
#: Each page whose samples and counts are checked.
PAGES = (
    "README.md",
    *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")),
)


class SampleError(Exception):
    """A sample's command did not behave as the page says (its exit code, its output)."""


@dataclass(frozen=True)
class Sample:
    """One marked block: its page and how to produce its text in a scratch folder."""

    name: str
    page: str
    produce: Callable[[Path], str]
    #: Whether producing it takes long enough to leave to ``pytest -m slow``.
    slow: bool = False


@dataclass(frozen=True)
class Count:
    """Numbers stated in a page's prose: ``pattern``'s groups, in order, must read ``values()``.

    ``pattern`` must match the page at least once; every match is checked (and rewritten).
    """

    page: str
    pattern: str
    values: Callable[[], Sequence[int | str]]
    #: Whether computing it takes a run (left to ``pytest -m slow`` with the long samples).
    slow: bool = False

    def expected(self) -> list[str]:
        """The numbers the page should state, as text."""
        return [str(v) for v in self.values()]


@dataclass(frozen=True)
class Block:
    """A marked block in a page: its sample name, content lines and their indent."""

    name: str
    start: int  # index of the first content line
    stop: int  # index of the closing fence
    indent: str
    text: str


# --- running a page's command as a reader would -----------------------------------------------


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a sample's command: this checkout first on the path, no pytest
    state of the session producing it, a fixed terminal width, and the explanation's time
    bound lifted (conformance/run/budget.py): a hint a page shows is then proved however
    loaded the machine, where the bound could stop the proof first (its cost is measured by
    benchmarks/causes_bench.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["PYTHONPATH"] = str(ROOT)
    env["COLUMNS"] = "80"
    env["NO_COLOR"] = "1"
    env[COST_VARIABLE] = "10000"
    env.pop("FORCE_COLOR", None)
    env.pop("PY_COLORS", None)
    env.update(extra or {})
    return env


def argv_of(command: str) -> list[str]:
    """A page's command as argv: the console scripts it names run on this interpreter."""
    argv = shlex.split(command)
    if argv[0] == "carioca-conformance":
        return [sys.executable, "-m", "conformance", *argv[1:]]
    if argv[0] == "pytest":
        return [sys.executable, "-m", "pytest", *argv[1:]]
    if argv[0] in {"python", "python3"}:
        return [sys.executable, *argv[1:]]
    return argv


def run(command: str, cwd: Path, *, code: int | None = 0, stdin: str | None = None) -> str:
    """Run a page's ``command`` in ``cwd`` and return its standard output.

    :raises SampleError: when it does not exit with ``code`` (the page's promise; ``None``
        when the page promises none).
    """
    done = subprocess.run(
        argv_of(command),
        cwd=cwd,
        env=environment(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if code is not None and done.returncode != code:
        raise SampleError(
            f"`{command}` in {cwd} exited {done.returncode}, not {code}:\n"
            f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )
    return done.stdout


def excerpt(text: str, *keep: str | tuple[str, str]) -> str:
    """The lines of ``text`` a page keeps; each run of lines left out becomes one ``…``.

    A string keeps every line it matches (``re.search``); a pair ``(start, stop)`` keeps
    each stretch from a line matching ``start`` up to the line before one matching ``stop``.
    """
    lines = text.splitlines()
    kept = [False] * len(lines)
    for spec in keep:
        if isinstance(spec, str):
            hits = [i for i, line in enumerate(lines) if re.search(spec, line)]
        else:
            hits = []
            inside = False
            for i, line in enumerate(lines):
                if not inside and re.search(spec[0], line):
                    inside = True
                elif inside and re.search(spec[1], line):
                    inside = False
                if inside:
                    hits.append(i)
        if not hits:
            raise SampleError(f"no line of the output matches {spec!r}:\n{text}")
        for i in hits:
            kept[i] = True
    out: list[str] = []
    for i, line in enumerate(lines):
        if kept[i]:
            out.append(line)
        elif not out or out[-1] != ELIDED:
            out.append(ELIDED)
    return "\n".join(out)


def scrub(text: str, *folders: Path) -> str:
    """``text`` with each of ``folders`` (and the checkout) written as ``…``, and trailing
    blanks and blank edge lines dropped."""
    for folder in sorted({*folders, ROOT}, key=lambda p: -len(str(p))):
        text = text.replace(str(folder), ELIDED)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def comparable(text: str) -> str:
    """``text`` with what varies between runs made equal: durations, and the width of the
    ``=`` rules pytest pads its summary line with (it changes with the duration's)."""
    return re.sub(r"={2,}", "==", DURATION.sub("T", text))


# --- reading and writing marked blocks --------------------------------------------------------


def blocks(page_text: str) -> list[Block]:
    """The marked sample blocks of a page, in order.

    :raises SampleError: on a marker not followed by a fenced block.
    """
    lines = page_text.split("\n")
    found = []
    for i, line in enumerate(lines):
        marker = MARKER.match(line)
        if not marker:
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if fence is None:
            raise SampleError(f"regendoc marker {marker['name']!r} is not followed by a fence")
        indent = fence["indent"]
        stop = next(
            (j for j in range(i + 2, len(lines)) if lines[j].strip() == "```"),
            None,
        )
        if stop is None:
            raise SampleError(f"the block of {marker['name']!r} is not closed")
        body = [
            line[len(indent) :] if line.startswith(indent) else line for line in lines[i + 2 : stop]
        ]
        found.append(Block(marker["name"], i + 2, stop, indent, "\n".join(body)))
    return found


def rewrite_block(page_text: str, block: Block, text: str) -> str:
    """``page_text`` with ``block``'s content replaced by ``text`` (indented as it was)."""
    lines = page_text.split("\n")
    body = [f"{block.indent}{line}" if line else "" for line in text.split("\n")]
    return "\n".join([*lines[: block.start], *body, *lines[block.stop :]])


def count_mismatches(page_text: str, count: Count) -> list[str]:
    """What is wrong with ``count`` on its page: no match, or numbers that differ."""
    matches = list(re.finditer(count.pattern, page_text))
    if not matches:
        return [f"{count.page}: nothing matches {count.pattern!r}"]
    want = count.expected()
    return [
        f"{count.page}: {m[0]!r} states {list(m.groups())}, the corpus says {want}"
        for m in matches
        if list(m.groups()) != want
    ]


def rewrite_count(page_text: str, count: Count) -> str:
    """``page_text`` with every match of ``count`` stating the computed numbers."""
    want = count.expected()

    def fix(m: re.Match[str]) -> str:
        out, at = [], m.start()
        for g, value in enumerate(want, start=1):
            out.append(page_text[at : m.start(g)])
            out.append(value)
            at = m.end(g)
        out.append(page_text[at : m.end()])
        return "".join(out)

    return re.sub(count.pattern, fix, page_text)


# --- the command line -------------------------------------------------------------------------


def produce(sample: Sample) -> str:
    """The text ``sample``'s block should hold, from a run in a fresh scratch folder."""
    with TemporaryDirectory(prefix="regendoc-") as scratch:
        folder = Path(scratch).resolve()
        return scrub(sample.produce(folder), folder)


def check_samples(
    samples: Iterable[Sample], *, write: bool, echo: Callable[[str], None] = print
) -> list[str]:
    """Produce each sample, compare it with its page's block; with ``write``, rewrite it.

    :returns: one message per sample that differs (before any rewrite).
    """
    problems = []
    for sample in samples:
        path = ROOT / sample.page
        page = path.read_text(encoding="utf-8")
        found = [b for b in blocks(page) if b.name == sample.name]
        if len(found) != 1:
            problems.append(f"{sample.page}: {len(found)} blocks marked {sample.name!r}")
            continue
        try:
            fresh = produce(sample)
        except SampleError as error:
            problems.append(f"{sample.page}, sample {sample.name}: {error}")
            continue
        if comparable(found[0].text) == comparable(fresh):
            continue
        diff = "\n".join(
            difflib.unified_diff(
                found[0].text.splitlines(), fresh.splitlines(), "page", "run", lineterm=""
            )
        )
        problems.append(f"{sample.page}, sample {sample.name}:\n{diff}")
        if write:
            path.write_text(rewrite_block(page, found[0], fresh), encoding="utf-8")
            echo(f"rewrote {sample.page}: {sample.name}")
    return problems


def check_counts(
    counts: Iterable[Count], *, write: bool, echo: Callable[[str], None] = print
) -> list[str]:
    """Compare each count with its page; with ``write``, rewrite the numbers that differ."""
    problems = []
    for count in counts:
        path = ROOT / count.page
        page = path.read_text(encoding="utf-8")
        wrong = count_mismatches(page, count)
        problems.extend(wrong)
        if write and wrong and re.search(count.pattern, page):
            path.write_text(rewrite_count(page, count), encoding="utf-8")
            echo(f"rewrote {count.page}: {count.pattern}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tests.regendoc [--write] [SAMPLE...]``: check (or rewrite) the docs."""
    from tests.doc_samples import COUNTS, SAMPLES

    parser = argparse.ArgumentParser(
        prog="python -m tests.regendoc", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--write", action="store_true", help="rewrite what differs")
    parser.add_argument(
        "names", nargs="*", help="only these samples (default: every sample and count)"
    )
    args = parser.parse_args(argv)
    unknown = set(args.names) - {s.name for s in SAMPLES}
    if unknown:
        parser.error(f"no such sample: {', '.join(sorted(unknown))}")
    chosen = [s for s in SAMPLES if not args.names or s.name in args.names]
    problems = check_samples(chosen, write=args.write)
    if not args.names:
        problems += check_counts(COUNTS, write=args.write)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} difference(s)" + (" rewritten" if args.write else ""))
    return 1 if problems and not args.write else 0


if __name__ == "__main__":
    # Run as the module tests/doc_samples.py imports, so that its errors are this one's.
    from tests import regendoc

    sys.exit(regendoc.main())
