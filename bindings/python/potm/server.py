"""potm-server from Python: start a server, speak its protocol.

The protocol is server/PROTOCOL.md: length-prefixed little-endian frames; a
request carries a client id, a request id, a transaction type and 64-bit
parameters, a response a status, the request's position in the agreed order
and 64-bit values.  Packing is plain :mod:`struct`.

>>> frame = encode_request(TX_TRANSFER, client_id=7, request_id=1, params=[0, 1, 5])
>>> len(frame), frame[4], frame[5]
(52, 1, 1)

Start a server from a build directory on a free loopback port, call it, stop
it (the final line tells the digest and the verdict of its checks)::

    >>> with ServerProcess(Path("build"), mode="pot") as srv:   # doctest: +SKIP
    ...     with Client(srv.port) as c:
    ...         c.call(TX_TRANSFER, [0, 1, 10]).values
    [1, 990, 1010]

Three replicas (Raft) in data directories under a root; a client given
every replica's port finds the leader and retries there::

    >>> with Cluster(Path("build"), Path("/tmp/potm-cluster")) as cl:   # doctest: +SKIP
    ...     with cl.client() as c:
    ...         c.call(TX_TRANSFER, [0, 1, 10]).values
    [1, 990, 1010]
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Optional, Sequence, Union

PROTO_VERSION = 1
FRAME_MAX = 4096
KIND_REQUEST = 1
KIND_RESPONSE = 2

TX_NEW_ORDER = 1
TX_PAYMENT = 2
TX_ORDER_STATUS = 3
TX_DELIVERY = 4
TX_STOCK_LEVEL = 5
TX_TRANSFER = 16
TX_BALANCE = 17
ADMIN_STATUS = 256

OK = 0
ROLLED_BACK = 1
ERR_MALFORMED = 16
ERR_TOO_LARGE = 17
ERR_UNKNOWN_TYPE = 18
ERR_BAD_PARAMS = 19
ERR_STALE = 20
ERR_FAILED = 21
ERR_SHUTTING_DOWN = 22
ERR_NOT_LEADER = 23

#: The values of a STATUS response, in order (server/PROTOCOL.md).
STATUS_KEYS = ("batches", "positions", "executed", "digest", "digest_batches",
               "warehouses", "items", "customers", "accounts", "workers", "mode",
               "replica", "leader", "leader_id", "snapshots", "restores")

#: The backend binary each mode runs on (server/README.md).
MODE_BACKENDS = {"sequential": "seq", "pot": "pot", "pot+lsd": "pot", "pot+fast": "pot",
                 "pot+lsd+fast": "pot", "occ": "tl2", "2pl": "2pl"}

_REQ_HEAD = struct.Struct("<BBHQQHH")
_RESP_HEAD = struct.Struct("<BBHQQQHH")


class ProtocolError(Exception):
    """The server sent something this client cannot read, or went away."""


@dataclass
class Response:
    """A decoded response."""

    status: int
    client_id: int
    request_id: int
    position: int
    values: list[int]
    message: str

    @property
    def ok(self) -> bool:
        """True if the request was executed (committed or rolled back)."""
        return self.status in (OK, ROLLED_BACK)


def encode_request(type_: int, client_id: int, request_id: int,
                   params: Sequence[int]) -> bytes:
    """A whole request frame, length prefix included."""
    body = _REQ_HEAD.pack(PROTO_VERSION, KIND_REQUEST, type_, client_id, request_id,
                          len(params), 0) + struct.pack(f"<{len(params)}q", *params)
    return struct.pack("<I", len(body)) + body


def decode_response(body: bytes) -> Response:
    """A response from a frame's body (the length prefix stripped).

    >>> r = decode_response(bytes([1, 2, 0, 0]) + bytes(28))
    >>> r.status, r.values, r.message
    (0, [], '')
    """
    if len(body) < _RESP_HEAD.size:
        raise ProtocolError("response shorter than its header")
    ver, kind, status, cid, rid, pos, n, mlen = _RESP_HEAD.unpack_from(body)
    if ver != PROTO_VERSION or kind != KIND_RESPONSE or len(body) != _RESP_HEAD.size + 8 * n + mlen:
        raise ProtocolError("not a well-formed response")
    values = list(struct.unpack_from(f"<{n}q", body, _RESP_HEAD.size))
    msg = body[_RESP_HEAD.size + 8 * n:].decode("utf-8", "replace")
    return Response(status, cid, rid, pos, values, msg)


class Client:
    """One client: a connection, a client id and increasing request ids.

    :meth:`call` retries on a timeout or a lost connection with the same
    request id, which the server executes once.  :meth:`send` and
    :meth:`recv` pipeline requests (responses come back in order).

    ``port`` may be a list: the client ports of a cluster's replicas (all
    on ``host``).  :meth:`call` then goes where a NOT_LEADER response
    points, or to the next replica when none is named or one does not
    answer, with the same request id, until ``timeout_s * (retries + 1)``
    has passed.
    """

    def __init__(self, port: Union[int, Sequence[int]], host: str = "127.0.0.1",
                 client_id: int = 0, timeout_s: float = 10.0, retries: int = 3) -> None:
        self.ports = [port] if isinstance(port, int) else list(port)
        if not self.ports:
            raise ValueError("no server port")
        self._at = 0
        self.host, self.timeout_s, self.retries = host, timeout_s, retries
        self.client_id = client_id or random.getrandbits(63) + 1
        self.next_request_id = 1
        self._sock: Optional[socket.socket] = None
        self._buf = b""
        for attempt in range(len(self.ports)):
            try:
                self._connect()
                break
            except OSError:
                if attempt == len(self.ports) - 1:
                    raise
                self._at += 1

    @property
    def port(self) -> int:
        """The port this client talks to now."""
        return self.ports[self._at % len(self.ports)]

    def _connect(self) -> None:
        self.close()
        self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout_s)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = b""

    def _redirect(self, r: Optional[Response]) -> None:
        """Leave this replica: for the leader r names, else the next one."""
        self.close()
        hint = r.values[1] if r is not None and len(r.values) >= 2 else 0
        if hint in self.ports and hint != self.port:
            self._at = self.ports.index(hint)
        else:
            self._at = (self._at + 1) % len(self.ports)
            if r is not None:
                time.sleep(0.05)   # an election: give it time

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, t: Optional[type[BaseException]], e: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (a later call reconnects)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (tests of bad input)."""
        if self._sock is None:
            self._connect()
        assert self._sock is not None
        self._sock.sendall(data)

    def send(self, type_: int, params: Sequence[int], request_id: Optional[int] = None) -> int:
        """Send a request without waiting; its request id."""
        rid = self.next_request_id if request_id is None else request_id
        if request_id is None:
            self.next_request_id += 1
        self.send_raw(encode_request(type_, self.client_id, rid, params))
        return rid

    def _read(self, n: int) -> bytes:
        assert self._sock is not None
        while len(self._buf) < n:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ProtocolError("connection closed by the server")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def recv(self) -> Response:
        """The next response on the connection."""
        (length,) = struct.unpack("<I", self._read(4))
        if length > FRAME_MAX:
            raise ProtocolError(f"response of {length} bytes")
        return decode_response(self._read(length))

    def call(self, type_: int, params: Sequence[int]) -> Response:
        """Send a request and wait for its response, retrying as needed."""
        rid = self.next_request_id
        self.next_request_id += 1
        cluster = len(self.ports) > 1
        deadline = time.monotonic() + self.timeout_s * (self.retries + 1)
        failures = 0
        while True:
            try:
                if self._sock is None:
                    self._connect()
                self.send(type_, params, request_id=rid)
                while True:
                    r = self.recv()
                    if r.request_id in (rid, 0):
                        break
                if r.status != ERR_NOT_LEADER or not cluster or time.monotonic() > deadline:
                    return r
                self._redirect(r)
            except (OSError, ProtocolError):
                self.close()
                failures += 1
                if not cluster and failures > self.retries:
                    raise
                if cluster and time.monotonic() > deadline:
                    raise
                if cluster:
                    self._redirect(None)
                    time.sleep(0.02)

    def status(self) -> dict[str, int]:
        """The server's last published state (not ordered; the replica
        this client talks to)."""
        v = self.call(ADMIN_STATUS, []).values
        out = dict(zip(STATUS_KEYS, v))
        out["digest"] &= (1 << 64) - 1
        return out


@dataclass
class ServerProcess:
    """A potm-server-<backend> child process on a free loopback port.

    Used as a context manager it is always stopped (SIGTERM, then SIGKILL
    after ``stop_timeout_s``); :attr:`final` is its last JSON line (digest,
    checks' verdict) once stopped.
    """

    build_dir: Path
    mode: str = "pot"
    workers: int = 2
    warehouses: int = 1
    items: int = 1000
    customers: int = 30
    accounts: int = 16
    extra_args: list[str] = field(default_factory=list)
    stop_timeout_s: float = 60.0
    port: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    final: dict[str, Any] = field(default_factory=dict)
    _proc: Optional["subprocess.Popen[str]"] = None

    @property
    def binary(self) -> Path:
        """The server binary of the mode's backend."""
        return self.build_dir / "server" / f"potm-server-{MODE_BACKENDS[self.mode]}"

    def start(self, ready_timeout_s: float = 120.0) -> "ServerProcess":
        """Start it and wait for its "listening" line.

        A mode whose backend is not built (2pl, in a tree without it) is a
        FileNotFoundError that names the binary.
        """
        if not self.binary.exists():
            raise FileNotFoundError(f"mode {self.mode} runs on {self.binary}, which this "
                                    f"build does not have (is the "
                                    f"{MODE_BACKENDS[self.mode]} backend built?)")
        args = [str(self.binary), "--mode", self.mode, "--port", str(self.port),
                "-w", str(self.warehouses), "-I", str(self.items), "-C", str(self.customers),
                "--accounts", str(self.accounts)]
        if self.mode != "sequential":
            args += ["--workers", str(self.workers)]
        self._proc = subprocess.Popen(args + self.extra_args, stdout=subprocess.PIPE,
                                      text=True, preexec_fn=_die_with_parent)
        line = _readline(self._proc.stdout, ready_timeout_s)
        if not line:
            final = self.stop()
            raise RuntimeError(f"{self.binary.name} did not start "
                               f"(exit {final.get('exit_status')})")
        self.info = json.loads(line)
        self.port = int(self.info["port"])
        return self

    @property
    def running(self) -> bool:
        """True while the process runs."""
        return self._proc is not None and self._proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: a crash, no final line."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.communicate()
            self._proc = None

    def stop(self) -> dict[str, Any]:
        """Stop it (SIGTERM); its final JSON line ({} if it had none)."""
        p = self._proc
        if p is None:
            return self.final
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        try:
            out, _ = p.communicate(timeout=self.stop_timeout_s)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
        lines = [ln for ln in (out or "").splitlines() if ln.startswith("{")]
        self.final = json.loads(lines[-1]) if lines else {}
        self.final["exit_status"] = p.returncode
        self._proc = None
        return self.final

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, t: Optional[type[BaseException]], e: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.stop()


def free_ports(n: int) -> list[int]:
    """n distinct loopback ports free at the time of the call."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass
class Cluster:
    """Replicas of one Raft cluster (potm-server --replica), each a
    :class:`ServerProcess` with its data directory under ``data_root``.

    ``snapshot_every`` and ``election_ms`` pass to every replica (0: the
    server's defaults), and so do ``extra_args``.  Replicas are numbered from 1; ``servers[i - 1]``
    is replica i.
    """

    build_dir: Path
    data_root: Path
    replicas: int = 3
    mode: str = "pot"
    workers: int = 2
    items: int = 1000
    customers: int = 30
    accounts: int = 16
    snapshot_every: int = 0
    election_ms: int = 0
    extra_args: list[str] = field(default_factory=list)
    stop_timeout_s: float = 60.0
    servers: list[ServerProcess] = field(default_factory=list)

    def start(self, leader_timeout_s: float = 60.0) -> "Cluster":
        """Start every replica and wait until one is the leader."""
        ports = free_ports(2 * self.replicas)
        peers = ",".join(f"{i + 1}=127.0.0.1:{ports[2 * i]}:{ports[2 * i + 1]}"
                         for i in range(self.replicas))
        for i in range(self.replicas):
            args = ["--replica", str(i + 1), "--peers", peers,
                    "--data-dir", str(self.data_root / f"replica{i + 1}")]
            if self.snapshot_every:
                args += ["--snapshot-every", str(self.snapshot_every)]
            if self.election_ms:
                args += ["--election-ms", str(self.election_ms)]
            args += self.extra_args
            srv = ServerProcess(self.build_dir, mode=self.mode, workers=self.workers,
                                items=self.items, customers=self.customers,
                                accounts=self.accounts, extra_args=args,
                                stop_timeout_s=self.stop_timeout_s, port=ports[2 * i + 1])
            self.servers.append(srv)
            srv.start()
        self.wait_leader(leader_timeout_s)
        return self

    @property
    def ports(self) -> list[int]:
        """Every replica's client port."""
        return [s.port for s in self.servers]

    def client(self, timeout_s: float = 5.0, retries: int = 5) -> Client:
        """A client that knows every replica."""
        return Client(self.ports, timeout_s=timeout_s, retries=retries)

    def status(self, replica: int) -> Optional[dict[str, int]]:
        """Replica's STATUS, or None if it does not answer."""
        try:
            with Client(self.servers[replica - 1].port, timeout_s=2.0, retries=0) as c:
                return c.status()
        except (OSError, ProtocolError):
            return None

    def leader(self) -> int:
        """The replica that says it leads (0: none)."""
        for i in range(1, len(self.servers) + 1):
            st = self.status(i) if self.servers[i - 1].running else None
            if st is not None and st.get("leader"):
                return i
        return 0

    def wait_leader(self, timeout_s: float = 60.0) -> int:
        """The leader, once there is one."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            i = self.leader()
            if i:
                return i
            time.sleep(0.05)
        raise TimeoutError("no replica became the leader")

    def converged(self, timeout_s: float = 60.0) -> list[dict[str, int]]:
        """Wait until every running replica has applied the same batches
        and published its digest after them; their statuses."""
        deadline = time.monotonic() + timeout_s
        while True:
            sts = [self.status(i + 1) for i, s in enumerate(self.servers) if s.running]
            if all(st is not None for st in sts):
                done = [st for st in sts if st is not None]
                if (len({st["batches"] for st in done}) == 1 and
                        all(st["digest_batches"] == st["batches"] for st in done)):
                    return done
            if time.monotonic() > deadline:
                raise TimeoutError(f"the replicas did not converge: {sts}")
            time.sleep(0.05)

    def kill(self, replica: int) -> None:
        """SIGKILL one replica."""
        self.servers[replica - 1].kill()

    def restart(self, replica: int) -> None:
        """Start a killed or stopped replica again, on its data directory."""
        self.servers[replica - 1].start()

    def stop(self) -> list[dict[str, Any]]:
        """Stop every replica (SIGTERM); their final lines."""
        return [s.stop() for s in self.servers]

    def __enter__(self) -> "Cluster":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, t: Optional[type[BaseException]], e: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.stop()


def _die_with_parent() -> None:
    """In the child: SIGKILL when the parent dies, so no server outlives its test."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _readline(stream: Optional[IO[str]], timeout_s: float) -> str:
    """A line from a child's stdout, or "" at its end or after timeout_s."""
    if stream is None:
        return ""
    deadline = time.monotonic() + timeout_s
    fd = stream.fileno()
    buf = b""
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return ""
        chunk = os.read(fd, 1)
        if not chunk:
            return ""
        buf += chunk
    return buf.decode()
