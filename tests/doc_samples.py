"""What README.md and docs/ show, and how a real run produces it (tests/regendoc.py reads these).

Each :class:`Sample` runs the command its page shows, in a scratch folder laid out as the
page tells a reader to lay it out (the quickstart's adapter copied next to nothing else, a
scratch pytest project), and keeps the lines the page shows. Each :class:`Count` computes a
number the prose states from the corpus (or from the run a sample makes).
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from functools import cache
from pathlib import Path

from conformance import __version__
from conformance.scenarios import Scenario, load_corpus
from tests.paths import ROOT
from tests.regendoc import ELIDED, Count, Sample, SampleError, excerpt, run

QUICKSTART = ROOT / "docs" / "quickstart"
#: The quickstart's deliberate fault (step 5): a joker left in hand scored 30, not 50.
JOKER_50 = "50 if card is None"
JOKER_30 = "30 if card is None"


def shown(page: str, command: str) -> str:
    """``command`` as the page shows it (continuation lines joined).

    :raises SampleError: when the page does not show it, so a test never runs a command
        the reader is not told to run.
    """
    text = re.sub(r"\\\n\s*", "", (ROOT / page).read_text(encoding="utf-8"))
    if command not in text:
        raise SampleError(f"{page} does not show the command {command!r}")
    return command


def quickstart_folder(scratch: Path, *, joker: int = 50) -> Path:
    """The quickstart's Python adapter copied into ``scratch`` (step 2), with step 5's fault
    when ``joker`` is 30."""
    source = (QUICKSTART / "adapter.py").read_text(encoding="utf-8")
    if joker != 50:
        if JOKER_50 not in source:
            raise SampleError(f"docs/quickstart/adapter.py no longer has {JOKER_50!r}")
        source = source.replace(JOKER_50, JOKER_30)
    (scratch / "adapter.py").write_text(source, encoding="utf-8")
    return scratch


# --- docs/quickstart.md -----------------------------------------------------------------------

QS = "docs/quickstart.md"
QS_RUN = 'carioca-conformance run --adapter "python3 adapter.py" --profile argentine'


def _hello(scratch: Path) -> str:
    quickstart_folder(scratch)
    out = run("python3 adapter.py", scratch, stdin='{"id":1,"op":"hello","protocol":1}\n')
    return out.splitlines()[0]


def _smoke(scratch: Path) -> str:
    quickstart_folder(scratch)
    return run(shown(QS, 'carioca-conformance smoke --adapter "python3 adapter.py"'), scratch)


def _run(scratch: Path) -> str:
    quickstart_folder(scratch)
    return excerpt(run(shown(QS, QS_RUN), scratch), r"^\d+ cases: ")


def _failure(scratch: Path) -> str:
    quickstart_folder(scratch, joker=30)
    out = run(QS_RUN, scratch, code=1)
    return excerpt(out, (r"^JOKER ", r"^[A-Z]+ — "), (r"^Causes", r"^$"), r"^\d+ cases: ")


def _declared(scratch: Path) -> str:
    adapter = quickstart_folder(scratch, joker=30) / "adapter.py"
    declared = '"rulings": {"VARIANT-01": "thirty"}'
    shown(QS, declared)
    source = adapter.read_text(encoding="utf-8")
    if '"rulings": {}' not in source:
        raise SampleError("docs/quickstart/adapter.py no longer declares empty rulings")
    adapter.write_text(source.replace('"rulings": {}', declared), encoding="utf-8")
    return excerpt(run(QS_RUN, scratch), (r"^Rulings the engine", r"^$"), r"^\d+ cases: ")


def _failure_verbose(scratch: Path) -> str:
    quickstart_folder(scratch, joker=30)
    out = run(shown(QS, QS_RUN + " -v"), scratch, code=1)
    case = r"^  [A-Z_]+ +cc-"
    return excerpt(out, (r"^  FAIL +cc-0204 ", case))


def _laws(scratch: Path) -> str:
    quickstart_folder(scratch)
    out = run(shown(QS, QS_RUN + " --properties"), scratch)
    return excerpt(out, r"^Laws over", r"^\d+ cases: ")


def _ci(scratch: Path) -> str:
    quickstart_folder(scratch)
    run(shown(QS, QS_RUN + " --write-expectations expected.yaml"), scratch)
    page = (ROOT / QS).read_text(encoding="utf-8")
    gate = re.search(MIN_GRADED, page)
    if gate is None:
        raise SampleError(f"{QS} no longer gives step 7's --min-graded")
    ci = (
        QS_RUN + " --json report.json --junit junit.xml --expectations expected.yaml"
        f" --min-graded {gate[1]}"
    )
    out = run(shown(QS, ci), scratch)
    for written in ("expected.yaml", "report.json", "junit.xml"):
        if not (scratch / written).is_file():
            raise SampleError(f"step 7 wrote no {written}")
    return excerpt(out, r"^\d+ cases: ")


#: The share step 7's CI command asks of the quickstart adapter (which claims `melds` only):
#: the hundredths just under what it earns (a Count keeps the page's figure so).
MIN_GRADED = r"--min-graded (0\.0\d)\b"


# --- docs/pytest-plugin.md ---------------------------------------------------------------------

PLUGIN = "docs/pytest-plugin.md"


def _version_and_check(scratch: Path) -> str:
    parts = []
    for command in ("carioca-conformance --version", "carioca-conformance check"):
        out = run(command, scratch)
        parts.append(f"$ {command}\n{out.rstrip()}")
    # The corpus folder is where pip put the package: the page names only its end.
    return re.sub(r"\(corpus /[^)]*\)", "(corpus …)", "\n".join(parts))


def plugin_project(scratch: Path) -> Path:
    """A scratch engine project: the quickstart adapter and a pyproject.toml that names it."""
    quickstart_folder(scratch)
    toml = '[tool.pytest.ini_options]\ncarioca_adapter = "python3 adapter.py"\n'
    shown(PLUGIN, 'carioca_adapter = "python3 adapter.py"')
    (scratch / "pyproject.toml").write_text(toml, encoding="utf-8")
    return scratch


def _pytest(scratch: Path) -> str:
    out = run("pytest", plugin_project(scratch))
    first = re.escape(first_file())
    return "$ pytest\n" + excerpt(out, r"^collected ", rf"^{first} ", r"^carioca: ", r"^=+ .* in ")


def _pytest_collect(scratch: Path) -> str:
    out = run(shown(PLUGIN, "pytest --collect-only -q"), plugin_project(scratch))
    first = re.escape(first_file())
    return "$ pytest --collect-only -q\n" + excerpt(out, rf"^{first}::", r"^\d+ tests collected")


@cache
def corpus() -> tuple[Scenario, ...]:
    """The checkout's corpus, loaded once."""
    loaded = load_corpus([ROOT / "scenarios"])
    if loaded.errors:
        raise SampleError(f"the corpus does not load: {loaded.errors[0]}")
    return tuple(loaded.scenarios)


def argentine() -> list[Scenario]:
    """The Argentine slice, the quickstart's profile."""
    return [s for s in corpus() if "argentine" in s.profiles]


def first_file() -> str:
    """The first scenario file of the corpus, as pytest names it (relative to the rootdir)."""
    return (
        "scenarios/" + Path(corpus()[0].path).resolve().relative_to(ROOT / "scenarios").as_posix()
    )


def _node_id() -> tuple[str, str, str]:
    """The page's example node id: the first case of the runs' shape file."""
    name = "scenarios/melds/run-shape.yaml"
    cases = [s.id for s in corpus() if Path(s.path).resolve() == ROOT / name]
    if not cases:
        raise SampleError(f"{name} holds no case: give docs/pytest-plugin.md another example")
    return (name, cases[0], cases[0])


# --- README.md --------------------------------------------------------------------------------


def _readme_causes(scratch: Path) -> str:
    quickstart_folder(scratch, joker=30)
    return excerpt(run(QS_RUN, scratch, code=1), (r"^Causes", r"^$"))


@cache
def quickstart_graded() -> tuple[str, str]:
    """What the quickstart adapter's run grades: ``(graded, checks)``."""
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as scratch:
        out = run(QS_RUN, quickstart_folder(Path(scratch)))
    found = re.search(r"graded (\d+)/(\d+) checks", out)
    if found is None:
        raise SampleError(f"the quickstart run names no graded checks:\n{out}")
    return found[1], found[2]


def per_profile() -> tuple[int, ...]:
    """Cases per profile, in the README's order."""
    counts = Counter(p for s in corpus() for p in s.profiles)
    return tuple(counts[p] for p in ("argentine", "chilean", "pagat", "perla"))


def mutant_count() -> int:
    """The rule mutants of tests/mutants (every profile's)."""
    from tests.mutants.later import BY_PROFILE  # noqa: F401  (registers the later profiles)
    from tests.mutants.mutants import MUTANTS

    return len(MUTANTS)


def files_count() -> int:
    """The corpus's YAML files."""
    return len({s.path for s in corpus()})


# --- docs/protocol.md -------------------------------------------------------------------------


def _protocol_session(scratch: Path) -> str:
    from tests.regendoc import blocks

    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    (block,) = [b for b in blocks(page) if b.name == "protocol-session"]
    sent = [line[2:] for line in block.text.splitlines() if line.startswith("> ")]
    got = run(
        "python3 -m reference.adapter --profiles argentine", scratch, stdin="\n".join(sent) + "\n"
    )
    answers = got.splitlines()
    if len(answers) != len(sent):
        raise SampleError(f"{len(sent)} requests, {len(answers)} answers:\n{got}")
    return "\n".join(f"> {s}\n< {a}" for s, a in zip(sent, answers, strict=True))


def _hostile(scratch: Path) -> str:
    # The reference behind a proxy that lays a run lay-off without `end` (tests/fake_adapters).
    proxy = ROOT / "tests" / "fake_adapters" / "lenient_proxy.py"
    out = run(
        f'carioca-conformance smoke --hostile --adapter "python3 {proxy} --bugs end"',
        scratch,
        code=None,
    )
    return excerpt(out, r"^FAIL hostile lay_off-without-end:")


def _audit_graded(scratch: Path) -> str:
    command = shown(
        "docs/adding-scenarios.md", "carioca-conformance audit --graded --profile perla"
    )
    lines = run(command, scratch, code=None).splitlines()
    return "\n".join([*lines[:5], ELIDED])


SAMPLES: tuple[Sample, ...] = (
    Sample("quickstart-hello", QS, _hello),
    Sample("quickstart-smoke", QS, _smoke),
    Sample("quickstart-run", QS, _run),
    Sample("quickstart-failure", QS, _failure),
    Sample("quickstart-failure-verbose", QS, _failure_verbose),
    Sample("quickstart-declared", QS, _declared),
    Sample("quickstart-laws", QS, _laws),
    Sample("quickstart-ci", QS, _ci),
    Sample("plugin-check", PLUGIN, _version_and_check),
    Sample("plugin-pytest", PLUGIN, _pytest),
    Sample("plugin-collect", PLUGIN, _pytest_collect),
    Sample("readme-causes", "README.md", _readme_causes),
    Sample("protocol-session", "docs/protocol.md", _protocol_session),
    Sample("adapter-hostile", "docs/writing-an-adapter.md", _hostile),
    Sample("audit-graded", "docs/adding-scenarios.md", _audit_graded, slow=True),
)


def _share() -> int:
    graded, checks = quickstart_graded()
    return int(100 * int(graded) / int(checks))


def _gate() -> str:
    graded, checks = quickstart_graded()
    return f"{int(100 * int(graded) / int(checks)) / 100:.2f}"


def _not_melds() -> int:
    return sum(s.level != "melds" for s in argentine())


def _melds_for_engine_runs() -> int:
    return sum(
        s.level == "melds" and (s.interface or {}).get("run_order") == "engine" for s in argentine()
    )


COUNTS: tuple[Count, ...] = (
    Count("README.md", r"the corpus \((\d+) YAML cases\)", lambda: [len(corpus())]),
    Count(
        "README.md",
        r"the corpus: (\d+) YAML cases, .*"
        r"\(argentine (\d+), chilean (\d+), pagat (\d+), perla (\d+)\)",
        lambda: [len(corpus()), *per_profile()],
    ),
    Count("README.md", r"(\d+) single-rule mutants", lambda: [mutant_count()]),
    Count(
        "README.md", r"`graded (\d+)/(\d+) checks` for the quickstart", quickstart_graded, slow=True
    ),
    Count(QS, r"The other (\d+) cases need", lambda: [_not_melds()]),
    Count(
        QS, r"but the (\d+) written for engines that arrange", lambda: [_melds_for_engine_runs()]
    ),
    Count(QS, r"graded on (\d+)%\s+of the Argentine checks", lambda: [_share()], slow=True),
    Count(QS, MIN_GRADED, lambda: [_gate()], slow=True),
    Count(
        PLUGIN, r"like\s+`(scenarios/[a-z0-9/-]+\.yaml)::(cc-\d+)`: `pytest -k (cc-\d+)`", _node_id
    ),
    Count(PLUGIN, r"carioca_conformance-(\d+\.\d+\.\d+)", lambda: [__version__]),
    Count(PLUGIN, r"carioca-conformance (\d+\.\d+\.\d+) \(corpus", lambda: [__version__]),
    Count(
        "docs/adding-scenarios.md",
        r"`(\d+) scenarios in (\d+) files: OK",
        lambda: [len(corpus()), files_count()],
    ),
)


def copy_adapter(name: str, to: Path) -> Path:
    """Copy one of the quickstart adapters (``adapter.py``, ``adapter.js``) into ``to``."""
    return Path(shutil.copy(QUICKSTART / name, to / name))
