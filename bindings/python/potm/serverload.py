"""A closed-loop load generator for potm-server.

N clients, each on its own thread and connection, send one request at a
time with no think time: the next leaves as soon as the previous response
came.  Requests are TPC-C's mix (45/43/4/4/4 % New-Order, Payment,
Order-Status, Delivery, Stock-Level, inputs drawn as clause 2 draws them,
client i at home warehouse i mod W + 1) or bank transfers on one hot
account.  The result: throughput (responses per second) and the mean and
p99 latency.

>>> import random
>>> p = tpcc_params(random.Random(1), 1, warehouses=1, items=1000, customers=30)
>>> p[0] in TPCC_TYPES and p[1][0] == 1
True
"""

from __future__ import annotations

import json
import random
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, Union

from potm.server import (OK, ROLLED_BACK, TX_DELIVERY, TX_NEW_ORDER, TX_ORDER_STATUS,
                         TX_PAYMENT, TX_STOCK_LEVEL, TX_TRANSFER, Client)

TPCC_TYPES = (TX_NEW_ORDER, TX_PAYMENT, TX_ORDER_STATUS, TX_DELIVERY, TX_STOCK_LEVEL)


@dataclass
class LoadResult:
    """What a load run measured."""

    clients: int
    requests: int
    errors: int
    elapsed_s: float
    throughput: float       # responses per second
    mean_latency_ms: float
    p99_latency_ms: float


def _nurand(r: random.Random, a: int, x: int, y: int, c: int = 0) -> int:
    return ((r.randint(0, a) | r.randint(x, y)) + c) % (y - x + 1) + x


def tpcc_params(r: random.Random, home: int, warehouses: int, items: int,
                customers: int) -> tuple[int, list[int]]:
    """A TPC-C request (type, parameters) at warehouse home, as clause 2 draws it."""
    k = r.randint(1, 100)
    d = r.randint(1, 10)
    max_name = min(customers, 1000) - 1

    def other() -> int:
        return r.choice([w for w in range(1, warehouses + 1) if w != home])

    if k <= 45:
        lines = r.randint(5, 15)
        p = [home, d, _nurand(r, 1023, 1, customers), lines]
        for _ in range(lines):
            supply = other() if warehouses > 1 and r.randint(1, 100) == 1 else home
            p += [_nurand(r, 8191, 1, items), supply, r.randint(1, 10)]
        if r.randint(1, 100) == 1:
            p[4 + 3 * (lines - 1)] = items + 1   # rolls back (clause 2.4.1.4)
        return TX_NEW_ORDER, p
    if k <= 88:
        c_w, c_d = home, d
        if warehouses > 1 and r.randint(1, 100) > 85:
            c_w, c_d = other(), r.randint(1, 10)
        by_name = r.randint(1, 100) <= 60
        c_id = 0 if by_name else _nurand(r, 1023, 1, customers)
        name = _nurand(r, 255, 0, max_name) if by_name else 0
        return TX_PAYMENT, [home, d, c_w, c_d, c_id, name, r.randint(100, 500000)]
    if k <= 92:
        by_name = r.randint(1, 100) <= 60
        c_id = 0 if by_name else _nurand(r, 1023, 1, customers)
        return TX_ORDER_STATUS, [home, d, c_id, _nurand(r, 255, 0, max_name) if by_name else 0]
    if k <= 96:
        return TX_DELIVERY, [home, r.randint(1, 10)]
    return TX_STOCK_LEVEL, [home, d, r.randint(10, 20)]


def run_load(port: Union[int, Sequence[int]], clients: int, requests_per_client: int, workload: str = "tpcc",
             warehouses: int = 1, items: int = 1000, customers: int = 30,
             accounts: int = 16, seed: int = 1) -> LoadResult:
    """Drive the server on port with a closed loop; see the module's doc.

    workload is "tpcc" or "hot" (transfers from account 0 to the others).
    port may list a cluster's replicas (each client finds the leader).
    """
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients

    def client_main(i: int) -> None:
        r = random.Random(seed * 1000003 + i)
        home = i % warehouses + 1
        with Client(port) as c:
            for _ in range(requests_per_client):
                if workload == "tpcc":
                    type_, params = tpcc_params(r, home, warehouses, items, customers)
                else:
                    type_, params = TX_TRANSFER, [0, r.randint(1, accounts - 1),
                                                  r.randint(1, 10)]
                t0 = time.perf_counter()
                resp = c.call(type_, params)
                latencies[i].append(time.perf_counter() - t0)
                if resp.status not in (OK, ROLLED_BACK):
                    errors[i] += 1

    threads = [threading.Thread(target=client_main, args=(i,)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    lat = sorted(x for one in latencies for x in one)
    return LoadResult(clients=clients, requests=len(lat), errors=sum(errors),
                      elapsed_s=elapsed, throughput=len(lat) / elapsed if elapsed else 0.0,
                      mean_latency_ms=1000 * sum(lat) / len(lat) if lat else 0.0,
                      p99_latency_ms=1000 * _percentile(lat, 99))


def run_load_native(binary: Path, port: int, clients: int, requests_per_client: int,
                    workload: str = "tpcc", warehouses: int = 1, items: int = 1000,
                    customers: int = 30, accounts: int = 16, seed: int = 1,
                    timeout_s: float = 600.0) -> LoadResult:
    """The same closed loop run by potm-load (server/load.c, its binary:
    build/server/potm-load): C client threads, for measurements where this
    process's clients, which share one interpreter lock, would be the
    bottleneck.  Its requests are drawn the same way, from its own random
    stream.  RuntimeError if it fails."""
    args = [str(binary), "--port", str(port), "--clients", str(clients),
            "--requests", str(requests_per_client), "--workload", workload,
            "-w", str(warehouses), "-I", str(items), "-C", str(customers),
            "--accounts", str(accounts), "--seed", str(seed)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"potm-load failed (exit {done.returncode}): "
                           f"{done.stderr.strip()[-300:]}")
    r = json.loads(lines[-1])
    return LoadResult(clients=int(r["clients"]), requests=int(r["requests"]),
                      errors=int(r["errors"]), elapsed_s=float(r["elapsed_s"]),
                      throughput=float(r["throughput"]),
                      mean_latency_ms=float(r["mean_latency_ms"]),
                      p99_latency_ms=float(r["p99_latency_ms"]))


def _percentile(sorted_values: Sequence[float], pct: float) -> float:
    """The pct-th percentile of sorted values (nearest rank).

    >>> _percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.0
    """
    if not sorted_values:
        return 0.0
    rank = max(1, int(-(-pct * len(sorted_values) // 100)))
    return sorted_values[rank - 1]
