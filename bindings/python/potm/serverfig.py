"""The Pot thesis's Figures 5.4 and 5.5 on potm-server: throughput and
mean/p99 latency against closed-loop clients, every execution mode, TPC-C
at 8 warehouses (low contention, Figure 5.4; the thesis had 32) and at 1
(high contention, Figure 5.5).

One server executes the agreed stream (the local agreement: the execution
phase, which is what the thesis measures); the clients send one request at
a time, no think time: potm-load's C threads where the build has it
(server/load.c), else potm.serverload's Python threads (--python-clients),
which share one interpreter lock and cap what they can offer.  Each point starts a fresh
server (reduced population: 1000 items, 300 customers per district),
drives it, stops it and keeps the run only if its final checks passed.

    python3 -m potm.serverfig --quick            # a short pass, into results/quick/
    python3 -m potm.serverfig --out plots/server --clients 1 2 4 8 16 --repeat 5

With ``--stream`` each point is one ``potm-server --stream`` run instead
(server/stream.c): the same clients' requests, drawn by the same generator,
proposed to the local agreement in entries of ``--entry`` requests (default
32; a group of clients' next entry goes when its last response comes back)
and executed with no sockets and no client threads, so that the cores run the
execution phase only.  Its latencies are the entries' (no network).  The ordered modes' digests of the
same (scale, clients, repeat) must agree: the summary says whether they do,
and a disagreement fails the run.  ``--server-arg`` passes an option on to
every server (e.g. ``--server-arg=--applier-executes``);
``--requests-per-tx N`` runs N consecutive requests per transaction in the
modes that can (``pot``, ``pot+lsd``, ``occ``, ``2pl``; server/README.md), and
``--extend N`` lets ``pot`` and ``pot+lsd`` take in up to N next transactions
instead of waiting for their turn.

    python3 -m potm.serverfig --stream --modes sequential pot pot+lsd pot+fast \
        pot+lsd+fast --warehouses 8 1 --clients 16 --stream-requests 20000 --repeat 5

The summary ends with the issue's ratios at the largest client count
(medians), e.g. "w=8 pot+fast/pot 1.31".  Not in ``potm reproduce``'s
registry: its runs are servers and clients, not the benchmark library.

>>> ratio({("pot", 8): 2.0, ("pot+fast", 8): 3.0}, "pot+fast", "pot", 8)
1.5
>>> ratio({}, "pot+fast", "pot", 8) is None
True
>>> mode_args("pot", 4), mode_args("pot+fast", 4), mode_args("occ", 1)
(['--requests-per-tx', '4'], [], [])
>>> mode_args("pot+lsd", 1, extend=3), mode_args("occ", 1, extend=3)
(['--extend', '3'], [])
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Sequence

from potm.server import MODE_BACKENDS, ServerProcess
from potm.serverload import LoadResult, run_load, run_load_native

#: Every execution mode, in the thesis's legend order.
MODES: tuple[str, ...] = ("sequential", "pot", "pot+lsd", "pot+fast", "pot+lsd+fast",
                          "occ", "2pl")

#: The modes that run several requests per transaction (--requests-per-tx).
PER_TX_MODES: frozenset[str] = frozenset({"pot", "pot+lsd", "occ", "2pl"})

#: The modes whose transactions wait for a turn and may take in the next
#: ones instead (--extend).
EXTEND_MODES: frozenset[str] = frozenset({"pot", "pot+lsd"})


def mode_args(mode: str, requests_per_tx: int, extend: int = 0) -> list[str]:
    """The server options --requests-per-tx and --extend add for mode: none
    where the mode runs one request per transaction (sequential, the keyed
    modes) or when they are 1 and 0; --extend only for the ordered modes
    without keys (pot, pot+lsd), whose transactions wait for their turn."""
    args = []
    if requests_per_tx > 1 and mode in PER_TX_MODES:
        args += ["--requests-per-tx", str(requests_per_tx)]
    if extend > 0 and mode in EXTEND_MODES:
        args += ["--extend", str(extend)]
    return args


#: The issue's targets: (warehouses, mode, over, at least).
TARGETS: tuple[tuple[int, str, str, float], ...] = (
    (8, "pot", "sequential", 1.5), (8, "pot+lsd", "pot", 0.8), (8, "pot+fast", "pot", 1.2),
    (1, "pot+lsd", "pot", 1.5), (1, "pot+lsd", "sequential", 1.5))


@dataclass
class Point:
    """One run: a mode, a scale, a client count."""

    mode: str
    warehouses: int
    clients: int
    repeat: int
    requests: int
    throughput: float        # responses per second
    mean_latency_ms: float
    p99_latency_ms: float
    early_fast: int          # keyed requests run before their turn
    verified: bool
    aborts: int = 0          # the TM's aborted attempts (--stream)
    digest: str = ""         # the state's after the run (--stream)
    error: str = ""          # why the point failed, if it did
    requests_per_tx: int = 1  # consecutive requests per transaction
    extend: int = 0          # pot, pot+lsd: transactions a waiting one may take in
    entry: int = 0           # requests per log entry (--stream; 0: the server's batching)


def run_point(build: Path, mode: str, warehouses: int, clients: int, requests: int,
              workers: int, repeat: int, items: int, customers: int,
              python_clients: bool = False, server_args: Sequence[str] = ()) -> Point:
    """Start a server in mode, drive it with clients x requests, stop it."""
    srv = ServerProcess(build, mode=mode, workers=workers, warehouses=warehouses,
                        items=items, customers=customers,
                        extra_args=["--digest-every", "0", *server_args])
    native = build / "server" / "potm-load"
    r: LoadResult
    with srv:
        if native.exists() and not python_clients:
            r = run_load_native(native, srv.port, clients, requests, warehouses=warehouses,
                                items=items, customers=customers, seed=repeat + 1)
        else:
            r = run_load(srv.port, clients=clients, requests_per_client=requests,
                         warehouses=warehouses, items=items, customers=customers,
                         seed=repeat + 1)
    final = srv.final
    return Point(mode, warehouses, clients, repeat, r.requests, r.throughput,
                 r.mean_latency_ms, r.p99_latency_ms, int(final.get("early_fast", 0)),
                 final.get("verified") is True and r.errors == 0)


#: The modes whose state after a stream is the stream's alone.
ORDERED: tuple[str, ...] = ("sequential", "pot", "pot+lsd", "pot+fast", "pot+lsd+fast")


#: Requests per log entry in a stream run (``--batch-max``): a round of
#: more clients is several entries in flight, each group's next proposed
#: when its last response comes back, which the executor overlaps.
STREAM_ENTRY = 32


def run_stream_point(build: Path, mode: str, warehouses: int, clients: int, requests: int,
                     workers: int, repeat: int, items: int, customers: int,
                     server_args: Sequence[str] = (), timeout: float = 600.0,
                     entry: int = STREAM_ENTRY) -> Point:
    """One ``potm-server --stream`` run: requests in all, clients per round,
    entries of entry requests.

    Raises RuntimeError when the server fails or prints no stream line."""
    binary = build / "server" / f"potm-server-{MODE_BACKENDS[mode]}"
    cmd = [str(binary), "--mode", mode, "--stream", str(requests), "--clients", str(clients),
           "-w", str(warehouses), "-I", str(items), "-C", str(customers),
           "--seed", str(repeat + 1), "--digest-every", "0", "--batch-max", str(entry)]
    if mode != "sequential":
        cmd += ["--workers", str(workers)]
    cmd += list(server_args)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"no result within {timeout:.0f} s") from e
    line = next((ln for ln in reversed(done.stdout.splitlines())
                 if ln.startswith("{") and '"stream"' in ln), None)
    if line is None:
        why = done.stderr.strip().splitlines()
        raise RuntimeError(f"exit {done.returncode}: {why[-1] if why else 'no output'}")
    r = json.loads(line)
    ok = done.returncode == 0 and r["verified"] is True and r["errors"] == 0
    return Point(mode, warehouses, clients, repeat, int(r["requests"]), float(r["throughput"]),
                 float(r["mean_latency_ms"]), float(r["p99_latency_ms"]),
                 int(r["early_fast"]), ok, int(r["aborts"]), str(r["digest"]),
                 "" if ok else (r.get("verify_msg") or f"exit {done.returncode}"),
                 entry=entry)


def digest_disagreements(points: Sequence[Point]) -> list[str]:
    """The (scale, clients, repeat) whose ordered modes' digests differ."""
    seen: dict[tuple[int, int, int], dict[str, str]] = {}
    for p in points:
        if p.mode in ORDERED and p.digest and p.verified:
            seen.setdefault((p.warehouses, p.clients, p.repeat), {})[p.mode] = p.digest
    return [f"w={w} clients={c} #{r + 1}: " +
            " ".join(f"{m}={d}" for m, d in sorted(ds.items()))
            for (w, c, r), ds in sorted(seen.items()) if len(set(ds.values())) > 1]


def available(build: Path, modes: Sequence[str]) -> list[str]:
    """The modes whose server binary this build has."""
    return [m for m in modes
            if (build / "server" / f"potm-server-{MODE_BACKENDS[m]}").exists()]


def medians(points: Sequence[Point], clients: int) -> dict[tuple[str, int], float]:
    """(mode, warehouses) -> median throughput of the verified runs at clients."""
    out: dict[tuple[str, int], list[float]] = {}
    for p in points:
        if p.clients == clients and p.verified:
            out.setdefault((p.mode, p.warehouses), []).append(p.throughput)
    return {k: statistics.median(v) for k, v in out.items()}


def ratio(med: dict[tuple[str, int], float], mode: str, over: str,
          warehouses: int) -> Optional[float]:
    """med[mode] / med[over] at warehouses, None if either is missing."""
    a, b = med.get((mode, warehouses)), med.get((over, warehouses))
    return a / b if a is not None and b else None


def summary(points: Sequence[Point]) -> str:
    """One line per (warehouses, mode, clients): medians; then the targets."""
    lines = [f"{'w':>2} {'mode':<13} {'clients':>7} {'runs':>4} {'tx/s':>9} "
             f"{'mean ms':>8} {'p99 ms':>8} {'early':>6}"]
    keys = sorted({(p.warehouses, MODES.index(p.mode), p.clients) for p in points})
    for w, m, c in keys:
        ps = [p for p in points if (p.warehouses, p.mode, p.clients) == (w, MODES[m], c)
              and p.verified]
        if not ps:
            lines.append(f"{w:>2} {MODES[m]:<13} {c:>7}    0  (every run failed)")
            continue
        lines.append(f"{w:>2} {MODES[m]:<13} {c:>7} {len(ps):>4} "
                     f"{statistics.median(p.throughput for p in ps):>9.0f} "
                     f"{statistics.median(p.mean_latency_ms for p in ps):>8.2f} "
                     f"{statistics.median(p.p99_latency_ms for p in ps):>8.2f} "
                     f"{statistics.median(p.early_fast for p in ps):>6.0f}")
    taken = sorted({(p.mode, p.extend) for p in points if p.extend > 0})
    if taken:
        lines.append("transactions taken in while waiting (--extend): " +
                     ", ".join(f"{mode} {n}" for mode, n in taken))
    per_tx = sorted({(p.mode, p.requests_per_tx) for p in points if p.requests_per_tx > 1})
    if per_tx:
        lines.append("requests per transaction: " +
                     ", ".join(f"{mode} {n}" for mode, n in per_tx))
    entries = sorted({p.entry for p in points if p.entry})
    if entries:
        lines.append("requests per log entry: " + ", ".join(map(str, entries)))
    if any(p.digest for p in points):
        differ = digest_disagreements(points)
        lines.append("ordered modes' digests: " + ("agree" if not differ else
                     "DIFFER " + "; ".join(differ)))
    failed = [p for p in points if not p.verified]
    for p in failed:
        lines.append(f"failed: w={p.warehouses} {p.mode} clients={p.clients} "
                     f"#{p.repeat + 1}: {p.error or 'checks failed'}")
    if points:
        top = max(p.clients for p in points)
        med = medians(points, top)
        for w, mode, over, least in TARGETS:
            r = ratio(med, mode, over, w)
            if r is not None:
                lines.append(f"w={w} {mode}/{over} {r:.2f} at {top} clients "
                             f"(target >= {least})")
    return "\n".join(lines)


def plot(points: Sequence[Point], path: Path) -> None:
    """Throughput and p99 latency against clients, a column per scale."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    scales = sorted({p.warehouses for p in points}, reverse=True)
    fig, axes = plt.subplots(2, len(scales), figsize=(5.5 * len(scales), 7), squeeze=False)
    for col, w in enumerate(scales):
        for mode in MODES:
            ps = [p for p in points if p.warehouses == w and p.mode == mode and p.verified]
            xs = sorted({p.clients for p in ps})
            if not xs:
                continue
            for row, field in enumerate(("throughput", "p99_latency_ms")):
                ys = [statistics.median(getattr(p, field) for p in ps if p.clients == x)
                      for x in xs]
                axes[row][col].plot(xs, ys, marker="o", label=mode)
        axes[0][col].set_title(f"TPC-C, {w} warehouse{'s' if w > 1 else ''}")
        axes[0][col].set_ylabel("committed transactions per second (tx/s)")
        axes[1][col].set_ylabel("p99 latency (ms)")
        axes[1][col].set_xlabel("closed-loop clients")
        if axes[0][col].get_legend_handles_labels()[0]:   # not when every run failed
            axes[0][col].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line (see the module's doc)."""
    ap = argparse.ArgumentParser(prog="python3 -m potm.serverfig",
                                 description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--build", type=Path, default=Path("build"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--quick", action="store_true", help="2 and 8 clients, 1 repeat")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--warehouses", nargs="+", type=int, default=[8, 1])
    ap.add_argument("--clients", nargs="+", type=int, default=[1, 2, 4, 8, 16])
    ap.add_argument("--requests", type=int, default=400, help="per client")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--customers", type=int, default=300)
    ap.add_argument("--python-clients", action="store_true",
                    help="potm.serverload's clients even where potm-load is built")
    ap.add_argument("--stream", action="store_true",
                    help="potm-server --stream per point: the execution phase, no sockets")
    ap.add_argument("--stream-requests", type=int, default=20000,
                    help="with --stream: requests per point, in all")
    ap.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                    help="an option for every server (repeatable; --server-arg=--x)")
    ap.add_argument("--requests-per-tx", type=int, default=1, metavar="N",
                    help="pot, pot+lsd, occ and 2pl run N consecutive requests per transaction")
    ap.add_argument("--extend", type=int, default=0, metavar="N",
                    help="pot and pot+lsd take in up to N next transactions instead of waiting")
    ap.add_argument("--entry", type=int, default=STREAM_ENTRY, metavar="N",
                    help=f"with --stream: requests per log entry (default {STREAM_ENTRY})")
    a = ap.parse_args(argv)
    if a.quick:
        a.clients, a.repeat, a.requests = [2, 8], 1, 100
        a.stream_requests = min(a.stream_requests, 2000)
    if min(a.warehouses + a.clients) < 1 or a.requests < 1 or a.stream_requests < 1 \
            or a.repeat < 1 or a.workers < 1 or not 1 <= a.requests_per_tx <= 64 \
            or not 1 <= a.entry <= 4096 or not 0 <= a.extend <= 64:
        ap.error("--warehouses, --clients, --requests, --stream-requests, --repeat and "
                 "--workers must be >= 1, --requests-per-tx in 1..64, --entry in 1..4096, "
                 "--extend in 0..64")
    name = "server-stream" if a.stream else "server"
    out = a.out or (Path("results/quick") / name if a.quick else Path("plots") / name)
    modes = available(a.build, a.modes)
    if not modes:
        print(f"potm.serverfig: no server binary in {a.build}/server", file=sys.stderr)
        return 2
    points: list[Point] = []
    for r in range(a.repeat):   # repeat by repeat: noise spreads over the points
        for w in a.warehouses:
            for mode in modes:
                for c in a.clients:
                    # A point whose server or clients fail is recorded as
                    # failed (left out of the medians); the others still run.
                    per_tx = mode_args(mode, a.requests_per_tx, a.extend)
                    args = [*a.server_arg, *per_tx]
                    try:
                        if a.stream:
                            p = run_stream_point(a.build, mode, w, c, a.stream_requests,
                                                 a.workers, r, a.items, a.customers, args,
                                                 entry=a.entry)
                        else:
                            p = run_point(a.build, mode, w, c, a.requests, a.workers, r,
                                          a.items, a.customers, a.python_clients, args)
                        why = "" if p.verified else f" (FAILED checks: {p.error})"
                    except (RuntimeError, OSError, ValueError, KeyError) as e:
                        p = Point(mode, w, c, r, 0, 0.0, 0.0, 0.0, 0, False, error=str(e))
                        why = f" (FAILED: {e})"
                    if "--requests-per-tx" in per_tx:
                        p.requests_per_tx = a.requests_per_tx
                    if "--extend" in per_tx:
                        p.extend = a.extend
                    points.append(p)
                    print(f"w={w} {mode} clients={c} #{r + 1}: {p.throughput:.0f} tx/s{why}",
                          file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "server.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(asdict(points[0])))
        wr.writeheader()
        for p in points:
            wr.writerow(asdict(p))
    text = summary(points)
    (out / "server.txt").write_text(text + "\n")
    plot(points, out / "server.png")
    print(text)
    ok = all(p.verified for p in points) and not digest_disagreements(points)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
