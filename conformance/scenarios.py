"""Loading, validating and expanding YAML scenarios (docs/scenario-format.md).

The loader keeps YAML node positions so that every problem it reports names the
file, line, column and scenario id. Documents are constructed with PyYAML's
SafeLoader only: a scenario file can never run code.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # imported where used: a load from the cache needs no YAML at all
    import yaml

from conformance.cards import CANONICAL_ORDER, JOKER, RANKS
from conformance.catalogue import Catalogue
from conformance.corpus import scenario_files
from conformance.loadcache import cached, cached_group, context_key
from conformance.plaindata import Codec
from conformance.profiles import (
    DEFAULT_PROFILE,
    Pack,
    ProfileData,
    ProfileError,
    Profiles,
    default_profiles,
)
from conformance.reachability import unreachable_problems
from conformance.validation import SchemaValidator, best_match_of
from conformance.yamlsafe import (
    FileProblem,
    expansion_problem,
    may_need_walk,
    nesting_problem,
    read_limited_text,
)

SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "scenario.schema.json"


#: Size of the default (argentine) pack; other profiles' packs are in profiles.json.
PACK_SIZE = len(CANONICAL_ORDER)

Level = Literal["melds", "turns", "deals"]
StepKind = Literal["action", "next_deal", "redeal"]


def hand_size(deal_number: int, profile: ProfileData | None = None) -> int:
    """Cards dealt to each player in a deal of ``profile`` (default argentine: 11, or 12
    in deal 7, DEAL-3).

    :raises ProfileError: for a deal number the profile does not have.
    """
    return (profile or _default_profile()).hand_size(deal_number)


def _default_profile() -> ProfileData:
    return default_profiles()[DEFAULT_PROFILE]


def card_rank(card: str) -> str | None:
    """Rank part of a card code (``None`` for a joker)."""
    return None if card == JOKER else card[:-1]


def card_suit(card: str) -> str | None:
    """Suit letter of a card code (``None`` for a joker)."""
    return None if card == JOKER else card[-1]


class ScenarioError(Exception):
    """A problem with a scenario file, located by file, line, column and scenario id."""

    def __init__(
        self,
        message: str,
        *,
        file: str,
        line: int = 0,
        column: int = 0,
        scenario_id: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.scenario_id = scenario_id
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        who = f" [{self.scenario_id}]" if self.scenario_id else ""
        return f"{where}:{who} {self.message}"


@dataclass(frozen=True)
class DeckSpec:
    """A deck as a scenario gives it: hands + upcard (+ stock_top), deck_top, or a whole deck."""

    hands: tuple[tuple[str, ...], ...] | None = None
    upcard: str | None = None
    stock_top: tuple[str, ...] = ()
    deck_top: tuple[str, ...] | None = None
    deck: tuple[str, ...] | None = None
    dealer: int | None = None
    deal_number: int | None = None
    #: perla's cut (docs/protocol.md §10), sent with the deck when the case gives one.
    cut: int | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> DeckSpec:
        """Build a spec from the (schema-valid) YAML mapping."""
        hands = data.get("hands")
        return cls(
            hands=tuple(tuple(h) for h in hands) if hands is not None else None,
            upcard=data.get("upcard"),
            stock_top=tuple(data.get("stock_top", ())),
            deck_top=tuple(data["deck_top"]) if "deck_top" in data else None,
            deck=tuple(data["deck"]) if "deck" in data else None,
            dealer=data.get("dealer"),
            deal_number=data.get("deal_number"),
            cut=data.get("cut"),
        )

    def compose(
        self, players: int, dealer: int, deal_number: int, pack: Pack | None = None
    ) -> list[str]:
        """Return the whole deck (top first) this spec stands for, filled from ``pack``
        (default: the argentine 108-card pack).

        With hands + upcard the deck is the inverse of the dealing rule of
        docs/protocol.md §7: card ``r*players + k`` goes to player ``dealer+1+k``.

        :raises ValueError: when the cards cannot make the pack.
        """
        if self.deck is not None:
            return list(self.deck)
        if self.deck_top is not None:
            return fill_after(list(self.deck_top), [], pack)
        assert self.hands is not None and self.upcard is not None
        if len(self.hands) != players:
            raise ValueError(f"{len(self.hands)} hands given for {players} players")
        # The hands say how many cards were dealt; the semantic check compares that with
        # the deal's hand size where one exists (there is none after deal 7).
        size = len(self.hands[0])
        if any(len(hand) != size for hand in self.hands):
            raise ValueError("hands of different sizes cannot come from one deal")
        top: list[str] = []
        for round_no in range(size):
            for k in range(1, players + 1):
                top.append(self.hands[(dealer + k) % players][round_no])
        top.append(self.upcard)
        top.extend(self.stock_top)
        return fill_after(top, [], pack)


@dataclass(frozen=True)
class Setup:
    """Where a turns/deals scenario starts.

    Exactly one of ``state`` (a complete protocol state, filled to the profile's pack),
    ``deal`` (the fields of a ``start_deal`` request, deck composed) or ``new_game``
    is set.
    """

    state: Mapping[str, Any] | None = None
    deal: Mapping[str, Any] | None = None
    new_game: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Check:
    """One melds-level question: ``check_meld``, ``check_contract`` or ``penalty``."""

    index: int
    op: Literal["check_meld", "check_contract", "penalty"]
    request: Mapping[str, Any]
    expect: Any
    line: int


@dataclass(frozen=True)
class Step:
    """One step of a turns/deals scenario and what must follow from it."""

    index: int
    kind: StepKind
    action: Mapping[str, Any] | None
    deck: DeckSpec | None
    expect: Any
    state: Any
    line: int


@dataclass(frozen=True)
class Disputed:
    """The ``disputed`` block: which DISPUTE the case is about and its options."""

    id: str
    question: str
    options: tuple[str, ...]
    profiles: Mapping[str, str]


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated and expanded scenario. Mappings inside are read-only by contract."""

    id: str
    title: str
    rules: tuple[str, ...]
    source: str
    profiles: tuple[str, ...]
    level: Level
    tags: tuple[str, ...]
    review: str
    path: str
    line: int
    disputed: Disputed | None = None
    assumes: Mapping[str, str] = field(default_factory=dict)
    """Disputed points this case's expectations rely on without testing them: DISPUTE → option."""
    interface: Mapping[str, str] = field(default_factory=dict)
    """Interface declarations (``run_order``, ``run_ends``) the expectations rely on."""
    checks: tuple[Check, ...] = ()
    setup: Setup | None = None
    steps: tuple[Step, ...] = ()
    final: Any = None
    setups: Mapping[str, Setup] = field(default_factory=dict, repr=False, compare=False)
    """The setup expanded for each listed profile (its pack fills the stock and deck);
    ``setup`` is the first profile's."""
    canonical: str = field(default="", repr=False, compare=False)
    """The document as canonical JSON (:func:`canonical_json`), made once at load and
    cached with it: what :func:`corpus_digest` hashes, so a run does not encode every case
    again (the document itself is not kept: the cache stays small)."""

    def where(self) -> str:
        """``file:line`` of the scenario, for messages."""
        return f"{self.path}:{self.line}"

    def setup_for(self, profile: str) -> Setup | None:
        """The setup as played under ``profile`` (``setup`` when none was expanded for it)."""
        return self.setups.get(profile, self.setup)


@dataclass(frozen=True)
class LoadResult:
    """Scenarios that loaded cleanly and every error found, in corpus order."""

    scenarios: tuple[Scenario, ...]
    errors: tuple[ScenarioError, ...]
    files: tuple[str, ...] = ()


#: How the load cache stores a LoadResult: plain JSON of these classes (no pickle).
_CACHE_CODEC = Codec(LoadResult, Scenario, Setup, Step, Check, Disputed, DeckSpec)


# --------------------------------------------------------------------------- cards


def fill_after(
    top: list[str], placed_elsewhere: Iterable[str], pack: Pack | None = None
) -> list[str]:
    """Return ``top`` followed by every pack card not in ``top`` or ``placed_elsewhere``.

    The remainder comes in canonical order; for each placed card its earliest remaining
    occurrence in that order is skipped. Cards beyond the pack (a third copy) are simply
    not found; the conservation check reports them. ``pack`` defaults to the argentine one.
    """
    remaining = list(pack.canonical_order() if pack is not None else CANONICAL_ORDER)
    for card in [*top, *placed_elsewhere]:
        # A card beyond the pack is simply not found; conservation checks report it.
        with contextlib.suppress(ValueError):
            remaining.remove(card)
    return [*top, *remaining]


def conservation_problems(
    cards: Sequence[str], *, exact: bool, pack: Pack | None = None, profile: str = ""
) -> list[str]:
    """Describe how ``cards`` break ``pack`` (default: the argentine 108 cards): a copy or
    joker more than the pack has, or the wrong size. ``profile`` names it in messages."""
    copies, jokers, size = (pack.copies, pack.jokers, pack.size) if pack else (2, 4, PACK_SIZE)
    whose = f"the {profile} pack" if profile else "the pack"
    problems: list[str] = []
    counts = Counter(cards)
    for card in sorted(counts, key=_canonical_index):
        n = counts[card]
        if card == JOKER and n > jokers:
            problems.append(
                f"{n} jokers: {whose} has only {jokers} (a {_ordinal(jokers + 1)} joker)"
            )
        elif card != JOKER and n > copies:
            problems.append(
                f"{n} copies of {card}: {whose} has only {copies} (a {_ordinal(copies + 1)} copy)"
            )
    if len(cards) > size:
        problems.append(f"{len(cards)} cards: {whose} has only {size}")
    elif exact and len(cards) != size:
        problems.append(f"{len(cards)} cards in all: a state must hold exactly {size}")
    return problems


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(n, f"{n}th")


def _canonical_index(card: str) -> int:
    try:
        return CANONICAL_ORDER.index(card)
    except ValueError:
        return len(CANONICAL_ORDER)


def _rank_value(rank: str) -> int:
    return RANKS.index(rank) + 1


def table_meld_problem(
    kind: str,
    cards: Sequence[str],
    wild_ranks: frozenset[str] = frozenset(),
    wild_cards: frozenset[str] = frozenset(),
) -> str | None:
    """Say why ``cards`` cannot stand on the table as a ``kind`` meld, or ``None``.

    This is the harness's own small check (the harness never imports an engine):
    a table trio is 3+ cards with at least one natural card, naturals all of one
    rank; a table run is 4–14 cards of one suit whose positions form one unbroken
    sequence within A..A, each joker standing for its position. Joker counts are not
    limited because melds may have grown after opening. A card of one of the profile's
    ``wild_ranks`` (a 2 in chilean), or one of its ``wild_cards`` (a red ace in perla), may
    stand anywhere, like a joker, or in its own place; a trio of only such cards and jokers
    is a trio of their rank.
    """
    naturals = [c for c in cards if c != JOKER]
    fixed = [c for c in naturals if card_rank(c) not in wild_ranks and c not in wild_cards]
    if kind == "trio":
        if len(cards) < 3:
            return f"a trio needs at least 3 cards, this one has {len(cards)}"
        if not naturals:
            return "a trio needs at least one natural card"
        ranks = {card_rank(c) for c in (fixed or naturals)}
        if len(ranks) > 1:
            return f"a trio mixes ranks {', '.join(sorted(str(r) for r in ranks))}"
        return None
    if not 4 <= len(cards) <= 14:
        return f"a run holds 4 to 14 cards, this one has {len(cards)}"
    if not naturals:
        return "a run needs at least one natural card"
    suits = {card_suit(c) for c in (fixed or naturals)}
    if len(suits) > 1:
        return f"a run mixes suits {', '.join(sorted(str(s) for s in suits))}"
    for start in range(1, 16 - len(cards)):
        if all(
            card in wild_cards or _fits(card, start + offset, wild_ranks)
            for offset, card in enumerate(cards)
        ):
            return None
    return "the cards are not one unbroken sequence from low to high within A..A"


def _fits(card: str, position: int, wild_ranks: frozenset[str] = frozenset()) -> bool:
    # Position 1 is a low ace, 14 a high ace; a joker (or a wild rank) fits anywhere.
    rank = card_rank(card)
    if rank is None or rank in wild_ranks:
        return True
    if rank == "A":
        return position in (1, 14)
    return _rank_value(rank) == position


# --------------------------------------------------------------------------- options


def resolve_option(value: Any, option: str) -> Any:
    """Replace every ``{by_option: {...}}`` inside ``value`` by the branch for ``option``.

    :raises KeyError: when a ``by_option`` has no branch for ``option``.
    """
    if isinstance(value, Mapping):
        if set(value) == {"by_option"} and isinstance(value["by_option"], Mapping):
            branches = value["by_option"]
            if option not in branches:
                raise KeyError(option)
            return resolve_option(branches[option], option)
        return {k: resolve_option(v, option) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_option(v, option) for v in value]
    return value


def _by_option_sites(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, Mapping):
        if set(value) == {"by_option"} and isinstance(value["by_option"], Mapping):
            yield path, value["by_option"]
            for key, branch in value["by_option"].items():
                yield from _by_option_sites(branch, (*path, "by_option", key))
            return
        for key, sub in value.items():
            if key != "disputed":
                yield from _by_option_sites(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _by_option_sites(sub, (*path, index))


def _reason_sites(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Yield every reason name used in an expectation (``rejected:`` or ``reason:``)."""
    if isinstance(value, Mapping):
        for key, sub in value.items():
            if key in ("rejected", "reason"):
                if isinstance(sub, str):
                    yield (*path, key), sub
                elif isinstance(sub, list):
                    for index, item in enumerate(sub):
                        if isinstance(item, str):
                            yield (*path, key, index), item
                elif isinstance(sub, Mapping):
                    yield from _reason_sites(sub, (*path, key))
            else:
                yield from _reason_sites(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _reason_sites(sub, (*path, index))


# --------------------------------------------------------------------------- YAML


@cache
def _validator() -> SchemaValidator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return SchemaValidator(schema)


def _jsonable(value: Any) -> Any:
    # JSON Schema only knows string keys; YAML gives ints for `hands: {1: [...]}`.
    if isinstance(value, Mapping):
        return {_key(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _key(key: Any) -> str:
    return str(key).lower() if isinstance(key, bool) else str(key)


def _mark(node: yaml.Node | None, path: Sequence[Any]) -> tuple[int, int]:
    """1-based line and column of the node at ``path`` (or of its deepest existing parent)."""
    if node is None:
        return 0, 0
    import yaml

    current = node
    for part in path:
        nxt: yaml.Node | None = None
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                if str(key_node.value) == str(part):
                    nxt = value_node
                    break
        elif (
            isinstance(current, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(current.value)
        ):
            nxt = current.value[part]
        if nxt is None:
            break
        current = nxt
    return current.start_mark.line + 1, current.start_mark.column + 1


def _pointer(path: Iterable[Any]) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _interned(value: Any) -> Any:
    """``value`` with its strings interned: a card code is then one object however often the
    corpus names it, so the load cache stores it once and loads many times faster."""
    if type(value) is str:
        return sys.intern(value)
    if type(value) is list:
        return [_interned(item) for item in value]
    if type(value) is dict:
        return {_interned(key): _interned(item) for key, item in value.items()}
    return value


def _read_documents(path: Path, label: str) -> Iterator[tuple[yaml.Node, Any] | ScenarioError]:
    import yaml

    try:
        text = read_limited_text(path)
    except OSError as exc:
        yield ScenarioError(
            f"cannot read file: {exc.strerror or exc}", file=label, line=1, column=1
        )
        return
    if isinstance(text, FileProblem):
        yield ScenarioError(text.message, file=label, line=text.line, column=text.column)
        return
    deep = nesting_problem(text)
    if deep is not None:
        yield ScenarioError(deep.message, file=label, line=deep.line, column=deep.column)
        return
    walk = may_need_walk(text)
    # libyaml's safe loader when present (several times faster), the pure one otherwise;
    # both keep node marks for line numbers and construct only plain data.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            # Aliases (or sheer size) could make the checks below walk a huge tree.
            too_big = expansion_problem(node) if walk else None
            if too_big is not None:
                yield ScenarioError(
                    too_big.message, file=label, line=too_big.line, column=too_big.column
                )
                continue
            yield node, _interned(loader.construct_document(node))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 0
        column = mark.column + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc)
        yield ScenarioError(f"YAML syntax error: {problem}", file=label, line=line, column=column)
    except RecursionError:
        # The pure-Python loader (no libyaml) recurses per nesting level.
        yield ScenarioError("the document nests too deeply", file=label, line=1, column=1)
    finally:
        loader.dispose()


class _DocChecker:
    """Validates and expands one YAML document into a Scenario, collecting errors."""

    def __init__(
        self,
        node: yaml.Node,
        data: Any,
        label: str,
        catalogue: Catalogue | None,
        profiles: Profiles | None = None,
    ):
        self.profiles = profiles if profiles is not None else default_profiles()
        self.node = node
        self.data = data
        self.label = label
        self.catalogue = catalogue
        self.errors: list[ScenarioError] = []
        self.sid: str | None = None
        if isinstance(data, Mapping) and isinstance(data.get("id"), str):
            self.sid = data["id"]

    def error(self, message: str, path: Sequence[Any] = ()) -> None:
        line, column = _mark(self.node, path)
        error = ScenarioError(
            message, file=self.label, line=line, column=column, scenario_id=self.sid
        )
        # A setup checked once per listed profile may show one problem twice: say it once.
        if str(error) not in {str(e) for e in self.errors}:
            self.errors.append(error)

    # -- schema ---------------------------------------------------------------

    def check_schema(self) -> bool:
        if not isinstance(self.data, Mapping):
            self.error("a scenario document must be a mapping")
            return False
        doc = _jsonable(self.data)
        found = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
        # Report one error per location; the best match explains anyOf/oneOf failures.
        seen: set[str] = set()
        for err in found:
            best = best_match_of(err)
            pointer = _pointer(best.absolute_path)
            if pointer + best.message in seen:
                continue
            seen.add(pointer + best.message)
            self.error(f"schema: at {pointer}: {best.message}", list(best.absolute_path))
        return not found

    # -- semantics ------------------------------------------------------------

    def check_catalogue(self) -> None:
        cat = self.catalogue
        data = self.data
        if cat is not None:
            for i, rule in enumerate(data["rules"]):
                # A text-settled ruling (DISPUTE-nn) is as citable as a rule.
                if rule not in cat.rules and rule not in cat.disputes:
                    self.error(f"unknown rule ID {rule!r}", ["rules", i])
                elif rule in cat.rules:
                    # A case holds for each profile it lists: so must every rule it cites.
                    outside = [p for p in data["profiles"] if p not in cat.rules[rule].profiles]
                    if outside:
                        self.error(
                            f"rule {rule} does not hold in profile(s) {', '.join(outside)} "
                            f"(the catalogue gives it {', '.join(cat.rules[rule].profiles)})",
                            ["rules", i],
                        )
            for path, reason in _reason_sites(data.get("checks", []), ("checks",)):
                if reason not in cat.reasons:
                    self.error(f"unknown rejection reason {reason!r}", list(path))
            for path, reason in _reason_sites(data.get("steps", []), ("steps",)):
                if reason not in cat.reasons:
                    self.error(f"unknown rejection reason {reason!r}", list(path))
        for dispute_id, option in data.get("assumes", {}).items():
            assumed = cat.disputes.get(dispute_id) if cat is not None else None
            if cat is not None and assumed is None:
                self.error(f"unknown disputed point {dispute_id!r}", ["assumes", dispute_id])
            elif assumed is not None and option not in assumed.options:
                self.error(
                    f"unknown option {option!r} of {dispute_id} "
                    f"(known: {', '.join(assumed.options)})",
                    ["assumes", dispute_id],
                )
            if "disputed" in data and data["disputed"].get("id") == dispute_id:
                self.error(
                    f"{dispute_id} is this case's disputed point; it cannot also be assumed",
                    ["assumes", dispute_id],
                )
        disputed = data.get("disputed")
        sites = list(_by_option_sites(data, ()))
        if disputed is None:
            for path, _ in sites:
                self.error("by_option used without a disputed block", list(path))
            return
        options = set(disputed["options"])
        known = cat.disputes.get(disputed["id"]) if cat is not None else None
        if cat is not None and known is None:
            self.error(f"unknown disputed point {disputed['id']!r}", ["disputed", "id"])
        if known is not None:
            for key in disputed["options"]:
                if key not in known.options:
                    self.error(
                        f"unknown option {key!r} of {known.id} (known: {', '.join(known.options)})",
                        ["disputed", "options", key],
                    )
        for profile, key in disputed["profiles"].items():
            if key not in options:
                self.error(
                    f"profile {profile!r} follows option {key!r}, which is not among the options",
                    ["disputed", "profiles", profile],
                )
        for profile in data["profiles"]:
            if profile not in disputed["profiles"]:
                self.error(
                    f"disputed block gives no option for profile {profile!r}",
                    ["disputed", "profiles"],
                )
        for path, branches in sites:
            for key in branches:
                if key not in options:
                    self.error(f"unknown option key {key!r} in by_option", [*path, key])
            for profile, key in disputed["profiles"].items():
                if key in options and key not in branches:
                    self.error(
                        f"by_option has no branch for {key!r}, the {profile} profile's option",
                        list(path),
                    )
        # Every option that all by_option sites cover must give a schema-valid scenario.
        for option in sorted(options):
            if all(option in branches for _, branches in sites):
                resolved = _jsonable(resolve_option(data, option))
                for err in _validator().iter_errors(resolved):
                    self.error(
                        f"schema (option {option!r}): at {_pointer(err.absolute_path)}: "
                        f"{err.message}",
                        list(err.absolute_path),
                    )
                    break

    def check_state(
        self,
        state: Mapping[str, Any],
        base: list[Any],
        stock_given: bool,
        profile: ProfileData | None = None,
    ) -> None:
        profile = profile or _default_profile()
        players = state["players"]
        if not self.check_players(players, profile, [*base, "players"]):
            return
        if not self.check_deal_number(state["deal_number"], profile, [*base, "deal_number"]):
            return
        if len(state["hands"]) != players:
            self.error(f"{len(state['hands'])} hands for {players} players", [*base, "hands"])
        for key in ("opened", "totals", "deal_scores"):
            value = state.get(key)
            if isinstance(value, list) and len(value) != players:
                self.error(f"{key} has {len(value)} entries for {players} players", [*base, key])
        for key in ("turn", "dealer", "closer"):
            value = state.get(key)
            if isinstance(value, int) and not 0 <= value < players:
                self.error(f"{key} {value} is out of range for {players} players", [*base, key])
        for i, winner in enumerate(state.get("winners") or []):
            if not 0 <= winner < players:
                self.error(f"winner {winner} is out of range", [*base, "winners", i])
        for i, score in enumerate(state.get("deal_scores") or []):
            low, high = profile.deal_score_min, profile.deal_score_max
            if score < low or (high is not None and score > high):
                self.error(
                    f"deal score {score} is outside the {profile.name} range "
                    f"{low}..{'' if high is None else high} (profiles.json deal_score)",
                    [*base, "deal_scores", i],
                )
        opened = state.get("opened")
        for i, meld in enumerate(state.get("table", [])):
            path = [*base, "table", i]
            if not 0 <= meld["owner"] < players:
                self.error(f"owner {meld['owner']} is out of range for {players} players", path)
            elif isinstance(opened, list) and len(opened) == players and not opened[meld["owner"]]:
                self.error(f"table meld owned by player {meld['owner']}, who has not opened", path)
            problem = table_meld_problem(
                meld["kind"], meld["cards"], profile.wild_ranks, profile.wild_cards
            )
            if problem is not None:
                self.error(f"table meld {i} is not a valid {meld['kind']}: {problem}", path)
        cards = list(_state_cards(state))
        pack = profile.pack(players)
        for problem in conservation_problems(
            cards, exact=stock_given, pack=pack, profile=profile.name
        ):
            self.error(f"state: {problem}", base)
        # A state play cannot reach tests a position no game produces: refuse it unless the
        # scenario says why it is built that way (docs/scenario-format.md, `built`).
        if not (isinstance(self.data, Mapping) and self.data.get("built")):
            for problem in unreachable_problems(state, profile):
                self.error(
                    f"play cannot reach this state: {problem}; if it is built on "
                    "purpose, say why in `built:`",
                    base,
                )

    def check_players(self, players: int, profile: ProfileData, path: list[Any]) -> bool:
        """Whether ``profile`` plays ``players`` players (an error names what it plays)."""
        if players in profile.players:
            return True
        counts = ", ".join(map(str, profile.players))
        self.error(f"profile {profile.name} plays {counts} players, not {players}", path)
        return False

    def check_deal_number(self, number: int, profile: ProfileData, path: list[Any]) -> bool:
        """Whether ``profile`` has deal ``number`` (an error names its deals)."""
        if 1 <= number <= profile.deal_count:
            return True
        self.error(
            f"profile {profile.name} has deals 1 to {profile.deal_count}, not deal {number}", path
        )
        return False

    def expand_state(
        self, raw: Mapping[str, Any], profile: str, pack: Pack | None = None
    ) -> dict[str, Any]:
        players = raw["players"]
        state: dict[str, Any] = {
            "profile": raw.get("profile", profile),
            "players": players,
            "deal_number": raw["deal_number"],
            "dealer": raw["dealer"],
            "turn": raw["turn"],
            "phase": raw["phase"],
            "hands": [list(h) for h in raw["hands"]],
            "opened": list(raw.get("opened", [False] * players)),
            "turn_opened": raw.get("turn_opened", False),
            "table": [
                {"owner": m["owner"], "kind": m["kind"], "cards": list(m["cards"])}
                for m in raw.get("table", [])
            ],
            "stock": [],
            # An empty discard pile is a legal (if rare) state, so it may be omitted.
            "discard": list(raw.get("discard", [])),
            "totals": list(raw.get("totals", [0] * players)),
            "deal_scores": raw.get("deal_scores"),
            "closer": raw.get("closer"),
            "winners": raw.get("winners"),
        }
        if "stock" in raw:
            state["stock"] = list(raw["stock"])
        else:
            placed = [c for h in state["hands"] for c in h]
            placed += [c for m in state["table"] for c in m["cards"]]
            placed += state["discard"]
            state["stock"] = fill_after(list(raw.get("stock_top", [])), placed, pack)
        return state

    def check_deck(
        self,
        spec: DeckSpec,
        path: list[Any],
        players: int | None,
        deal_number: int | None,
        profile: ProfileData | None = None,
    ) -> None:
        profile = profile or _default_profile()
        if spec.cut is not None and not profile.cut:
            self.error(
                f"profile {profile.name} deals without a cut: only a profile that cuts "
                "(perla, docs/protocol.md §10) takes one",
                [*path, "cut"],
            )
        if deal_number is not None and not self.check_deal_number(
            deal_number, profile, [*path, "deal_number"]
        ):
            return
        if spec.hands is not None:
            if players is not None and len(spec.hands) != players:
                self.error(f"{len(spec.hands)} hands for {players} players", [*path, "hands"])
            sizes = {len(h) for h in spec.hands}
            dealt = {d.hand_size for d in profile.deals}
            if deal_number is not None:
                want = profile.hand_size(deal_number)
                for i, hand in enumerate(spec.hands):
                    if len(hand) != want:
                        self.error(
                            f"hand {i} has {len(hand)} cards; deal {deal_number} deals {want} "
                            f"({profile.name})",
                            [*path, "hands", i],
                        )
            elif len(sizes) > 1 or not sizes <= dealt:
                self.error(
                    f"dealt hands must all hold {profile.hand_sizes_text()} cards ({profile.name})",
                    [*path, "hands"],
                )
            cards = [c for h in spec.hands for c in h] + [spec.upcard or "", *spec.stock_top]
            cards = [c for c in cards if c]
        elif spec.deck_top is not None:
            cards = list(spec.deck_top)
        else:
            cards = list(spec.deck or [])
        pack = (
            profile.pack(players)
            if players in profile.players
            else max(profile.packs, key=lambda p: p.size)  # bounds only: players unknown
        )
        for problem in conservation_problems(
            cards, exact=spec.deck is not None, pack=pack, profile=profile.name
        ):
            self.error(f"deck: {problem}", path)

    def build(self) -> Scenario | None:
        if not self.check_schema():
            return None
        data = self.data
        self.check_catalogue()
        if is_draft_id(data["id"]) and data["review"] != "draft":
            self.error(
                f"id {data['id']} is in the range reserved for fuzz drafts "
                f"(cc-{DRAFT_IDS[0]}..cc-{DRAFT_IDS[1]}); a reviewed case takes a corpus id "
                "(docs/fuzzing.md, 'Draft scenarios')",
                ["id"],
            )
        level: Level = data["level"]
        checks: list[Check] = []
        for i, item in enumerate(data.get("checks", [])):
            line = _mark(self.node, ["checks", i])[0]
            if "check_meld" in item:
                request = {"meld": item["check_meld"], "initial": item.get("initial", True)}
                checks.append(Check(i, "check_meld", request, item["expect"], line))
            elif "check_contract" in item:
                checks.append(
                    Check(i, "check_contract", dict(item["check_contract"]), item["expect"], line)
                )
            else:
                checks.append(Check(i, "penalty", {"cards": item["penalty"]}, item["expect"], line))
        setup: Setup | None = None
        players: int | None = None
        setups: dict[str, Setup] = {}
        known = self.profiles_of(data)
        if not known:
            return None
        raw_setup = data.get("setup")
        if raw_setup is not None:
            # Checked and expanded once per listed profile: each has its own pack and facts.
            for facts in known:
                built = self.build_setup(raw_setup, facts, data["profiles"])
                if built is not None:
                    setups[facts.name] = built
            if self.errors:
                return None
            setup = setups[known[0].name]
            players = _setup_players(setup)
        steps: list[Step] = []
        for i, item in enumerate(data.get("steps", [])):
            path: list[Any] = ["steps", i]
            line = _mark(self.node, path)[0]
            if "action" in item:
                action = item["action"]
                if level == "melds":
                    self.error("steps are not allowed at level melds", path)
                if players is not None and not 0 <= action["player"] < players:
                    self.error(
                        f"player {action['player']} is out of range for {players} players",
                        [*path, "action", "player"],
                    )
                steps.append(
                    Step(i, "action", action, None, item.get("expect"), item.get("state"), line)
                )
            else:
                kind: StepKind = "next_deal" if "next_deal" in item else "redeal"
                if level != "deals":
                    self.error(f"{kind} steps need level deals", [*path, kind])
                spec = DeckSpec.from_mapping(item[kind])
                if spec.cut is not None and kind == "redeal":
                    # redeal is the same deal dealt again: the protocol gives it no cut.
                    self.error("a redeal step takes no cut (only next_deal)", [*path, kind, "cut"])
                for facts in known:
                    self.check_deck(spec, [*path, kind], players, spec.deal_number, facts)
                steps.append(Step(i, kind, None, spec, item.get("expect"), item.get("state"), line))
        if self.errors:
            return None
        disputed = None
        if "disputed" in data:
            d = data["disputed"]
            disputed = Disputed(
                d["id"], d.get("question", ""), tuple(d["options"]), dict(d["profiles"])
            )
        return Scenario(
            id=data["id"],
            title=data["title"],
            rules=tuple(data["rules"]),
            source=data["source"],
            profiles=tuple(data["profiles"]),
            level=level,
            tags=tuple(data.get("tags", ())),
            review=data["review"],
            path=self.label,
            line=_mark(self.node, [])[0],
            disputed=disputed,
            assumes=dict(data.get("assumes", {})),
            interface=dict(data.get("interface", {})),
            checks=tuple(checks),
            setup=setup,
            steps=tuple(steps),
            final=data.get("final"),
            setups=setups,
            canonical=canonical_json(data),
        )

    def profiles_of(self, data: Mapping[str, Any]) -> list[ProfileData]:
        """The facts of every profile the case lists; an unknown name is an error."""
        known: list[ProfileData] = []
        for i, name in enumerate(data["profiles"]):
            try:
                known.append(self.profiles[name])
            except ProfileError as exc:
                self.error(str(exc), ["profiles", i])
        return known if len(known) == len(data["profiles"]) else []

    def build_setup(
        self, raw_setup: Mapping[str, Any], facts: ProfileData, listed: Sequence[str]
    ) -> Setup | None:
        """The setup expanded and checked with one profile's facts (None after an error)."""
        before = len(self.errors)
        if "state" in raw_setup:
            raw_state = raw_setup["state"]
            name = raw_state.get("profile", facts.name)
            if name not in listed:
                self.error(
                    f"state profile {name!r} is not in profiles", ["setup", "state", "profile"]
                )
                return None
            players = raw_state["players"]
            pack = facts.pack(players) if players in facts.players else None
            # Each profile's copy names that profile: the run sends the one it plays.
            state = self.expand_state({**raw_state, "profile": facts.name}, facts.name, pack)
            self.check_state(state, ["setup", "state"], "stock" in raw_state, facts)
            return Setup(state=state) if len(self.errors) == before else None
        if "deal" in raw_setup:
            raw_deal = raw_setup["deal"]
            players = raw_deal["players"]
            deal_number = raw_deal["deal_number"]
            if not self.check_players(players, facts, ["setup", "deal", "players"]):
                return None
            spec = DeckSpec.from_mapping(raw_deal)
            self.check_deck(spec, ["setup", "deal"], players, deal_number, facts)
            if not 0 <= raw_deal["dealer"] < players:
                self.error(
                    f"dealer {raw_deal['dealer']} is out of range for {players} players",
                    ["setup", "deal", "dealer"],
                )
            totals = raw_deal.get("totals", [0] * players)
            if len(totals) != players:
                self.error(
                    f"totals has {len(totals)} entries for {players} players",
                    ["setup", "deal", "totals"],
                )
            if len(self.errors) != before:
                return None
            try:
                deck = spec.compose(players, raw_deal["dealer"], deal_number, facts.pack(players))
            except ValueError as exc:
                self.error(f"deck: {exc}", ["setup", "deal"])
                return None
            return Setup(
                deal={
                    "profile": raw_deal.get("profile", facts.name),
                    "players": players,
                    "deal_number": deal_number,
                    "dealer": raw_deal["dealer"],
                    "totals": list(totals),
                    "deck": deck,
                    # perla's cut (docs/protocol.md §10), sent only when the case gives one.
                    **({"cut": raw_deal["cut"]} if "cut" in raw_deal else {}),
                }
            )
        players = raw_setup["new_game"]["players"]
        if not self.check_players(players, facts, ["setup", "new_game", "players"]):
            return None
        return Setup(new_game={"profile": facts.name, **raw_setup["new_game"]})


def _setup_players(setup: Setup) -> int:
    given = setup.state or setup.deal or setup.new_game
    assert given is not None
    return int(given["players"])


def _state_cards(state: Mapping[str, Any]) -> Iterator[str]:
    for hand in state["hands"]:
        yield from hand
    for meld in state["table"]:
        yield from meld["cards"]
    yield from state["stock"]
    yield from state["discard"]


def load_file(
    path: Path | str, *, catalogue: Catalogue | None = None, label: str | None = None
) -> LoadResult:
    """Load every scenario document of one YAML file.

    Documents with problems are left out of ``scenarios`` and described in ``errors``.
    """
    file_path = Path(path)
    name = label or str(file_path)
    return cached(
        file_path,
        name,
        context_key(catalogue),
        lambda: _load_file(file_path, name, catalogue),
        lambda result: not result.errors,
        codec=_CACHE_CODEC,
    )


def _load_file(file_path: Path, name: str, catalogue: Catalogue | None) -> LoadResult:
    scenarios: list[Scenario] = []
    errors: list[ScenarioError] = []
    for item in _read_documents(file_path, name):
        if isinstance(item, ScenarioError):
            errors.append(item)
            continue
        node, data = item
        checker = _DocChecker(node, data, name, catalogue)
        scenario = checker.build()
        errors.extend(checker.errors)
        if scenario is not None:
            scenarios.append(scenario)
    return LoadResult(tuple(scenarios), tuple(errors), (name,))


def load_corpus(paths: Sequence[Path | str], *, catalogue: Catalogue | None = None) -> LoadResult:
    """Load every scenario under ``paths`` (files or directories), in corpus order.

    Besides the per-document checks this reports ids used twice across the corpus:
    the first copy (in corpus order) is kept and every later one is left out, so
    ``run --skip-broken`` still runs that id and says which copy it dropped. Retired
    ids are left out in every copy.

    :raises FileNotFoundError: when a path does not exist.
    """
    files = scenario_files([Path(p) for p in paths])
    scenarios: list[Scenario] = []
    errors: list[ScenarioError] = []
    loaded = cached_group(
        files,
        [str(f) for f in files],
        context_key(catalogue),
        lambda i: load_file(files[i], catalogue=catalogue),
        lambda result: not result.errors,
        codec=_CACHE_CODEC,
    )
    for result in loaded:
        scenarios.extend(result.scenarios)
        errors.extend(result.errors)
    first: dict[str, Scenario] = {}
    duplicated: set[str] = set()
    later_copies: set[int] = set()
    for scenario in scenarios:
        if scenario.id in first:
            later_copies.add(id(scenario))
            errors.append(
                ScenarioError(
                    f"duplicate id: already used at {first[scenario.id].where()}; "
                    "this copy is left out (with --skip-broken the first one runs)",
                    file=scenario.path,
                    line=scenario.line,
                    column=1,
                    scenario_id=scenario.id,
                )
            )
        else:
            first[scenario.id] = scenario
    retired = retired_ids([Path(p) for p in paths])
    for scenario in scenarios:
        if scenario.id in retired:
            duplicated.add(scenario.id)
            errors.append(
                ScenarioError(
                    f"id {scenario.id} was retired ({retired[scenario.id]}); ids are never "
                    "reused, so expectation files keep meaning what they meant: take a new id",
                    file=scenario.path,
                    line=scenario.line,
                    column=1,
                    scenario_id=scenario.id,
                )
            )
    for scenario in scenarios:
        if is_example_id(scenario.id):
            duplicated.add(scenario.id)
            errors.append(
                ScenarioError(
                    f"id {scenario.id} is reserved for examples in the docs "
                    f"({EXAMPLE_IDS[0]}..{EXAMPLE_IDS[1]}), so a copied example never "
                    "collides with a real case: take the next free id of your folder "
                    "(docs/adding-scenarios.md §3)",
                    file=scenario.path,
                    line=scenario.line,
                    column=1,
                    scenario_id=scenario.id,
                )
            )
    kept = tuple(s for s in scenarios if s.id not in duplicated and id(s) not in later_copies)
    return LoadResult(kept, tuple(errors), tuple(str(f) for f in files))


#: Ids the docs use for examples; no scenario may take one (``check`` refuses it).
EXAMPLE_IDS = ("cc-9900", "cc-9999")


def is_example_id(scenario_id: str) -> bool:
    """True for an id of the range reserved for documentation examples."""
    return EXAMPLE_IDS[0] <= scenario_id <= EXAMPLE_IDS[1] and len(scenario_id) == 7


#: Numbers of the ids ``fuzz`` gives its drafts (``cc-8000`` ..); a case with one of them
#: must say ``review: draft`` (docs/fuzzing.md).
DRAFT_IDS = (8000, 8999)


def is_draft_id(scenario_id: str) -> bool:
    """True for an id of the range reserved for fuzz drafts."""
    number = scenario_id[3:]
    return (
        scenario_id.startswith("cc-")
        and len(number) == 4
        and number.isdigit()
        and DRAFT_IDS[0] <= int(number) <= DRAFT_IDS[1]
    )


def corpus_digest(scenarios: Sequence[Scenario]) -> str:
    """A short SHA-256 of what the given scenarios say, independent of files and order.

    Two reports with the same digest graded engines against the same cases and
    expectations; any edited expectation changes it.
    """
    digest = hashlib.sha256()
    for scenario in sorted(scenarios, key=lambda s: s.id):
        digest.update(scenario.canonical.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def canonical_json(document: Mapping[str, Any]) -> str:
    """A scenario document as the corpus digest reads it: JSON with sorted keys."""
    return json.dumps(document, sort_keys=True, default=str)


RETIRED_FILE = "retired-ids.txt"


def retired_ids(roots: Sequence[Path]) -> dict[str, str]:
    """Ids listed in a ``retired-ids.txt`` at the top of any corpus directory given.

    One id per line, then why it was retired; ``#`` starts a comment. A removed scenario's
    id goes there so that it is never given to a different case.
    """
    retired: dict[str, str] = {}
    for root in roots:
        listing = root / RETIRED_FILE
        if not root.is_dir() or not listing.is_file():
            continue
        for raw in listing.read_text(encoding="utf-8").splitlines():
            line = raw.split("#", 1)[0].strip()
            if line:
                sid, _, why = line.partition(" ")
                retired[sid] = why.strip() or "no reason given"
    return retired
