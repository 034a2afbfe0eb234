"""potm.serverfig: Figures 5.4/5.5's runs, table and ratios (short)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_dir
from potm.serverfig import Point, main, summary


def _point(mode: str, w: int, tput: float) -> Point:
    return Point(mode, w, 8, 0, 100, tput, 1.0, 2.0, 0, True)


def test_summary_gives_the_targets_ratios() -> None:
    text = summary([_point("pot", 8, 100.0), _point("pot+fast", 8, 150.0),
                    _point("sequential", 8, 50.0)])
    assert "w=8 pot+fast/pot 1.50 at 8 clients (target >= 1.2)" in text
    assert "w=8 pot/sequential 2.00" in text
    assert "pot+lsd/pot" not in text   # not measured: no ratio


def test_quick_pass_writes_table_and_figure(tmp_path: Path) -> None:
    if not (build_dir() / "server" / "potm-server-pot").exists():
        pytest.skip("potm-server-pot is not built")
    rc = main(["--build", str(build_dir()), "--out", str(tmp_path), "--modes", "pot",
               "pot+fast", "--warehouses", "2", "--clients", "2", "--requests", "15",
               "--repeat", "1", "--customers", "30"])
    assert rc == 0
    rows = (tmp_path / "server.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("mode,warehouses,clients")
    assert (tmp_path / "server.png").stat().st_size > 0
    assert " pot+fast " in (tmp_path / "server.txt").read_text()


def test_many_clients_on_two_workers_every_run_verified(tmp_path: Path) -> None:
    """16 closed-loop clients keep the log's entries large: the workers
    running one and the walk of the next overlap, which must neither run a
    request twice nor skip one (each run's final checks and every request
    answered)."""
    if not (build_dir() / "server" / "potm-load").exists():
        pytest.skip("potm-server and potm-load are not built")
    rc = main(["--build", str(build_dir()), "--out", str(tmp_path), "--modes", "pot",
               "pot+fast", "--warehouses", "1", "--clients", "16", "--requests", "200",
               "--repeat", "5", "--customers", "30"])
    assert rc == 0, (tmp_path / "server.txt").read_text()


def test_digest_disagreement_is_reported() -> None:
    same = [Point("sequential", 1, 4, 0, 10, 1.0, 1.0, 1.0, 0, True, digest="aa"),
            Point("pot", 1, 4, 0, 10, 1.0, 1.0, 1.0, 0, True, digest="aa"),
            Point("occ", 1, 4, 0, 10, 1.0, 1.0, 1.0, 0, True, digest="cc")]
    assert "digests: agree" in summary(same)
    differ = same + [Point("pot+fast", 1, 4, 0, 10, 1.0, 1.0, 1.0, 0, True, digest="bb")]
    assert "digests: DIFFER w=1 clients=4 #1: pot=aa pot+fast=bb sequential=aa" \
        in summary(differ)


def test_stream_pass_digests_agree_and_failures_are_recorded(tmp_path: Path) -> None:
    """--stream: one potm-server --stream run per point, the ordered modes
    ending with one digest per repeat; a server that refuses its options
    is a failed point in the table, not a crash."""
    if not (build_dir() / "server" / "potm-server-pot").exists():
        pytest.skip("potm-server-pot is not built")
    modes = ["sequential", "pot", "pot+fast"] if (
        build_dir() / "server" / "potm-server-seq").exists() else ["pot", "pot+fast"]
    common = ["--build", str(build_dir()), "--stream", "--modes", *modes,
              "--warehouses", "2", "--clients", "4", "--stream-requests", "120",
              "--customers", "30"]
    rc = main(common + ["--out", str(tmp_path / "ok"), "--repeat", "2"])
    text = (tmp_path / "ok" / "server.txt").read_text()
    assert rc == 0, text
    rows = (tmp_path / "ok" / "server.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * len(modes)
    assert "ordered modes' digests: agree" in text
    # pot with 3 requests per transaction reaches the same states; the
    # keyed mode, which runs one per transaction, is not passed the option.
    rc = main(common + ["--out", str(tmp_path / "per_tx"), "--repeat", "1",
                        "--requests-per-tx", "3"])
    text = (tmp_path / "per_tx" / "server.txt").read_text()
    assert rc == 0 and "ordered modes' digests: agree" in text, text
    assert "requests per transaction: pot 3" in text, text
    # entries of one request: four in flight, each client's next proposed
    # on its response; the log, and so every digest, is the same
    rc = main(common + ["--out", str(tmp_path / "entry"), "--repeat", "1", "--entry", "1"])
    text = (tmp_path / "entry" / "server.txt").read_text()
    assert rc == 0 and "ordered modes' digests: agree" in text, text
    assert "requests per log entry: 1" in text, text
    # pot taking in the next transactions while it waits: same states
    rc = main(common + ["--out", str(tmp_path / "extend"), "--repeat", "1", "--extend", "2",
                        "--entry", "2"])
    text = (tmp_path / "extend" / "server.txt").read_text()
    assert rc == 0 and "ordered modes' digests: agree" in text, text
    assert "transactions taken in while waiting (--extend): pot 2" in text, text
    with pytest.raises(SystemExit):
        main(common + ["--out", str(tmp_path / "x"), "--entry", "0"])
    rc = main(common + ["--out", str(tmp_path / "bad"), "--repeat", "1",
                        "--server-arg=--no-such-option"])
    assert rc == 1
    text = (tmp_path / "bad" / "server.txt").read_text()
    assert "every run failed" in text and "failed: w=2 pot clients=4 #1: exit 2" in text
