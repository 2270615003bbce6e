"""The disputed points and house variants every profile rules on, with their options.

:data:`OPTIONS` is the catalogue the reference reads (kept equal to the harness's catalogue by
tests/test_points_single_source.py); :func:`check_ruling` checks a point and option named at a
rules branch against it, and :func:`restated` one profile's table of points that restate
Argentine ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from reference.errors import UnknownRulingError

#: Every option of every disputed point and house variant, the profile's option first
#: (keys as in conformance/data/catalogue.json; tests/test_reference_rulings.py keeps them equal).
OPTIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "DISPUTE-01": ("b", "a"),
        "DISPUTE-02": ("c", "a", "b"),
        "DISPUTE-03": ("grow", "fixed"),
        "DISPUTE-04": ("valid", "invalid"),
        "DISPUTE-05": ("yes", "no"),
        "DISPUTE-06": ("yes", "no"),
        "DISPUTE-07": ("refused", "closes"),
        "DISPUTE-08": ("yes", "no"),
        "DISPUTE-09": ("stays", "bury", "jokers"),
        "DISPUTE-10": ("no_cap", "cap"),
        "DISPUTE-11": ("a", "b", "c"),
        "DISPUTE-12": ("yes", "no"),
        "DISPUTE-13": ("no", "yes"),
        "DISPUTE-14": ("yes", "no"),
        "DISPUTE-15": ("share", "tiebreak"),
        "DISPUTE-16": ("same_dealer", "next_dealer"),
        "DISPUTE-17": ("same_dealer", "next_dealer"),
        "DISPUTE-18": ("b", "a", "c"),
        "DISPUTE-19": ("allowed", "forbidden"),
        "DISPUTE-20": ("later_turns", "same_turn"),
        "DISPUTE-21": ("any", "own"),
        "DISPUTE-22": ("yes", "no"),
        "DISPUTE-23": ("allowed", "forbidden"),
        "DISPUTE-24": ("per_meld", "per_opening"),
        "DISPUTE-25": ("natural", "wild"),
        "DISPUTE-26": ("table_000", "table_001", "table_003"),
        "DISPUTE-27": ("seven", "eight"),
        "DISPUTE-28": ("never", "taker_keeps"),
        "DISPUTE-29": ("forbidden", "steal"),
        "DISPUTE-30": ("position", "declared"),
        "DISPUTE-31": ("exact", "at_least", "runs_at_least"),
        "DISPUTE-32": ("two_to_four", "more_players"),
        "DISPUTE-33": ("twelve", "thirteen"),
        "DISPUTE-34": ("yes", "no"),
        "DISPUTE-35": ("no_change", "penalty"),
        "DISPUTE-36": ("refused", "stock_instead"),
        "DISPUTE-37": ("any_deal", "first_deal"),
        "DISPUTE-38": ("rank", "rank_and_suit"),
        "VARIANT-01": ("fifty", "thirty"),
        "VARIANT-02": ("low_or_high", "low_only"),
        "VARIANT-03": ("lifted", "kept"),
        "VARIANT-04": ("forbidden", "allowed"),
        "VARIANT-05": ("eleven", "twelve"),
        "VARIANT-06": ("any", "one"),
        # The Chilean points (seed 001); only the chilean profile rules on them.
        "DISPUTE-39": ("either", "no_discard", "discard"),
        "DISPUTE-40": ("impossible", "three_card_runs"),
        "DISPUTE-41": ("exact", "at_least", "runs_at_least"),
        "DISPUTE-42": ("eleven", "twelve"),
        "DISPUTE-43": ("one_sixty", "one_fifty_nine"),
        "DISPUTE-44": ("anyone", "laid_down"),
        "DISPUTE-45": ("melding", "discard_only"),
        "DISPUTE-46": ("zero", "minus_ten"),
        "DISPUTE-47": ("share", "tiebreak"),
        "DISPUTE-48": ("wild", "natural"),
        "DISPUTE-49": ("in_place", "always_wild"),
        "DISPUTE-50": ("unlimited", "one_per_meld"),
        "DISPUTE-51": ("bury", "stays"),
        "DISPUTE-52": ("four", "three"),
        "DISPUTE-53": ("no", "yes"),
        "DISPUTE-54": ("optional", "compulsory"),
        "DISPUTE-55": ("standard", "joker_30", "joker_20", "two_20"),
        "DISPUTE-56": ("fresh_deal", "keep_hands"),
        # A Chilean house point: the pack whatever the player count (docs/rules.md).
        "DISPUTE-78": ("by_players", "always_108"),
        # The Pagat points (seed 002); only the pagat profile rules on them.
        "DISPUTE-57": ("forbidden", "allowed"),
        "DISPUTE-58": ("discard", "melding"),
        "DISPUTE-59": ("laid_down", "anyone"),
        "DISPUTE-60": ("all_cards", "unmatched_only"),
        "DISPUTE-79": ("later_turns", "same_turn"),
        "DISPUTE-74": ("lot", "first_seat"),
        "DISPUTE-75": ("recycle", "round_ends"),
        "DISPUTE-76": ("forbidden", "allowed"),
        "DISPUTE-77": ("allowed", "forbidden"),
        # The Perla points (seed 003); only the perla profile rules on them (with the shared
        # DISPUTE-47, -49, -50 and -74..77 above).
        "DISPUTE-61": ("four_jokers", "two_jokers"),
        "DISPUTE-62": ("joker_value", "ace_value"),
        "DISPUTE-63": ("different", "free"),
        "DISPUTE-64": ("after_passes", "forbidden"),
        "DISPUTE-65": ("same_turn", "no_discard", "zero"),
        "DISPUTE-66": ("at_least", "exact"),
        "DISPUTE-67": ("minus_ten", "no_bonus"),
        "DISPUTE-68": ("thirteen_last", "eleven"),
        "DISPUTE-69": ("both", "round_7_only", "round_8_only"),
        "DISPUTE-70": ("excluded", "thirteen_card_rounds"),
        "DISPUTE-71": ("melding", "discard_only"),
        "DISPUTE-72": ("none", "run_end"),
        "DISPUTE-73": ("two_to_eight", "two_to_four"),
    }
)

#: Every ``(point, option)`` pair of :data:`OPTIONS`, and every point with no option, so that
#: one set lookup checks a pair named at a rules branch.
_KNOWN: frozenset[tuple[str, str | None]] = frozenset(
    {(point, option) for point, options in OPTIONS.items() for option in options}
    | {(point, None) for point in OPTIONS}
)


def check_ruling(point: str, option: str | None = None) -> None:
    """Check that ``point`` (and ``option``, when given) are in the catalogue (:data:`OPTIONS`).

    :raises UnknownRulingError: naming the point, the option and the options it has.
    """
    if (point, option) not in _KNOWN:
        raise UnknownRulingError(point, option, OPTIONS.get(point, ()))


def ruling_problems(rulings: Mapping[str, str]) -> tuple[str, ...]:
    """What is wrong with a set of rulings: points or options that :data:`OPTIONS` lacks."""
    problems = []
    for point, option in rulings.items():
        if point not in OPTIONS:
            problems.append(f"{point} is not a disputed point or house variant")
        elif option not in OPTIONS[point]:
            known = ", ".join(OPTIONS[point])
            problems.append(f"{point}: {option!r} is not one of its options ({known})")
    return tuple(problems)


#: A profile's points that restate an Argentine point (or house variant): for each of the
#: profile's points, each option with the Argentine points' options it sets.
Restated = Mapping[str, Mapping[str, Mapping[str, str]]]


def restated(table: Mapping[str, Mapping[str, Mapping[str, str]]]) -> Restated:
    """``table`` checked against the catalogue and frozen: every point of the profile lists
    each of its options once, and every point and option it sets is a catalogue one.

    :raises UnknownRulingError: for a point or option the catalogue lacks.
    :raises ValueError: for a point whose options the table does not list exactly.
    """
    for point, by_option in table.items():
        for option, sets in by_option.items():
            check_ruling(point, option)
            for other, its in sets.items():
                check_ruling(other, its)
        if sorted(by_option) != sorted(OPTIONS[point]):
            raise ValueError(f"{point} restates {sorted(by_option)}, not its options")
    return MappingProxyType({p: MappingProxyType(dict(b)) for p, b in table.items()})


def restate(rulings: Mapping[str, str], table: Restated) -> dict[str, str]:
    """``rulings`` with each Argentine point a restating point sets (``DISPUTE-48 natural``
    sets ``DISPUTE-25 natural``), so the rules code reads one ruling per fact."""
    found = dict(rulings)
    for point, by_option in table.items():
        found.update(by_option[rulings[point]])
    return found


def set_by(table: Restated) -> dict[str, str]:
    """The Argentine points ``table`` sets, each with the point that sets it (for a
    profile's fixed points)."""
    return {old: f"set by {new}" for new, by in table.items() for old in next(iter(by.values()))}
