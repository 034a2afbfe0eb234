"""TPC-C from the package: the workload's parameters, real runs on the
record store (consistency checks, the digest, pot's determinism) and the
tpcc experiment on a small grid.  Real runs use the C build directory
($POTMPY_BUILD_DIR, default: the checkout's build/) and are skipped, with
the reason, when its benchmark libraries lack tpcc."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import potm
from conftest import build_dir_with
from potm._lib import LibraryDir
from potm.experiments import EXPERIMENTS, Grid
from potm.reproduce import run_experiment

#: A population that loads in milliseconds (not TPC-C's own: reported so).
SMALL: dict[str, Any] = {"items": 1000, "customers": 30}


def _libs_with_tpcc(*backends: str) -> Path:
    """The build directory, if every backend's benchmark library has tpcc."""
    return build_dir_with("tpcc", *backends)


def test_parameters_and_argv() -> None:
    spec = potm.WORKLOADS["tpcc"]
    args = spec.validate({"warehouses": 0, "mix": "payment", "threads": 2, **SMALL})
    assert spec.argv(args) == ["tpcc", "-w", "0", "-m", "payment", "-I", "1000",
                               "-C", "30", "-t", "2"]
    with pytest.raises(ValueError, match=r"'mix' = 'neworder' is not allowed: one of "
                                         r"standard, new-order"):
        spec.validate({"mix": "neworder"})
    with pytest.raises(ValueError, match=r"'customers' = 3001 is out of range: an integer, "
                                         r"1..3000"):
        spec.validate({"customers": 3001})
    with pytest.raises(ValueError, match=r"'warehouses' = 4096 is out of range"):
        spec.validate({"warehouses": 4096})


def test_a_run_checks_consistency_and_reports_a_digest() -> None:
    libs = _libs_with_tpcc("tl2")
    r = potm.run("tpcc", backend="tl2", threads=2, warehouses=0, ops=150,
                 lib_dir=libs, **SMALL).check()
    assert r.verified and r.throughput > 0 and r.ops == 300
    raw: dict[str, Any] = r.raw or {}
    assert raw["warehouses"] == 2 and raw["scale"] == "reduced"  # -w 0: one per thread
    counts = raw["counts"]
    assert all(counts[f"consistency_{i}"] == "ok" for i in (1, 2, 3, 4))
    done = sum(counts[k] for k in ("new_order", "payment", "order_status", "delivery",
                                   "stock_level"))
    assert done == 300 and counts["new_order"] > counts["delivery"]
    assert len(counts["digest"]) == 16


def test_pot_gives_one_digest_per_seed() -> None:
    libs = _libs_with_tpcc("pot")
    def digest(seed: int) -> str:
        r = potm.run("tpcc", backend="pot", threads=2, warehouses=2, ops=200, seed=seed,
                     lib_dir=libs, **SMALL).check()
        assert r.raw is not None
        return str(r.raw["counts"]["digest"])

    digests = {digest(5) for _ in range(3)}
    assert len(digests) == 1
    assert digest(6) not in digests


def test_the_experiment_on_a_small_grid(tmp_path: Path) -> None:
    libs = LibraryDir(_libs_with_tpcc("tl2"))
    exp = EXPERIMENTS["tpcc"]
    small = replace(exp, quick=Grid(cases=exp.quick.cases, variants=("tl2",),
                                    threads=(1, 2), repeat=1,
                                    params={"duration": 100, **SMALL}))
    report = run_experiment(small, "quick", tmp_path, libs, progress=False,
                            stream=io.StringIO())
    assert report.status == "ok", report.reason
    with open(tmp_path / "tpcc.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {(r["benchmark"], r["threads"]) for r in rows} == {
        (c, t) for c in ("tpcc-w=1", "tpcc-w=threads", "tpcc-w=2") for t in ("1", "2")}
    assert all(r["ok"] == "True" and float(r["throughput"]) > 0 for r in rows)
    assert (tmp_path / "tpcc.png").stat().st_size > 1000


def test_lsd_interface_keeps_consistency_and_pot_s_digest() -> None:
    """New-Order and Payment with LSD: the consistency checks hold, and
    under pot (one order, so one outcome) the database is the one the
    standard transactions reach."""
    spec = potm.WORKLOADS["tpcc"]
    assert spec.argv(spec.validate({"interface": "lsd"})) == ["tpcc", "-a", "lsd"]
    libs = _libs_with_tpcc("tl2", "pot")
    r = potm.run("tpcc", backend="tl2", threads=2, warehouses=1, ops=200,
                 interface="lsd", lib_dir=libs, **SMALL).check()
    assert r.raw is not None and r.raw["interface"] == "lsd"
    assert all(r.raw["counts"][f"consistency_{i}"] == "ok" for i in (1, 2, 3, 4))

    def digest(interface: str) -> str:
        run = potm.run("tpcc", backend="pot", threads=2, warehouses=1, ops=200, seed=3,
                       interface=interface, lib_dir=libs, **SMALL).check()
        assert run.raw is not None
        return str(run.raw["counts"]["digest"])

    assert digest("lsd") == digest("std")


def test_dora_execution_keeps_consistency() -> None:
    """The transactions as DORA flow graphs (the workers as executors):
    the consistency checks hold and every transaction is counted; Pot's
    backends, which DORA cannot run on, refuse it."""
    spec = potm.WORKLOADS["tpcc"]
    assert spec.argv(spec.validate({"execution": "dora"})) == ["tpcc", "-e", "dora"]
    libs = _libs_with_tpcc("tl2")
    r = potm.run("tpcc", backend="tl2", threads=2, warehouses=2, ops=200,
                 execution="dora", lib_dir=libs, **SMALL).check()
    assert r.raw is not None and r.raw["execution"] == "dora"
    counts = r.raw["counts"]
    assert all(counts[f"consistency_{i}"] == "ok" for i in (1, 2, 3, 4))
    kinds = ("new_order", "payment", "order_status", "delivery", "stock_level")
    assert sum(counts[k] for k in kinds) == 400
    assert counts["dora_actions"] >= 400


def test_dora_private_execution_keeps_consistency() -> None:
    """DORA over private tables (no TM in the executors), a terminal's
    window of one: the conditions hold after the tables are copied back,
    every transaction is counted, and -W needs a DORA execution."""
    spec = potm.WORKLOADS["tpcc"]
    assert spec.argv(spec.validate({"execution": "dora-private", "window": 1})) == \
        ["tpcc", "-e", "dora-private", "-W", "1"]
    with pytest.raises(ValueError, match="window"):
        spec.validate({"window": 1})
    libs = _libs_with_tpcc("tl2")
    r = potm.run("tpcc", backend="tl2", threads=2, warehouses=2, ops=200,
                 execution="dora-private", window=1, lib_dir=libs, **SMALL).check()
    counts = r.raw["counts"] if r.raw is not None else {}
    assert all(counts[f"consistency_{i}"] == "ok" for i in (1, 2, 3, 4))
    kinds = ("new_order", "payment", "order_status", "delivery", "stock_level")
    assert sum(counts[k] for k in kinds) == 400
    assert r.raw is not None and r.raw["stats"]["commits"] == 0   # no TM transaction


def test_partitioned_execution_keeps_consistency() -> None:
    """The partitioned store (a lock per warehouse, no TM): New-Order with
    a tenth of its lines remote keeps the conditions, every transaction is
    counted, no TM transaction runs, and it needs New-Order or Payment
    alone (tm1 has no such execution)."""
    spec = potm.WORKLOADS["tpcc"]
    with pytest.raises(ValueError, match="mix"):
        spec.validate({"execution": "partitioned"})
    with pytest.raises(ValueError, match="execution"):
        potm.WORKLOADS["tm1"].validate({"execution": "partitioned"})
    libs = _libs_with_tpcc("tl2")
    r = potm.run("tpcc", backend="tl2", threads=2, warehouses=2, ops=200,
                 execution="partitioned", mix="new-order", remote_lines=10,
                 lib_dir=libs, **SMALL).check()
    counts = r.raw["counts"] if r.raw is not None else {}
    assert all(counts[f"consistency_{i}"] == "ok" for i in (1, 2, 3, 4))
    assert counts["new_order"] == 400 and counts["remote_order_lines"] > 0
    assert r.raw is not None and r.raw["stats"]["commits"] == 0   # no TM transaction


def test_tm1_conventional_and_dora() -> None:
    """TM1 from the package: both executions pass their checks and run the
    mix's seven transactions."""
    spec = potm.WORKLOADS["tm1"]
    assert spec.argv(spec.validate({"subscribers": 1000, "execution": "dora"})) == \
        ["tm1", "-s", "1000", "-e", "dora"]
    libs = build_dir_with("tm1", "tl2")
    with pytest.raises(ValueError, match="window"):
        spec.validate({"execution": "conventional", "window": 2})
    with pytest.raises(ValueError, match="execution"):
        potm.WORKLOADS["tpcc"].validate({"execution": "dora-inline"})
    for execution in ("conventional", "dora", "dora-private", "dora-inline"):
        r = potm.run("tm1", backend="tl2", threads=2, subscribers=1000, ops=1000,
                     execution=execution, lib_dir=libs).check()
        assert r.raw is not None and r.raw["execution"] == execution
        counts = r.raw["counts"]
        assert counts["get_subscriber_data"] > 0 and counts["update_location"] > 0
        assert counts["get_subscriber_data_ok"] == counts["get_subscriber_data"]


def test_tm1_affine_switch() -> None:
    """tm1's -A is a switch: True passes it alone, False leaves it out, a
    non-bool is refused, and it needs a DORA execution; a sweep puts both
    values on one axis and the runs report which they were."""
    spec = potm.WORKLOADS["tm1"]
    assert spec.argv(spec.validate({"execution": "dora-inline", "affine": True})) == \
        ["tm1", "-e", "dora-inline", "-A"]
    assert spec.argv(spec.validate({"execution": "dora-inline", "affine": False})) == \
        ["tm1", "-e", "dora-inline"]
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match=r"'affine' = .* is not a bool; expected True "
                                             r"\(pass -A\) or False"):
            spec.validate({"execution": "dora", "affine": bad})
    with pytest.raises(ValueError, match=r"'affine' = True needs 'execution'.*"
                                         r"'conventional', the default"):
        spec.validate({"affine": True})
    assert spec.validate({"affine": False}) == {"affine": False}   # off: nothing to need
    libs = build_dir_with("tm1", "tl2")
    table = potm.sweep("tm1", backends=["tl2"], threads=2, repeat=1, progress=False,
                       subscribers=1000, duration=100, execution="dora-inline",
                       affine=[False, True], lib_dir=libs)
    runs = {r.params["affine"]: r.check() for r in table.results or []}
    assert set(runs) == {False, True}
    for affine, r in runs.items():
        assert r.raw is not None and r.raw["affine"] == int(affine)
        assert r.raw["counts"]["dora_inline_runs"] > 0
