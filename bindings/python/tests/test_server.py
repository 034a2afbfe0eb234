"""potm-server from Python: the client, the load generator, bad input.

Every server is started by the fixture on a free loopback port and always
stopped; what is checked is state (statuses, balances, digests, the
server's own consistency checks), never timing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from conftest import build_dir, check_bad_input, send_half_request
from potm.server import OK, TX_BALANCE, TX_TRANSFER, Client, ServerProcess
from potm.serverload import run_load


def _server(mode: str) -> ServerProcess:
    srv = ServerProcess(build_dir(), mode=mode)
    if not srv.binary.exists():
        pytest.skip(f"{srv.binary} is not built")
    return srv


@pytest.fixture
def pot_server() -> Iterator[ServerProcess]:
    with _server("pot") as srv:
        yield srv
    assert srv.final.get("verified") is True, srv.final


def test_call_retry_and_status(pot_server: ServerProcess) -> None:
    with Client(pot_server.port) as c:
        r = c.call(TX_TRANSFER, [0, 1, 10])
        assert r.status == OK and r.values == [1, 990, 1010]
        # The same request id on a new connection: answered, not re-executed.
        with Client(pot_server.port, client_id=c.client_id) as again:
            again.send(TX_TRANSFER, [0, 1, 10], request_id=r.request_id)
            assert again.recv().values == [1, 990, 1010]
        assert c.call(TX_BALANCE, [0]).values == [990]
        status = c.status()
        assert status["executed"] == 2 and status["warehouses"] == 1


def test_bad_input_leaves_others_served(pot_server: ServerProcess) -> None:
    with Client(pot_server.port) as good, Client(pot_server.port) as bad:
        check_bad_input(bad)
        send_half_request(pot_server.port)
        assert good.call(TX_TRANSFER, [2, 3, 5]).values == [1, 995, 1005]


@pytest.mark.parametrize("mode", ["pot", "pot+lsd", "pot+fast", "pot+lsd+fast", "occ",
                                  "sequential"])
def test_load_run_is_consistent(mode: str) -> None:
    srv = _server(mode)
    with srv:
        result = run_load(srv.port, clients=4, requests_per_client=60)
        assert result.requests == 240 and result.errors == 0
        assert result.throughput > 0 and result.p99_latency_ms >= 0
    assert srv.final["verified"] is True, srv.final
    assert srv.final["executed"] == 240


def test_hot_key_load_keeps_the_total(pot_server: ServerProcess) -> None:
    result = run_load(pot_server.port, clients=3, requests_per_client=50, workload="hot")
    assert result.requests == 150 and result.errors == 0
    with Client(pot_server.port) as c:
        total = sum(c.call(TX_BALANCE, [a]).values[0] for a in range(16))
    assert total == 16 * 1000


def test_server_binary_path(tmp_path: Path) -> None:
    assert ServerProcess(Path("b"), mode="occ").binary == Path("b/server/potm-server-tl2")
    with pytest.raises(FileNotFoundError, match="2pl backend"):
        ServerProcess(tmp_path, mode="2pl").start()
