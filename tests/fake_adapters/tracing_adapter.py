"""The reference behind a relay that writes a scripted rule trace, for coverage by execution.

Run as ``python tracing_adapter.py [--fire KEY=RULES] [--refuse KEY=RULES] [--garbage]
[--trace-rules PATH]`` (or with ``CARIOCA_TRACE_RULES=PATH``). Every request is relayed to
the reference adapter and answered as it answers; for each one a trace line is appended to
PATH, in the format of the reference's ``--trace-rules``: ``{"id", "op", "decided",
"refused"}``. Which rules a line names is scripted: ``KEY`` is an op (``check_meld``) or
``act:TYPE`` (``act:draw_stock``), ``RULES`` comma-separated rule IDs; ``--refuse`` names
rules only when the answer is a rejection (``accepted`` or ``valid`` false). ``--garbage``
writes one malformed line first. Without a path nothing is traced.

Standard library only: it knows nothing of the harness.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from relay import ReferenceRelay


def scripted(pairs: list[str]) -> dict[str, list[str]]:
    """``["act:discard=TURN-5,END-1"]`` -> ``{"act:discard": ["TURN-5", "END-1"]}``."""
    table: dict[str, list[str]] = {}
    for pair in pairs:
        key, _, rules = pair.partition("=")
        table.setdefault(key, []).extend(r for r in rules.split(",") if r)
    return table


def main() -> int:
    """Relay stdin to the reference and trace each request as scripted."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--fire", action="append", default=[])
    parser.add_argument("--refuse", action="append", default=[])
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--trace-rules", default=os.environ.get("CARIOCA_TRACE_RULES"))
    args = parser.parse_args()
    fire, refuse = scripted(args.fire), scripted(args.refuse)
    trace = open(args.trace_rules, "a", encoding="utf-8") if args.trace_rules else None  # noqa: SIM115
    if trace is not None and args.garbage:
        trace.write("not a trace line\n")
        trace.flush()
    relay = ReferenceRelay()
    for line in sys.stdin:
        request = json.loads(line)
        answer = relay.ask(line)
        if trace is not None:
            op = request.get("op", "")
            key = f"act:{request['action'].get('type')}" if op == "act" else op
            said = json.loads(answer) if answer else {}
            refused = said.get("accepted") is False or said.get("valid") is False
            record = {
                "id": request.get("id"),
                "op": op,
                "decided": fire.get(key, []),
                "refused": refuse.get(key, []) if refused else [],
            }
            # Written before the answer, as the reference does, so a reader that has the
            # answer also has the line.
            trace.write(json.dumps(record) + "\n")
            trace.flush()
        sys.stdout.write(answer)
        sys.stdout.flush()
        if request.get("op") == "bye" or not answer:
            break
    relay.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
