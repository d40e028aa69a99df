"""A progress bar with a time estimate for long emulations (``asmgen check``), on stderr.

``Progress(total, ...)`` is told ``update(done)`` after each workgroup the emulator finishes
(``isa.emu.Emulator.launch(progress=...)``) and ``finish()`` at the end. It draws nothing unless
it is enabled (by default: its stream is a terminal; ``asmgen check --progress`` forces it,
``--no-progress`` turns it off) and the run has lasted ``after_s`` seconds (default 3: short runs
stay quiet). It redraws at most every ``interval_s`` seconds, one line rewritten with ``\\r``::

    emulating [#########...................] 84/256 workgroups  33%  0:41 elapsed, ~1:24 left

The estimate left is the measured rate so far (elapsed / done x remaining); before the first
workgroup ends it is the caller's up-front ``estimate_s`` (``asmgen.runtime.check_size``) minus
the time elapsed, or "?". It writes only to its own stream (stderr in the CLI), so stdout, and
any JSON printed there, is never touched. The clock is injectable (``clock``) for tests.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


def clock_text(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour)."""
    s = max(0, int(round(seconds)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """See the module docstring."""

    def __init__(self, total: int, *, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, enabled: bool | None = None,
                 after_s: float = 3.0, interval_s: float = 0.5, estimate_s: float | None = None,
                 label: str = "emulating", unit: str = "workgroups", width: int = 28) -> None:
        self.total = max(1, int(total))
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.after_s, self.interval_s, self.estimate_s = after_s, interval_s, estimate_s
        self.label, self.unit, self.width = label, unit, width
        self.start = clock()
        self.done = 0
        self.drawn = False
        self._last = None

    def eta(self, now: float | None = None) -> float | None:
        """Seconds left: the rate so far, else the up-front estimate; None when unknown."""
        elapsed = (self.clock() if now is None else now) - self.start
        if self.done > 0:
            return elapsed / self.done * (self.total - self.done)
        if self.estimate_s is not None:
            return max(0.0, self.estimate_s - elapsed)
        return None

    def line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        frac = min(1.0, self.done / self.total)
        fill = int(round(frac * self.width))
        eta = self.eta(now)
        left = "?" if eta is None else f"~{clock_text(eta)}"
        return (f"{self.label} [{'#' * fill}{'.' * (self.width - fill)}] {self.done}/{self.total} "
                f"{self.unit} {frac * 100:3.0f}%  {clock_text(now - self.start)} elapsed, "
                f"{left} left")

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` of ``total`` units finished (the emulator's callback signature)."""
        if total is not None:
            self.total = max(1, int(total))
        self.done = int(done)
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < self.after_s:
            return
        if self._last is not None and now - self._last < self.interval_s and self.done < self.total:
            return
        self._last = now
        text = self.line(now)
        self._width = max(getattr(self, "_width", 0), len(text))
        self.stream.write("\r" + text)
        self.stream.flush()
        self.drawn = True

    __call__ = update

    def finish(self) -> None:
        """End the bar's line (only when one was drawn)."""
        if self.drawn:
            now = self.clock()
            text = (f"{self.label}: {self.done}/{self.total} {self.unit} in "
                    f"{clock_text(now - self.start)}")
            self.stream.write(f"\r{text.ljust(self._width)}\n")
            self.stream.flush()
            self.drawn = False
