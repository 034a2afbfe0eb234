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

The summary ends with the issue's ratios at the largest client count
(medians), e.g. "w=8 pot+fast/pot 1.31".  Not in ``potm reproduce``'s
registry: its runs are servers and clients, not the benchmark library.

>>> ratio({("pot", 8): 2.0, ("pot+fast", 8): 3.0}, "pot+fast", "pot", 8)
1.5
>>> ratio({}, "pot+fast", "pot", 8) is None
True
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Sequence

from potm.server import MODE_BACKENDS, ServerProcess
from potm.serverload import LoadResult, run_load, run_load_native

#: Every execution mode, in the thesis's legend order.
MODES: tuple[str, ...] = ("sequential", "pot", "pot+lsd", "pot+fast", "pot+lsd+fast",
                          "occ", "2pl")

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


def run_point(build: Path, mode: str, warehouses: int, clients: int, requests: int,
              workers: int, repeat: int, items: int, customers: int,
              python_clients: bool = False) -> Point:
    """Start a server in mode, drive it with clients x requests, stop it."""
    srv = ServerProcess(build, mode=mode, workers=workers, warehouses=warehouses,
                        items=items, customers=customers,
                        extra_args=["--digest-every", "0"])
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
    a = ap.parse_args(argv)
    if a.quick:
        a.clients, a.repeat, a.requests = [2, 8], 1, 100
    out = a.out or Path("results/quick/server" if a.quick else "plots/server")
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
                    try:
                        p = run_point(a.build, mode, w, c, a.requests, a.workers, r,
                                      a.items, a.customers, a.python_clients)
                        why = "" if p.verified else " (FAILED checks)"
                    except (RuntimeError, OSError) as e:
                        p = Point(mode, w, c, r, 0, 0.0, 0.0, 0.0, 0, False)
                        why = f" (FAILED: {e})"
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
    return 0 if all(p.verified for p in points) else 1


if __name__ == "__main__":
    sys.exit(main())
