"""A minimal Carioca engine and adapter: protocol 1, the `melds` capability, `argentine`.

It answers the three melds questions (check_meld, check_contract, penalty) from the
Argentine rules of docs/rules.md: trios MELD-TRIO-1..4, runs MELD-RUN-1..6, jokers
JOKER-1..3, contracts CONTRACT-1..8, card values SCORE-2. It claims nothing else: no
`turns`, no `deals`, no rejection `reasons`, one profile. Every disputed point is played
as the profile's default, so the handshake declares no rulings.
Run it: carioca-conformance run --adapter "python3 docs/quickstart/adapter.py"
"""

import json
import sys

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(2, 11)}}
SUITS = "SHDC"
# The deal's contract: (trios, runs), CONTRACT-1..7.
CONTRACTS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}


class BadRequest(Exception):
    """The request cannot be read: a missing field, an unknown card code."""


def parse(code):
    """A card code as (rank, suit), or None for a joker."""
    if code == "JK":
        return None
    if not isinstance(code, str) or code[-1:] not in SUITS or code[:-1] not in RANKS:
        raise BadRequest(f"unknown card code {code!r}")
    return RANKS[code[:-1]], code[-1]


def is_trio(cards, initial):
    """MELD-TRIO: one rank among the natural cards; in an opening 3 cards, one joker at most."""
    naturals = [c for c in map(parse, cards) if c]
    jokers = len(cards) - len(naturals)
    if initial and (len(cards) != 3 or jokers > 1):  # MELD-TRIO-1, JOKER-2
        return False
    # MELD-TRIO-3; a trio needs a natural card to have a rank at all.
    return len(cards) >= 3 and bool(naturals) and len({r for r, _ in naturals}) == 1


def fits(card, position):
    """Whether a card may lie at a run position: a joker anywhere, an ace at 1 or 14."""
    return card is None or card[0] == position or (card[0] == 1 and position == 14)


def is_run(cards, initial):
    """MELD-RUN: one suit, listed low to high, each card at its own position (A is 1 or 14)."""
    parsed = list(map(parse, cards))
    naturals = [c for c in parsed if c]
    if initial and (len(cards) != 4 or len(naturals) < 3):  # MELD-RUN-1, JOKER-2
        return False
    if not 4 <= len(cards) <= 14 or not naturals or len({s for _, s in naturals}) != 1:
        return False
    # Try every start position: the run must lie within 1 (low ace) .. 14 (high ace),
    # which rules out turning the K-A-2 corner (MELD-RUN-3, MELD-RUN-5).
    for start in range(1, 16 - len(cards)):
        if all(fits(card, position) for position, card in enumerate(parsed, start)):
            return True
    return False


def is_meld(meld, initial):
    """Whether a {kind, cards} meld is valid, in an opening (initial) or on the table."""
    kind, cards = meld["kind"], meld["cards"]
    if kind == "trio":
        return is_trio(cards, initial)
    if kind == "run":
        return is_run(cards, initial)
    raise BadRequest(f"unknown meld kind {kind!r}")


def is_contract(deal_number, melds):
    """CONTRACT-8: exactly the deal's trios and runs, each a valid opening meld."""
    if deal_number not in CONTRACTS:
        raise BadRequest(f"no deal {deal_number!r} in argentine")
    valid = all(is_meld(m, initial=True) for m in melds)
    kinds = ([m["kind"] for m in melds].count("trio"), [m["kind"] for m in melds].count("run"))
    return valid and kinds == CONTRACTS[deal_number]


def penalty(cards):
    """SCORE-2: the points of the cards left in a hand."""
    total = 0
    for card in map(parse, cards):
        # A joker 50, an ace 20, J Q K 10, 2 to 10 at face value.
        total += 50 if card is None else 20 if card[0] == 1 else min(card[0], 10)
    return total


def handle(request):
    """The answer's fields for one request."""
    op = request["op"]
    if op == "hello":
        return {
            "protocol": 1,
            "implementation": {"name": "quickstart-py", "version": "1", "language": "python"},
            "profiles": ["argentine"],
            "capabilities": ["melds"],
            "rulings": {},
            "max_in_flight": 2,  # it reads stdin a line at a time
        }
    if op == "bye":
        return {}
    if op in ("check_meld", "check_contract", "penalty") and request["profile"] != "argentine":
        return {"error": {"kind": "unsupported", "message": "argentine only"}}
    if op == "check_meld":
        if not isinstance(request["initial"], bool):
            raise BadRequest("initial is not a boolean")
        return {"valid": is_meld(request["meld"], request["initial"])}
    if op == "check_contract":
        return {"valid": is_contract(request["deal_number"], request["melds"])}
    if op == "penalty":
        return {"points": penalty(request["cards"])}
    if op in OTHER_OPS:  # a protocol op this adapter does not play yet
        return {"error": {"kind": "unsupported", "message": f"no op {op!r}"}}
    raise BadRequest(f"unknown op {op!r}")  # not in the protocol at all


OTHER_OPS = {"load_state", "act", "new_game", "start_deal", "next_deal", "redeal"}


def main():
    """One JSON request per line in, one answer per line out, flushed; logs to stderr."""
    for line in sys.stdin:
        request = None
        try:
            request = json.loads(line)
            answer = handle(request)
        except (KeyError, TypeError, ValueError, BadRequest) as exc:
            answer = {"error": {"kind": "bad_request", "message": f"cannot read: {exc!r}"}}
        except Exception as exc:  # an engine bug costs one answer, never the session
            print(f"internal error: {exc!r}", file=sys.stderr)
            answer = {"error": {"kind": "internal", "message": repr(exc)}}
        rid = request.get("id") if isinstance(request, dict) else None
        print(json.dumps({"id": rid, **answer}, separators=(",", ":")), flush=True)
        if isinstance(request, dict) and request.get("op") == "bye":
            return


if __name__ == "__main__":
    main()
