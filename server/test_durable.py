#!/usr/bin/env python3
"""t-server-durable-<mode>: potm-server --log-dir survives kill -9.

    test_durable.py BUILD_DIR MODE [WORKERS]   (MODE: sequential or occ;
                                                WORKERS: occ's, default 2)

A server logging to a fresh directory takes New-Orders and transfers from
four clients; once enough are acknowledged it is killed with SIGKILL while
requests are in flight.  Restarted on the same directory it must hold every
acknowledged New-Order: the next New-Order of each district gets an order
id above every acknowledged one (TPC-C's D_NEXT_O_ID, which the
consistency conditions tie to the orders present).  Stopped, its checks
(TPC-C's clause 3.3.2.1-4, the store's structure, the bank's total) pass;
restarted once more from that clean stop and stopped at once, it ends with
the same digest.  Bad combinations exit 2 with a message.  Exit 77 when
the mode's binary is not built.
"""
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bindings" / "python"))

from potm.server import (OK, TX_NEW_ORDER, TX_TRANSFER, Client,  # noqa: E402
                         ProtocolError, ServerProcess, MODE_BACKENDS)

WAREHOUSES, ITEMS, CUSTOMERS, ACCOUNTS = 2, 1000, 30, 16
CLIENTS = 4
ACK_TARGET = 150          # acknowledged requests before the crash
RUN_LIMIT_S = 20.0        # ... or this long, whichever comes first

failures: list[str] = []


def fail(msg: str) -> None:
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


WORKERS = 2


def server(build: Path, mode: str, log_dir: Path) -> ServerProcess:
    return ServerProcess(build, mode=mode, workers=WORKERS, warehouses=WAREHOUSES, items=ITEMS,
                         customers=CUSTOMERS, accounts=ACCOUNTS,
                         extra_args=["--log-dir", str(log_dir), "--digest-every", "0"])


def new_order(rng: random.Random, w: int, d: int) -> list[int]:
    lines = rng.randint(5, 8)
    params = [w, d, rng.randint(1, CUSTOMERS), lines]
    for _ in range(lines):
        params += [rng.randint(1, ITEMS), w, rng.randint(1, 10)]
    return params


class Load:
    """Closed-loop clients recording what the server acknowledged."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.lock = threading.Lock()
        self.acked = 0
        self.max_o_id: dict[tuple[int, int], int] = {}
        self.stop = threading.Event()

    def client(self, i: int) -> None:
        rng = random.Random(i)
        w = i % WAREHOUSES + 1
        try:
            with Client(self.port, timeout_s=5.0, retries=0) as c:
                while not self.stop.is_set():
                    if i == 0 and rng.random() < 0.5:
                        a = rng.randrange(ACCOUNTS)
                        r = c.call(TX_TRANSFER, [a, (a + 1) % ACCOUNTS, rng.randint(1, 50)])
                        with self.lock:
                            self.acked += r.status == OK
                        continue
                    d = rng.randint(1, 10)
                    r = c.call(TX_NEW_ORDER, new_order(rng, w, d))
                    if r.status != OK:
                        continue      # rolled back on its unused item: no order
                    with self.lock:
                        self.acked += 1
                        key = (w, d)
                        self.max_o_id[key] = max(self.max_o_id.get(key, 0), r.values[0])
        except (OSError, ProtocolError):
            pass                      # the crash: what was answered is recorded

    def run_until_crash(self, srv: ServerProcess) -> None:
        threads = [threading.Thread(target=self.client, args=(i,)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + RUN_LIMIT_S
        while time.monotonic() < deadline:
            with self.lock:
                if self.acked >= ACK_TARGET:
                    break
            time.sleep(0.01)
        srv.kill()                    # SIGKILL with requests in flight
        self.stop.set()
        for t in threads:
            t.join()


def refusals(build: Path, log_dir: Path) -> None:
    """Combinations that cannot work exit 2 with a message."""
    cases = [("potm-server-pot", ["--mode", "pot"], "redo log"),
             ("potm-server-seq", ["--stream", "10"], "--stream")]
    for binary, args, words in cases:
        exe = build / "server" / binary
        if not exe.exists():
            continue
        p = subprocess.run([str(exe), "--log-dir", str(log_dir)] + args,
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 2 or words not in p.stderr:
            fail(f"{binary} {args} --log-dir: exit {p.returncode}, {p.stderr.strip()!r}")


def main() -> int:
    global WORKERS
    build, mode = Path(sys.argv[1]), sys.argv[2]
    if len(sys.argv) > 3:
        WORKERS = int(sys.argv[3])
    binary = build / "server" / f"potm-server-{MODE_BACKENDS[mode]}"
    if not binary.exists():
        print(f"{binary} not built: skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="potm-durable-") as tmp:
        log_dir = Path(tmp) / "log"
        srv = server(build, mode, log_dir).start()
        load = Load(srv.port)
        load.run_until_crash(srv)
        print(f"{mode}, {WORKERS} workers: {load.acked} requests acknowledged before kill -9")
        if load.acked == 0:
            fail("nothing was acknowledged before the crash")

        srv = server(build, mode, log_dir).start()
        rng = random.Random(99)
        with Client(srv.port) as c:
            for (w, d), acked in sorted(load.max_o_id.items()):
                r = c.call(TX_NEW_ORDER, [w, d, 1, 1, 1, w, 1])
                if r.status != OK or r.values[0] <= acked:
                    fail(f"district {w}/{d}: acknowledged order {acked}, "
                         f"the next one got {r.values[:1]} (status {r.status})")
            for _ in range(20):
                c.call(TX_NEW_ORDER, new_order(rng, 1, rng.randint(1, 10)))
        first = srv.stop()
        if first.get("exit_status") != 0 or first.get("verified") is not True:
            fail(f"after recovery: {first}")

        # A clean stop's log recovered: the same state.
        again = server(build, mode, log_dir).start().stop()
        if again.get("digest") != first.get("digest") or again.get("verified") is not True:
            fail(f"restart after a clean stop: digest {again.get('digest')} "
                 f"!= {first.get('digest')}: {again}")

        # Another scale on the same log: a clear error, not a half state.
        p = subprocess.run([str(binary), "--mode", mode, "-w", "1", "-I", str(ITEMS),
                            "-C", str(CUSTOMERS), "--accounts", str(ACCOUNTS),
                            "--log-dir", str(log_dir)],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 1 or "same scale" not in p.stderr:
            fail(f"recovery at another scale: exit {p.returncode}, {p.stderr.strip()!r}")
        refusals(build, Path(tmp) / "other")
    print("FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
