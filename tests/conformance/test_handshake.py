"""The handshake (conformance/adapter/handshake.py): what an engine declares is checked
before anything is asked of it."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from conformance.cli import main
from tests.paths import ROOT

PROXY = [sys.executable, str(ROOT / "tests" / "fake_adapters" / "declaring_proxy.py")]


def declaring(hello: dict[str, object]) -> str:
    return shlex.join([*PROXY, "--hello", json.dumps(hello)])


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--rule", "SCORE-1"],
        ["fuzz", "--games", "1", "--out", "{tmp}"],
        ["smoke"],
    ],
    ids=["run", "fuzz", "smoke"],
)
def test_profile_players_naming_a_count_its_profile_lacks_is_a_clear_handshake_error(
    command: list[str], tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """It reached the reference, which refused it naming the wrong profile (exit 3)."""
    adapter = declaring({"profile_players": {"argentine": [2, 3, 4, 5]}})
    argv = [part.replace("{tmp}", str(tmp_path)) for part in command]
    code = main([*argv, "--adapter", adapter])
    err = capsys.readouterr()
    said = err.out + err.err
    assert code == 3 if command[0] != "smoke" else code != 0
    assert "profile_players gives argentine 5 players" in said, said
    assert "chilean, pagat and perla seat 5" in said
