"""The reference adapter behind a proxy that puts hostile text in everything it can.

Valid JSON, schema-valid answers, but the text is poison for printing and reports:
the engine's name, every ``reason``, an error message (on ``penalty``, or on each
``--error-on`` op) and stderr carry ``--text`` (a JSON string literal, so ``"\\ud800"``
gives a lone surrogate), repeated ``--repeat`` times. With ``--whole-hello`` the text is
also in the handshake's version and language, in the value of every ruling it declares (an
option no catalogue knows, so the run warns naming it) and in an engine-private extra.
Used by tests/conformance/test_hardening.py.

    evil_text_proxy.py --text '"\\ud800 \\ufffe \\u001b[2J \\u0007 \\u0000"' --repeat 1
"""

from __future__ import annotations

import argparse
import json
import sys

from relay import ReferenceRelay


def main() -> int:
    """Forward requests to the reference adapter, poisoning the text of its answers."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--text", required=True, help="a JSON string literal")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--tag", help="ignored; lets tests find their processes")
    parser.add_argument(
        "--error-on",
        action="append",
        help="answer this op with an internal error carrying the "
        "text (repeatable; default: penalty)",
    )
    parser.add_argument("--whole-hello", action="store_true", help="poison every hello text")
    args = parser.parse_args()
    evil = json.loads(args.text) * args.repeat
    erring = set(args.error_on or ["penalty"])
    reference = ReferenceRelay()
    for line in sys.stdin:
        answer = json.loads(reference.ask(line))
        op = json.loads(line).get("op")
        # ensure_ascii (the default) writes a lone surrogate as the escape \ud800.
        sys.stderr.write(json.dumps(f"evil proxy on {op}: {evil}")[1:-1] + "\n")
        sys.stderr.write(f"raw stderr on {op}: \x1b[2J\x07\x00\ufffe\uffff\n")
        sys.stderr.flush()
        if op == "hello":
            answer["implementation"]["name"] = "evil " + evil
            if args.whole_hello:
                answer["implementation"]["version"] = "0.1 " + evil
                answer["implementation"]["language"] = "python " + evil
                answer["rulings"] = {k: "evil " + evil for k in answer.get("rulings", {})}
                answer["x"] = {evil: evil}
        elif op in erring:
            answer = {"id": answer["id"], "error": {"kind": "internal", "message": evil}}
        elif "reason" in answer:
            answer["reason"] = evil
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    reference.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
