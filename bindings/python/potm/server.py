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
from typing import IO, Any, Optional, Sequence

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
    """

    def __init__(self, port: int, host: str = "127.0.0.1", client_id: int = 0,
                 timeout_s: float = 10.0, retries: int = 3) -> None:
        self.host, self.port, self.timeout_s, self.retries = host, port, timeout_s, retries
        self.client_id = client_id or random.getrandbits(63) + 1
        self.next_request_id = 1
        self._sock: Optional[socket.socket] = None
        self._buf = b""
        self._connect()

    def _connect(self) -> None:
        self.close()
        self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout_s)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = b""

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
        for attempt in range(self.retries + 1):
            try:
                if self._sock is None:
                    self._connect()
                self.send(type_, params, request_id=rid)
                while True:
                    r = self.recv()
                    if r.request_id in (rid, 0):
                        return r
            except (OSError, ProtocolError):
                self.close()
                if attempt == self.retries:
                    raise
        raise AssertionError("unreachable")

    def status(self) -> dict[str, int]:
        """The server's last published state (not ordered)."""
        v = self.call(ADMIN_STATUS, []).values
        keys = ["batches", "positions", "executed", "digest", "digest_batches",
                "warehouses", "items", "customers", "accounts", "workers", "mode"]
        out = dict(zip(keys, v))
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
        args = [str(self.binary), "--mode", self.mode, "--port", "0",
                "-w", str(self.warehouses), "-I", str(self.items), "-C", str(self.customers),
                "--accounts", str(self.accounts)]
        if self.mode != "sequential":
            args += ["--workers", str(self.workers)]
        self._proc = subprocess.Popen(args + self.extra_args, stdout=subprocess.PIPE,
                                      text=True, preexec_fn=_die_with_parent)
        line = _readline(self._proc.stdout, ready_timeout_s)
        if not line:
            self.stop()
            raise RuntimeError(f"{self.binary.name} did not start (exit {self._proc.returncode})")
        self.info = json.loads(line)
        self.port = int(self.info["port"])
        return self

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
