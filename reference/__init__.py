"""Reference rules engine for Carioca: four profiles, every disputed option playable.

The profiles are ``argentine`` (seed 000), ``chilean`` (seed 001), ``pagat`` (seed 002) and
``perla`` (seed 003), each stated in docs/rules.md; any option of any disputed point or house
variant is played by ``Profile.with_rulings`` (``reference.profiles``). Immutable values
throughout: cards, melds, actions and game states are frozen dataclasses. ``apply(state,
action)`` checks an action and returns the next state or raises ``IllegalActionError`` carrying
the ``Reason`` and rule ID. ``python -m reference.adapter`` serves the protocol of
docs/protocol.md (with ``--trace-rules`` and the interface modes of ``reference.interface``).
Only the standard library is used.

The modules, in the order a reader meets them: ``cards``, ``profiles`` (the rules as data, a
package with one module per profile; a rules branch asks ``profile.plays(point, option)``,
checked against the catalogue of points), ``melds`` and ``contracts`` (what a meld and an
opening are), ``state``, ``dealing``, ``game`` (the turn and ``apply``), ``melding`` and
``closing``; ``deadwood`` and ``scoring`` value hands, ``codec`` and ``adapter`` speak the
protocol, ``adapter_cli`` is the adapter's command line, ``trace`` records the rules decided by.
"""

from reference.actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    End,
    LayOff,
    Open,
    SwapJoker,
)
from reference.cards import JOKER, Card, Rank, Suit, full_pack, parse_cards, sort_cards
from reference.codec import (
    action_from_json,
    action_to_json,
    card_from_json,
    card_to_json,
    meld_from_json,
    meld_to_json,
    state_from_json,
    state_to_json,
)
from reference.contracts import Contract, check_contract, contract_for
from reference.errors import (
    CardParseError,
    IllegalActionError,
    InvalidActionError,
    InvalidStateError,
    RulesError,
    UnknownRulingError,
)
from reference.game import (
    GameState,
    Phase,
    apply,
    is_legal,
    legal_actions,
    new_game,
    next_deal,
    redeal,
    start_deal,
    validate_state,
)
from reference.melds import Meld, Run, TableMeld, Trio, check_meld
from reference.profiles import ARGENTINE, CHILEAN, PERLA, PROFILES, Profile, find_profile
from reference.reasons import Reason
from reference.scoring import penalty, ranking, score_deal, winners
from reference.solver import can_open, openings

__version__ = "0.1.0"

__all__ = [
    "ARGENTINE",
    "CHILEAN",
    "JOKER",
    "PERLA",
    "PROFILES",
    "Action",
    "Card",
    "CardParseError",
    "Contract",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "End",
    "GameState",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidStateError",
    "LayOff",
    "Meld",
    "Open",
    "Phase",
    "Profile",
    "Rank",
    "Reason",
    "RulesError",
    "Run",
    "Suit",
    "SwapJoker",
    "TableMeld",
    "Trio",
    "UnknownRulingError",
    "__version__",
    "action_from_json",
    "action_to_json",
    "apply",
    "can_open",
    "card_from_json",
    "card_to_json",
    "check_contract",
    "check_meld",
    "contract_for",
    "find_profile",
    "full_pack",
    "is_legal",
    "legal_actions",
    "meld_from_json",
    "meld_to_json",
    "new_game",
    "next_deal",
    "openings",
    "parse_cards",
    "penalty",
    "ranking",
    "redeal",
    "score_deal",
    "sort_cards",
    "start_deal",
    "state_from_json",
    "state_to_json",
    "validate_state",
    "winners",
]
