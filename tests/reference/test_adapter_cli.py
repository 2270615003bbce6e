"""The reference adapter's command line (reference/adapter_cli.py): rulings read from
``--ruling`` pairs and a ``--rulings`` file, normalised and checked; a bad point or option is
a usage error (exit 2); ``python -m reference.adapter`` still serves through it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reference.adapter_cli import main, parse_rulings


def test_ruling_pairs_are_normalised_and_checked() -> None:
    assert parse_rulings(["dispute-31=at_least", "VARIANT-1=thirty"]) == {
        "DISPUTE-31": "at_least",
        "VARIANT-01": "thirty",
    }
    with pytest.raises(ValueError, match="DISPUTE-31: 'most' is not one of its options"):
        parse_rulings(["DISPUTE-31=most"])
    with pytest.raises(ValueError, match="DISPUTE-99 is not a disputed point"):
        parse_rulings(["DISPUTE-99=a"])
    with pytest.raises(ValueError, match="expected POINT=OPTION"):
        parse_rulings(["DISPUTE-31"])


def test_rulings_files_in_json_and_yaml_and_pairs_override_them(tmp_path: Path) -> None:
    as_json = tmp_path / "r.json"
    as_json.write_text('{"DISPUTE-19": "forbidden", "DISPUTE-31": "at_least"}', encoding="utf-8")
    as_yaml = tmp_path / "r.yaml"
    as_yaml.write_text('# house\nDISPUTE-19: forbidden\nDISPUTE-13: "yes"\n', encoding="utf-8")
    assert parse_rulings([], str(as_json)) == {"DISPUTE-19": "forbidden", "DISPUTE-31": "at_least"}
    assert parse_rulings(["DISPUTE-19=allowed"], str(as_yaml)) == {
        "DISPUTE-19": "allowed",
        "DISPUTE-13": "yes",
    }
    with pytest.raises(ValueError, match="cannot read"):
        parse_rulings([], str(tmp_path / "missing.yaml"))


@pytest.mark.parametrize(
    "argv", [["--ruling", "DISPUTE-31=nope"], ["--ruling", "VARIANT-77=x"], ["--ruling", "x"]]
)
def test_a_bad_ruling_on_the_command_line_exits_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_python_m_reference_adapter_serves_the_command_line(tmp_path: Path) -> None:
    # The module run as a program hands over to the command line: options, then protocol.
    rulings = tmp_path / "house.yaml"
    rulings.write_text("DISPUTE-31: at_least\n", encoding="utf-8")
    argv = [sys.executable, "-m", "reference.adapter", "--rulings", str(rulings)]
    argv += ["--capabilities", "melds", "--profiles", "argentine"]
    requests = [{"id": 1, "op": "hello", "protocol": 1}, {"id": 2, "op": "bye"}]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)
    hello, bye = (json.loads(line) for line in done.stdout.splitlines())
    assert hello["capabilities"] == ["melds"] and hello["profiles"] == ["argentine"]
    assert hello["rulings"]["DISPUTE-31"] == "at_least" and bye == {"id": 2}
    bad = subprocess.run([*argv, "--ruling", "DISPUTE-31=most"], capture_output=True, text=True)
    assert bad.returncode == 2 and "'most' is not one of its options" in bad.stderr
