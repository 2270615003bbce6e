"""The reference adapter behind a proxy that tells a test when to act, or leaves a daemon.

--marker PATH --after N   on its Nth request after hello, write PATH and never answer:
                          the test then knows the harness is waiting on this adapter
                          (no timing involved) and sends it a signal.
--daemon-pid-file PATH    at start, fork a daemon that leaves the process group with
                          setsid (a double fork, so init or a subreaper adopts it) and
                          sleeps; its pid goes to PATH.
--scrub-env               the daemon runs with an empty environment (no session token).

Used by tests/conformance/test_hardening.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from relay import ReferenceRelay


def spawn_daemon(pid_file: str, scrub: bool) -> None:
    """Double fork + setsid: the daemon is in no process group of the adapter.

    The intermediate writes the daemon's pid before it exits and the adapter waits for
    the intermediate, so the file exists before the adapter answers hello.
    """
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return
    os.setsid()
    second = os.fork()
    if second:
        tmp = pid_file + ".tmp"
        with open(tmp, "w", encoding="ascii") as handle:
            handle.write(str(second))
        os.replace(tmp, pid_file)
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    argv = [sys.executable, "-c", "import time; time.sleep(3600)", "escaped-daemon"]
    os.execve(sys.executable, argv, {} if scrub else dict(os.environ))


def main() -> int:
    """Relay to the reference; mark the Nth request and hang, or leave a daemon."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--marker")
    parser.add_argument("--after", type=int, default=1)
    parser.add_argument("--daemon-pid-file")
    parser.add_argument("--scrub-env", action="store_true")
    parser.add_argument("--tag", help="ignored; lets tests find their processes")
    args = parser.parse_args()
    if args.daemon_pid_file:
        spawn_daemon(args.daemon_pid_file, args.scrub_env)
    reference = ReferenceRelay()
    seen = 0
    for line in sys.stdin:
        if json.loads(line).get("op") != "hello":
            seen += 1
        if args.marker and seen == args.after and not os.path.exists(args.marker):
            tmp = args.marker + f".{os.getpid()}.tmp"
            with open(tmp, "w", encoding="ascii") as handle:
                handle.write(str(os.getpid()))
            os.replace(tmp, args.marker)
            time.sleep(3600)
        sys.stdout.write(reference.ask(line))
        sys.stdout.flush()
    reference.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
