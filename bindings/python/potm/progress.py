"""Progress of a sweep: one updating tqdm bar, or one line per run in a log.

On a terminal the bar is tqdm's text bar on stderr, redrawn in place; in
Jupyter it is tqdm's notebook widget when ipywidgets is installed, else
the same text bar (a notebook's stderr understands carriage returns), so a
sweep shows one bar that moves, never a scroll of lines.  Elsewhere (a log
file, CI) one line is printed per finished run.

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> p = Progress(total=2, stream=out, inplace=False)
    >>> p.skip(1)             # one run came from the cache
    >>> p.start("tl2 t=2")
    >>> p.finish(ok=True)
    >>> p.close()
    >>> print(out.getvalue().splitlines()[-1])
    2/2 (1 cached) done
"""

from __future__ import annotations

import importlib.util
import sys
import time
from typing import Any, Optional, TextIO

from tqdm import tqdm as text_bar


def _clock(seconds: float) -> str:
    """Seconds as h:mm:ss or m:ss."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel."""
    return "ipykernel" in sys.modules


def _bar_class(stream: TextIO) -> Any:
    """tqdm's notebook widget in a Jupyter kernel drawing on its own stderr
    (when ipywidgets is there), else tqdm's text bar."""
    if in_notebook() and stream is sys.stderr and \
            importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm as widget_bar
        return widget_bar
    return text_bar


class Progress:
    """Counts runs done (run, cached, failed) out of total and shows them."""

    def __init__(self, total: int, *, enabled: bool = True,
                 stream: Optional[TextIO] = None, inplace: Optional[bool] = None) -> None:
        self.total = total
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        if inplace is None:
            inplace = self._stream_is_tty() or in_notebook()
        self.inplace = inplace
        self.done = 0
        self.cached = 0
        self.failed = 0
        self._ran = 0
        self._run_time = 0.0
        self._started: Optional[float] = None
        self._label = ""
        self._bar: Any = None
        self._closed = False

    def _stream_is_tty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def _drawn(self) -> Any:
        """The bar, made at its first use: the runs done by then (cached)
        are its starting count, so that its rate and time left are those of
        the runs that really run.  None when nothing is drawn in place."""
        if self._bar is None and self.enabled and self.inplace and not self._closed:
            self._bar = _bar_class(self.stream)(
                total=self.total, initial=self.done, file=self.stream, unit="run",
                dynamic_ncols=True, leave=True, smoothing=0.1)
        return self._bar

    def skip(self, count: int) -> None:
        """count runs were found in the cache."""
        self.done += count
        self.cached += count
        if self._bar is not None and count:
            self._bar.update(count)
            self._bar.set_postfix_str(self._note(""), refresh=True)

    def start(self, label: str) -> None:
        """A run described by label starts."""
        self._label = label
        self._started = time.monotonic()
        bar = self._drawn()
        if bar is not None:
            bar.set_postfix_str(self._note(label), refresh=True)

    def finish(self, *, ok: bool) -> None:
        """The run started last has ended."""
        if self._started is not None:
            self._run_time += time.monotonic() - self._started
            self._ran += 1
        self.done += 1
        if not ok:
            self.failed += 1
        note = self._label + ("" if ok else "  FAILED")
        bar = self._drawn()
        if bar is not None:
            bar.set_postfix_str(self._note(note), refresh=False)
            bar.update(1)
        elif not self.inplace:
            self._print_line(self._status(note))

    def close(self) -> None:
        """Show the final state (and end the bar)."""
        if not self.enabled or self._closed:
            return
        bar = self._drawn()
        self._closed = True
        if bar is not None:
            bar.set_postfix_str(self._note(""), refresh=False)
            bar.close()
            self._bar = None
        elif not self.inplace:
            self._print_line(self._status("done"))

    def _note(self, label: str) -> str:
        """What the bar shows after its counts: cached and failed runs and
        the run in progress."""
        extra = []
        if self.cached:
            extra.append(f"{self.cached} cached")
        if self.failed:
            extra.append(f"{self.failed} failed")
        return ", ".join(extra + ([label] if label else []))

    def _status(self, note: str) -> str:
        """A log line: runs done of total, cached and failed runs, the time
        left at the mean time of a run so far, note."""
        parts = [f"{self.done}/{self.total}"]
        extra = []
        if self.cached:
            extra.append(f"{self.cached} cached")
        if self.failed:
            extra.append(f"{self.failed} failed")
        if extra:
            parts.append(f"({', '.join(extra)})")
        remaining = self.total - self.done
        if self._ran and remaining and note != "done":
            parts.append(f"eta {_clock(remaining * self._run_time / self._ran)}")
        if note:
            parts.append(note)
        return " ".join(parts)

    def _print_line(self, text: str) -> None:
        if self.enabled:
            self.stream.write(text + "\n")
            self.stream.flush()
