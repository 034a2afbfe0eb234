#!/usr/bin/env python3
"""The agreement's cost: one server (local agreement) against three Raft
replicas, the same closed-loop TPC-C load, interleaved, medians.

    PYTHONPATH=bindings/python python3 scripts/measure_agreement.py \\
        [BUILD_DIR] [REPEATS] [CLIENTS] [REQUESTS_PER_CLIENT]

Both run potm-server-pot --mode pot, 2 workers, no digests while loading
(--digest-every 0).  Each cluster run ends by waiting until every replica
applied the same batches, stopping them and checking that their final
digests are equal.  Prints one JSON line per run, then the medians.
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from potm.server import Cluster, ServerProcess
from potm.serverload import LoadResult, run_load


def _local(build: Path, clients: int, per_client: int) -> LoadResult:
    with ServerProcess(build, mode="pot", extra_args=["--digest-every", "0"]) as srv:
        return run_load(srv.port, clients=clients, requests_per_client=per_client)


def _cluster(build: Path, clients: int, per_client: int) -> LoadResult:
    with tempfile.TemporaryDirectory(prefix="potm-agreement-") as root:
        cl = Cluster(build, Path(root), extra_args=["--digest-every", "0"])
        with cl:
            res = run_load(cl.ports, clients=clients, requests_per_client=per_client)
            deadline = time.monotonic() + 60
            while len({(cl.status(i) or {}).get("batches") for i in (1, 2, 3)}) != 1:
                if time.monotonic() > deadline:
                    raise TimeoutError("the replicas did not converge")
                time.sleep(0.05)
        digests = {f.get("digest") for f in (s.final for s in cl.servers)}
        if len(digests) != 1:
            raise AssertionError(f"unequal final digests: {digests}")
        return res


def main() -> None:
    build = Path(sys.argv[1] if len(sys.argv) > 1 else "build")
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    per_client = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    runs: dict[str, list[LoadResult]] = {"local": [], "raft3": []}
    for rep in range(reps):
        for name, fn in (("local", _local), ("raft3", _cluster)):
            r = fn(build, clients, per_client)
            runs[name].append(r)
            print(json.dumps({"run": rep, "agreement": name, "throughput": r.throughput,
                              "mean_ms": r.mean_latency_ms, "p99_ms": r.p99_latency_ms,
                              "errors": r.errors}), flush=True)
    med = {name: {"throughput": statistics.median(r.throughput for r in rs),
                  "mean_ms": statistics.median(r.mean_latency_ms for r in rs),
                  "p99_ms": statistics.median(r.p99_latency_ms for r in rs)}
           for name, rs in runs.items()}
    med["raft3_over_local"] = {"throughput": med["raft3"]["throughput"] /
                               med["local"]["throughput"]}
    print(json.dumps({"medians": med}))


if __name__ == "__main__":
    main()
