"""The resumable cache of a sweep: finished runs as JSON lines.

Each line is ``{"key": {...}, "result": {...}}``: the key is the point
(workload, backend, threads, parameters, run-time config) plus the repeat
index, the result a ``RunResult.to_dict()``.  A line is appended and flushed
as soon as a run ends, so an interrupted sweep (Ctrl-C, a reboot) resumes
where it stopped.  When a key occurs more than once the last line wins (a
failed run retried later).  A damaged line (a write cut short) is skipped
with a warning.  One file can serve several sweeps: keys never collide.

The key does not identify the libraries: after rebuilding them, start a new
cache file (or delete the old one) to measure again.

Example:
    >>> cache = SweepCache("runs.jsonl")                # doctest: +SKIP
    >>> key = point_key("bank", "tl2", 2, {"accounts": 64}, {}, repeat=0)
    >>> key["repeat"]
    0
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from potm.result import RunResult

PathLike = Union[str, "os.PathLike[str]"]


def point_key(workload: str, backend: str, threads: int, params: Mapping[str, Any],
              config: Mapping[str, str], *, repeat: int) -> dict[str, Any]:
    """The cache key of one repeat of one point."""
    return {"workload": workload, "backend": backend, "threads": threads,
            "params": dict(sorted(params.items())), "config": dict(sorted(config.items())),
            "repeat": repeat}


def _key_text(key: Mapping[str, Any]) -> str:
    """A key in canonical form (sorted keys, no spaces)."""
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


class SweepCache:
    """Finished runs on disk, looked up by point key."""

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        self._entries: dict[str, RunResult] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        with open(self.path, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    result = RunResult.from_dict(entry["result"])
                    self._entries[_key_text(entry["key"])] = result
                except (ValueError, KeyError, TypeError) as exc:
                    warnings.warn(f"{self.path}:{number}: skipping a damaged cache line "
                                  f"({exc})", stacklevel=3)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Mapping[str, Any]) -> Optional[RunResult]:
        """The cached result for key, or None."""
        return self._entries.get(_key_text(key))

    def put(self, key: Mapping[str, Any], result: RunResult) -> None:
        """Record result under key, on disk at once."""
        line = json.dumps({"key": dict(key), "result": result.to_dict()}, sort_keys=True)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            if f.tell() > 0 and not self._ends_with_newline():
                f.write("\n")  # after a line cut short, start a fresh one
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
        self._entries[_key_text(key)] = result

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"
