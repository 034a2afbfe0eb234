"""The potm command line."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import potm
from conftest import SEED_CRASH, logged_calls
from potm.cli import _build_parser, _workload_values, main


def _potm(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the command in this process: (exit status, stdout, stderr)."""
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_backends(fake_lib_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _potm(["backends", "--lib-dir", str(fake_lib_dir), "-v"], capsys)
    assert status == 0
    assert "fake" in out and "bench: yes" in out
    assert "abort causes: read_locked, validate" in out
    # What the HTM backends can do on this machine, said either way.
    assert "hardware: this CPU has" in out and "Intel RTM" in out
    assert "rot and pot-rot" in out


def test_run(fake_lib_dir: Path, fake_log: Path,
             capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _potm(["run", "intset", "--backend", "fake", "--threads", "2",
                            "-s", "hs", "--update", "5", "-i", "10", "--range", "100",
                            "--lib-dir", str(fake_lib_dir)], capsys)
    assert status == 0
    assert out.splitlines()[0] == "intset on fake, 2 thread(s): ok"
    assert "throughput 2005 ops/s" in out
    [call] = logged_calls(fake_log)
    assert call[1:] == ["intset", "-s", "hs", "-i", "10", "-r", "100", "-u", "5", "-t", "2"]


def test_run_json_and_config(fake_lib_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _potm(["run", "bank", "-b", "fake", "-a", "16", "--json",
                            "--config", "lock_bits=12", "--lib-dir", str(fake_lib_dir)],
                           capsys)
    assert status == 0
    data = json.loads(out)
    assert data["ok"] and data["params"] == {"accounts": 16}
    assert data["config"] == {"POTM_LOCK_BITS": "12"}


def test_failed_run_exits_1(fake_lib_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _potm(["run", "bank", "-b", "fake", "-S", str(SEED_CRASH),
                              "--lib-dir", str(fake_lib_dir)], capsys)
    assert status == 1
    assert "FAILED" in out and "SIGSEGV" in err and "crashing on purpose" in err


@pytest.mark.parametrize("args,message", [
    (["run", "intset", "-b", "fake", "-u", "200"], "'update' = 200 is out of range"),
    (["run", "intset", "-b", "fake", "-u", "x"], "--update: 'x' is not an integer"),
    (["run", "bank", "-b", "nope"], "unknown backend 'nope'"),
    (["run", "bank", "-b", "fake", "--config", "lock_bits"], "expected name=value"),
    (["sweep", "bank", "-b", "fake", "--repeat", "0"], "--repeat 0"),
])
def test_usage_errors_exit_2(fake_lib_dir: Path, capsys: pytest.CaptureFixture[str],
                             args: list[str], message: str) -> None:
    status, _, err = _potm([*args, "--lib-dir", str(fake_lib_dir)], capsys)
    assert status == 2
    assert message in err


@pytest.mark.parametrize("args,values", [
    (["run", "tm1", "-b", "x", "-e", "dora", "-A"], {"execution": "dora", "affine": True}),
    (["run", "tm1", "-b", "x", "--affine", "false"], {"affine": False}),
    (["sweep", "tm1", "-b", "x", "--affine", "false,true"], {"affine": [False, True]}),
    (["sweep", "tm1", "-b", "x", "-A"], {"affine": [True]}),
    (["run", "tm1", "-b", "x"], {}),
])
def test_switches_alone_or_with_values(args: list[str], values: dict[str, Any]) -> None:
    """A switch is given alone (as the benchmark takes it) or as true or
    false, a sweep's axis as a list of them."""
    parsed = _build_parser().parse_args(args)
    assert _workload_values(parsed, lists=parsed.command == "sweep") == values


def test_switch_values_other_than_true_or_false_exit_2(
        fake_lib_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _potm(["sweep", "tm1", "-b", "fake", "--affine", "false,1",
                            "--lib-dir", str(fake_lib_dir)], capsys)
    assert status == 2
    assert "--affine: '1' is not true or false" in err


def test_sweep(fake_lib_dir: Path, fake_log: Path, tmp_path: Path,
               capsys: pytest.CaptureFixture[str]) -> None:
    runs_csv, median_csv = tmp_path / "runs.csv", tmp_path / "median.csv"
    args = ["sweep", "bank", "-b", "fake", "-t", "1,2", "-r", "0,50", "--repeat", "2",
            "--cache", str(tmp_path / "c.jsonl"), "--csv", str(runs_csv),
            "--median-csv", str(median_csv), "--no-progress",
            "--lib-dir", str(fake_lib_dir)]
    status, out, _ = _potm(args, capsys)
    assert status == 0
    header, *rows = out.splitlines()
    assert header.split() == ["workload", "backend", "threads", "readonly", "runs",
                              "failures", "throughput", "commits", "aborts"]
    assert len(rows) == 4 and rows[-1].split()[:7] == ["bank", "fake", "2", "50", "2",
                                                       "0", "2050"]
    with open(runs_csv, newline="") as f:
        assert len(list(csv.DictReader(f))) == 8
    with open(median_csv, newline="") as f:
        assert len(list(csv.DictReader(f))) == 4
    assert len(logged_calls(fake_log)) == 8
    assert _potm(args, capsys)[0] == 0  # resumed from the cache: nothing runs
    assert len(logged_calls(fake_log)) == 8


def test_sweep_with_a_failure_exits_1(fake_lib_dir: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _potm(["sweep", "bank", "-b", "fake", "-S", f"1,{SEED_CRASH}",
                              "--repeat", "1", "--lib-dir", str(fake_lib_dir)], capsys)
    assert status == 1
    assert "SIGSEGV" in err
    assert len(out.splitlines()) == 3


def test_python_dash_m(fake_lib_dir: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(potm.__file__).parent.parent))
    done = subprocess.run([sys.executable, "-m", "potm", "backends", "--lib-dir",
                           str(fake_lib_dir)], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "fake" in done.stdout
