#!/usr/bin/env python3
"""The redo log's end-to-end tests on TPC-C (tpcc-<b> -D dir, -r -D dir).

  durable_test.py TPCC roundtrip   a logged run, then recovery: the recovered
                                   database has the run's digest, every
                                   acknowledged commit, the conditions
  durable_test.py TPCC crash       kill -9 during a run once commits are
                                   acknowledged; recovery keeps them all and
                                   the conditions hold
  durable_test.py TPCC fulldisk    a log size limit (-L) below what the run
                                   writes: a clear error, exit 1, and the log
                                   on disk still recovers
  durable_test.py TPCC torn        a partial block appended (a write cut
                                   short), then a byte of the last block
                                   flipped: recovery names the torn tail,
                                   cuts it off and recovers up to the last
                                   good durable stamp

Each exits 0 on success, 1 with a message on the first failed check.
Every run is small (-I 1000 -C 30) and bounded by timeouts.
"""
import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List

SMALL = ["-I", "1000", "-C", "30", "-w", "2"]
TIMEOUT_S = 60


class Failure(Exception):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise Failure(what)


def run(cmd: List[str], env: "Dict[str, str] | None" = None) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                          env=None if env is None else {**os.environ, **env})


def last_json(out: str) -> Dict[str, Any]:
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            obj: Dict[str, Any] = json.loads(line)
            return obj
    raise Failure("no JSON line in the output:\n" + out)


def recover(tpcc: str, d: str) -> "tuple[Dict[str, Any], str]":
    p = run([tpcc, *SMALL, "-t", "2", "-r", "-D", d])
    check(p.returncode == 0, "recovery failed (exit %d):\n%s%s" % (p.returncode, p.stdout,
                                                                    p.stderr))
    rec = last_json(p.stdout)
    check(rec["verdict"] == "ok", "recovery verdict: %s" % rec)
    for i in range(1, 5):
        check(rec["consistency_%d" % i] == "ok", "condition %d after recovery: %s" % (i, rec))
    return rec, p.stderr


def logged_run(tpcc: str, d: str, ops: int) -> Dict[str, Any]:
    p = run([tpcc, *SMALL, "-t", "2", "-n", str(ops), "-D", d])
    check(p.returncode == 0, "the logged run failed (exit %d):\n%s" % (p.returncode, p.stderr))
    res = last_json(p.stdout)
    check(res.get("log") == "redo", "the run does not say it logged: %s" % res)
    return res


def acked(d: str) -> Dict[str, int]:
    with open(os.path.join(d, "acked")) as f:
        return {k: int(v) for k, v in (line.split() for line in f if line.strip())}


def log_file(d: str) -> str:
    logs = sorted(n for n in os.listdir(d) if n.startswith("log."))
    check(len(logs) == 1, "expected one log file in %s, found %s" % (d, logs))
    return os.path.join(d, logs[0])


def t_roundtrip(tpcc: str, d: str) -> None:
    res = logged_run(tpcc, d, 1500)
    a = acked(d)
    # After a clean run every commit is acknowledged.
    check(a["new_order"] == res["counts"]["new_order_commits"],
          "acked New-Orders %d, committed %d" % (a["new_order"],
                                                  res["counts"]["new_order_commits"]))
    check(a["payment"] == res["counts"]["payment_commits"], "acked Payments differ")
    rec, _ = recover(tpcc, d)
    check(rec["digest"] == res["counts"]["digest"],
          "recovered digest %s, the run's %s" % (rec["digest"], res["counts"]["digest"]))
    check(rec["torn_bytes"] == 0 and rec["discarded"] == 0, "a clean log: %s" % rec)
    check(rec["new_orders"] == a["new_order"], "New-Orders: %s" % rec)
    # More commits than the ring's first size are pending while the first
    # epoch (silo) or round lasts: the ring grows, the workers never wait
    # for the log.
    check(res["counts"]["log_ack_waits"] == 0,
          "the workers waited for the log %d times" % res["counts"]["log_ack_waits"])


def t_crash(tpcc: str, d: str) -> None:
    proc = subprocess.Popen([tpcc, *SMALL, "-t", "2", "-d", "20000", "-D", d],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        seen = 0
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                seen = acked(d).get("new_order", 0)
            except (OSError, ValueError):
                seen = 0
            if seen >= 200:
                break
            time.sleep(0.02)
        check(proc.poll() is None, "the run ended before the kill")
        check(seen >= 200, "no New-Order acknowledged within 15 s")
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    a = acked(d)
    rec, _ = recover(tpcc, d)
    check(rec["acked_present"] == "ok", "acknowledged commits lost: %s" % rec)
    check(rec["new_orders"] >= a["new_order"] >= 200, "New-Orders: %s, acked %s" % (rec, a))


def t_fulldisk(tpcc: str, d: str) -> None:
    limit = 4000000
    # The checkpoint's size (and a few MARK blocks): a run that writes
    # nothing.
    p0 = run([tpcc, *SMALL, "-t", "2", "-n", "1", "-m", "order-status", "-D", d + "-empty"])
    check(p0.returncode == 0, "an empty logged run failed:\n" + p0.stderr)
    ckpt_size = os.path.getsize(log_file(d + "-empty"))
    # Short silo epochs, so that stamps become durable before the log
    # fills up (the durable stamp trails the epoch).
    p = run([tpcc, *SMALL, "-t", "2", "-n", "3000", "-D", d, "-L", str(limit)],
            env={"POTM_SILO_EPOCH_MS": "2"})
    check(p.returncode == 1, "a full log must fail the run (exit %d)" % p.returncode)
    check("the log is full" in p.stderr, "no clear error:\n" + p.stderr)
    check("logging stopped at durable stamp" in p.stderr, "no durable stamp named:\n" + p.stderr)
    f = log_file(d)
    rec, err = recover(tpcc, d)
    check(rec["torn_bytes"] == 0, "a full log must end on a whole block: %s %s" % (rec, err))
    check(rec["acked_present"] == "ok", "acked commits lost: %s" % rec)
    # How much was logged before the limit depends on the logger's rounds
    # (a late round writes a larger block); the limit itself must hold.
    check(os.path.getsize(f) <= ckpt_size + limit, "the log grew past its limit")


def t_torn(tpcc: str, d: str) -> None:
    res = logged_run(tpcc, d, 1000)
    f = log_file(d)
    size = os.path.getsize(f)
    # A write cut short: a block header announcing more than follows.
    with open(f, "ab") as out:
        out.write(struct.pack("<IIII", 0x504F544D, 4, 4096, 0) + b"\x01" * 100)
    rec, err = recover(tpcc, d)
    check("torn tail at offset %d" % size in err, "torn tail not reported:\n" + err)
    check("a short block" in err, "the reason not named:\n" + err)
    check(rec["torn_bytes"] == 116, "torn bytes: %s" % rec)
    check(os.path.getsize(f) == size, "the tail was not cut off")
    check(rec["digest"] == res["counts"]["digest"], "digest after the torn tail: %s" % rec)
    # A flipped byte near the end: the last block's checksum fails, the
    # blocks before it are recovered (acked counts no longer apply: the
    # damage is to durable data).
    with open(f, "r+b") as out:
        out.seek(size - 3)
        b = out.read(1)
        out.seek(size - 3)
        out.write(bytes([b[0] ^ 0xFF]))
    with open(os.path.join(d, "acked"), "w") as out:
        out.write("new_order 0\npayment 0\n")
    rec2, err2 = recover(tpcc, d)
    check("a bad checksum" in err2, "bad checksum not reported:\n" + err2)
    check(rec2["torn_bytes"] > 0, "nothing cut: %s" % rec2)
    check(rec2["durable_stamp"] <= rec["durable_stamp"], "durable stamp grew: %s" % rec2)
    # Recovering again finds a clean log (the tail is gone).
    rec3, err3 = recover(tpcc, d)
    check("torn" not in err3 and rec3["torn_bytes"] == 0, "second recovery: %s" % err3)
    check(rec3["digest"] == rec2["digest"], "recovery is not repeatable")


TESTS = {"roundtrip": t_roundtrip, "crash": t_crash, "fulldisk": t_fulldisk, "torn": t_torn}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tpcc", help="the tpcc-<backend> program")
    ap.add_argument("test", choices=sorted(TESTS))
    args = ap.parse_args()
    if not os.access(args.tpcc, os.X_OK):
        ap.error("%s is not an executable" % args.tpcc)
    d = tempfile.mkdtemp(prefix="potm-durable-")
    try:
        TESTS[args.test](args.tpcc, os.path.join(d, "log"))
    except Failure as e:
        print("durable_test %s: FAILED: %s" % (args.test, e), file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("durable_test %s: ok" % args.test)
    return 0


if __name__ == "__main__":
    sys.exit(main())
