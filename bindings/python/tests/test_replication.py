"""potm-server replicated with Raft: three replicas on loopback ports.

Each test starts its own cluster (potm-server-pot --replica, data
directories in the test's temporary directory), snapshots every few log
entries so that snapshots are really taken and sent, and stops every
replica at the end.  What is checked is state: digests at equal applied
prefixes, balances, response values, snapshot counters; never timing.
"""

from __future__ import annotations

import struct
import subprocess
import threading
from pathlib import Path
from typing import Iterator

import pytest

from conftest import build_dir, check_bad_input, send_half_request
from potm.server import (ERR_MALFORMED, ERR_NOT_LEADER, OK, TX_BALANCE, TX_TRANSFER, Client,
                         Cluster)
from potm.serverload import LoadResult, run_load

#: Log entries between snapshots: small, so that a replica that misses a
#: few dozen entries is sent a snapshot (libraft keeps half as many
#: entries after one).
SNAPSHOT_EVERY = 8


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    cl = Cluster(build_dir(), tmp_path, snapshot_every=SNAPSHOT_EVERY, election_ms=500)
    binary = cl.build_dir / "server" / "potm-server-pot"
    if not binary.exists():
        pytest.skip(f"{binary} is not built")
    usage = subprocess.run([str(binary), "--help"], capture_output=True, text=True).stdout
    if "not in this build" in usage:
        pytest.skip(f"{binary} is built without libraft")
    with cl:
        yield cl
    finals = [s.final for s in cl.servers]
    assert all(f.get("verified") is True for f in finals), finals


def _transfers(c: Client, n: int, first: int = 0, account: int = 0) -> list[int]:
    """n transfers of 1 from account (0..2) to accounts 3..15; account's
    balance after each, as the responses say."""
    out = []
    for i in range(first, first + n):
        r = c.call(TX_TRANSFER, [account, 3 + i % 13, 1])
        assert r.status == OK and r.values[0] == 1, r
        out.append(r.values[1])
    return out


def _equal_digests(cl: Cluster) -> dict[str, int]:
    sts = cl.converged()
    assert len({st["digest"] for st in sts}) == 1, sts
    assert len({st["positions"] for st in sts}) == 1, sts
    return sts[0]


def test_follower_killed_catches_up_from_snapshot(cluster: Cluster) -> None:
    leader = cluster.wait_leader()
    follower = 1 + leader % 3
    # TPC-C from two more clients all along: the snapshots carry its nine
    # tables and their secondary indexes, and the restarted replica's
    # final checks (the fixture's "verified") cover them.
    tpcc: list[LoadResult] = []
    load = threading.Thread(target=lambda: tpcc.append(
        run_load(cluster.ports, clients=2, requests_per_client=40)))
    load.start()
    with cluster.client() as c:
        seen = _transfers(c, 12)
        cluster.converged()
        took = cluster.status(follower)
        assert took is not None and took["snapshots"] >= 1, took
        cluster.kill(follower)
        seen += _transfers(c, 40, first=12)
        cluster.restart(follower)
        seen += _transfers(c, 6, first=52)
    load.join(120)
    assert tpcc and tpcc[0].requests == 80 and tpcc[0].errors == 0
    # Each transfer took exactly 1 from account 0: executed once, in order.
    assert seen == [1000 - k for k in range(1, 59)]
    st = _equal_digests(cluster)
    assert st["executed"] == 58 + 80
    back = cluster.status(follower)
    # Its own snapshot at start, then the leader's: the leader kept only
    # a few entries before its latest snapshot, far past where the
    # follower's log ends.
    assert back is not None and back["restores"] >= 2, back
    assert any((cluster.status(i) or {}).get("snapshots", 0) >= 1 for i in (1, 2, 3))


def test_leader_killed_clients_retry_exactly_once(cluster: Cluster) -> None:
    old = cluster.wait_leader()
    clients = 3
    seen: list[list[int]] = [[] for _ in range(clients)]
    errors: list[BaseException] = []
    started = threading.Barrier(clients + 1, timeout=60)

    def run(j: int) -> None:
        try:
            with cluster.client(timeout_s=3.0) as c:
                seen[j].extend(_transfers(c, 10, account=j))
                started.wait()
                seen[j].extend(_transfers(c, 30, first=10, account=j))
        except BaseException as e:   # reported by the main thread
            errors.append(e)
            started.abort()

    threads = [threading.Thread(target=run, args=(j,)) for j in range(clients)]
    for t in threads:
        t.start()
    started.wait()
    cluster.kill(old)   # while the clients keep sending
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads) and not errors, errors
    new = cluster.wait_leader()
    assert new != old
    # Every acknowledged transfer is in the state, none twice: each
    # client's account lost exactly one per transfer, and each response
    # saw the client's transfer before it.
    for j in range(clients):
        assert seen[j] == [1000 - k for k in range(1, 41)], (j, seen[j])
    assert _equal_digests(cluster)["executed"] == 40 * clients
    with cluster.client() as c:
        for j in range(clients):
            assert c.call(TX_BALANCE, [j]).values == [960]
        assert sum(c.call(TX_BALANCE, [a]).values[0] for a in range(16)) == 16 * 1000
    cluster.restart(old)
    _equal_digests(cluster)


def test_bad_input_on_replicas_leaves_others_served(cluster: Cluster) -> None:
    leader = cluster.wait_leader()
    follower = 1 + leader % 3
    lport, fport = cluster.servers[leader - 1].port, cluster.servers[follower - 1].port
    with Client(fport) as f:
        r = f.call(TX_TRANSFER, [0, 1, 5])
        assert r.status == ERR_NOT_LEADER and r.values == [leader, lport], r
        assert f"127.0.0.1:{lport}" in r.message
        f.send_raw(struct.pack("<I", 8) + bytes(8))
        assert f.recv().status == ERR_MALFORMED
    with Client(lport) as good, Client(lport) as bad:
        check_bad_input(bad)
        for port in (lport, fport):
            send_half_request(port)
        assert good.call(TX_TRANSFER, [2, 3, 5]).values == [1, 995, 1005]
    with cluster.client() as c:
        assert c.call(TX_BALANCE, [3]).values == [1005]
    _equal_digests(cluster)
