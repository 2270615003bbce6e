"""The engine and the reference side by side (conformance/fuzz/pair.py): declared
rulings and interface choices are never divergences; undeclared ones are."""

from __future__ import annotations

import pytest

from tests.conformance.fuzzkit import (
    HOUSE,
    PROXY,
    REFERENCE,
    ROOT,
    run_fuzz,
)

#: An engine that answers is all these tests need: the reference answers in-process
#: (tests/adapters.py); the tests of what its process does run it as a process.
pytestmark = pytest.mark.usefixtures("reference_in_process")

#: A seed and game at which the undeclared interface choice shows (game 7 of seed 3).
SEED_UNDECLARED, GAME_UNDECLARED = 3, 7


def test_the_reference_with_house_rulings_against_itself_finds_nothing() -> None:
    # The engine declares its rulings; the reference is configured with them.
    argv = [*REFERENCE, "--ruling", "VARIANT-01=thirty", "--ruling", "DISPUTE-31=at_least"]
    result = run_fuzz(argv, games=3)
    assert result.rulings["VARIANT-01"] == "thirty"
    assert result.findings == []


@pytest.mark.parametrize(
    "flags",
    [
        ["--own-order", "--own-ends"],
        ["--no-dealer", "--players", "3"],
        ["--unsupported", "load_state"],
        ["--unsupported", "swap_joker", "--message", "no"],
    ],
    ids=["arranges-runs", "no-dealer-3-players", "deals-only", "no-swap"],
)
def test_interface_choices_are_never_divergences(flags: list[str]) -> None:
    result = run_fuzz([*PROXY, *flags], games=3)
    assert result.findings == [], [f.divergence.mismatches for f in result.findings]


def test_an_undeclared_interface_choice_is_found() -> None:
    # Picking the lay-off end without saying so is a divergence (docs/protocol.md §2).
    result = run_fuzz(
        [*PROXY, "--own-ends", "--undeclared"],
        games=GAME_UNDECLARED + 1,
        seed=SEED_UNDECLARED,
        only_games=(GAME_UNDECLARED,),
    )
    assert result.findings


def test_a_deal_only_engine_is_fuzzed_from_decks() -> None:
    result = run_fuzz([*PROXY, "--unsupported", "load_state"], games=2)
    assert "load_state" in result.unsupported_ops
    assert result.steps > 100
    # Its scenes are dealt from decks too (no built state is sent).
    assert result.events.get("scene: deal", 0) > 0
    assert not any(k in result.events for k in ("scene: closing", "scene: run ends"))


def test_the_fuzzer_reads_declarations_only_through_the_shared_view() -> None:
    # No judge reads a declaration on its own. The handshake is read twice: to
    # build the Declarations (conformance/adapter/declarations.py) and to show it in the report.
    package = ROOT / "conformance" / "fuzz"
    uses = sorted(
        f"{path.name}: {line.strip()}"
        for path in package.glob("*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if ".handshake" in line or "hs." in line
    )
    assert uses == [
        "campaign.py: engine=pair.handshake.as_dict(),",
        "pair.py: hs = self.engine.handshake",
        "pair.py: self.handshake: Handshake = hs.for_profile(options.profile)",
    ]


# --------------------------------------------------------------------------- the protocol's leeway


@pytest.mark.parametrize(
    ("flag", "game", "event"),
    [
        # docs/protocol.md §6: a recycled stock's order (so the card drawn from it).
        ("--recycle-order", 1, "recycle"),
        # §2 unmodelled dealer: who moves first in a deal reads the dealer.
        ("--no-dealer", 0, "next_deal"),
        # §2 run_order engine: where its jokers stand, and so where a card fits.
        ("--jokers-low", 6, "engine's reading"),
    ],
)
def test_what_the_protocol_leaves_to_the_engine_is_never_a_divergence(
    flag: str, game: int, event: str
) -> None:
    result = run_fuzz([*HOUSE, flag], games=game + 1, only_games=(game,))
    assert result.events.get(event, 0) > 0, result.events  # the leeway was used
    assert result.findings == [], [f.divergence.mismatches for f in result.findings]


@pytest.mark.parametrize(
    ("flag", "game", "fields"),
    [("--no-dealer", 0, {"dealer", "turn"}), ("--jokers-low", 1, {"table"})],
)
def test_the_same_behaviour_undeclared_is_found(flag: str, game: int, fields: set[str]) -> None:
    result = run_fuzz([*HOUSE, flag, "--undeclared"], games=game + 1, only_games=(game,))
    # A summary names the fields, then the values that differ: ``turn (turn: 1 → 0)``.
    found = {
        field
        for f in result.findings
        for field in f.divergence.summary.removeprefix("state differs in ")
        .split(" (", 1)[0]
        .split(", ")
    }
    assert found & fields, found


def test_every_leeway_at_once_in_another_profile_is_never_a_divergence() -> None:
    flags = ["--recycle-order", "--no-dealer", "--jokers-low"]
    result = run_fuzz([*HOUSE, *flags], games=3, profile="pagat")
    assert result.findings == [], [f.divergence.mismatches for f in result.findings]


@pytest.mark.parametrize("profile", ["chilean", "perla"])
def test_the_reference_arranging_runs_itself_is_fuzzed_clean(profile: str) -> None:
    # The reference in its run_order=engine mode accepts a run listed out of order (its wild
    # 2s or red aces placed where it likes): the fuzzer's reference reads the protocol the
    # same way, so its contract probes on such runs are not findings (the fairness matrix
    # found one in chilean before the reference was started with the engine's reading).
    import sys

    argv = [sys.executable, "-m", "reference.adapter", "--interface", "run_order=engine"]
    result = run_fuzz(argv, games=4, seed=1, profile=profile, max_steps=200)
    assert result.findings == [], [f.divergence.mismatches for f in result.findings]


@pytest.mark.parametrize(
    ("ruling", "profile"),
    [("DISPUTE-78=always_108", "chilean"), ("DISPUTE-61=two_jokers", "perla")],
)
def test_an_engine_with_another_pack_is_dealt_and_built_from_its_own(
    ruling: str, profile: str
) -> None:
    # Decks and built states come from the pack the engine's rulings give (108 cards for
    # every Chilean count, two jokers in perla): dealt the profile's pack, the engine
    # refused most setups and the campaign graded almost nothing.
    result = run_fuzz([*REFERENCE, "--ruling", ruling], games=4, seed=1, profile=profile)
    assert result.findings == []
    assert not [k for k in result.events if k.startswith("ended early")], result.events
    assert result.steps > 100


@pytest.mark.slow
def test_reasons_outcome_compares_whether_an_action_is_taken_not_why() -> None:
    """``--reasons outcome``: a reason difference is no finding; acceptance still is."""
    from tests.mutants import harness

    argv = harness.mutant_argv("layoff_before_opening")
    exact = run_fuzz(argv, games=1, only_games=(0,), shrink=False)
    assert any(f.divergence.kind == "reason" for f in exact.findings)
    outcome = run_fuzz(argv, games=1, only_games=(0,), shrink=False, reasons="outcome")
    kinds = {f.divergence.kind for f in outcome.findings}
    assert not kinds & {"reason", "reason order"}, kinds
