"""The fuzz campaign loop: hypothesis-drawn cases until a time budget or example count runs out,
a plain-text progress bar on stderr, reproducers (shrunk) for every failure, and a summary.

Hypothesis drives the draws (``asmgen.fuzz.strategies``) in sessions of ``SESSION_EXAMPLES``
examples, each session seeded from the campaign seed, with only the *generate* phase: the loop
records every failure itself (hypothesis would stop at the first one) and shrinks it with
``asmgen.fuzz.cases.shrink``, which keeps the schedule and emulator seeds fixed. Drawn cases wait
in a batch of ``asmgen.fuzz.batch.BATCH`` and run together (``run_batch``: their kernels
assembled as one code object, each checked alone on the emulator; a failing one re-run alone, so
its reproducer is the single-kernel one).
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from .batch import BATCH, run_batch
from .cases import PASS, REFUSED, REJECTED, Outcome, run_case, save_reproducer, settle_gc, shrink
from .strategies import FuzzCase, fuzz_cases

SESSION_EXAMPLES = 25


@dataclass
class Summary:
    kind: str
    seed: int
    cases: int = 0
    passes: int = 0
    rejected: int = 0
    refused: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    reproducers: list = field(default_factory=list)

    @property
    def failed(self) -> int:
        return sum(self.failures.values())

    def per_minute(self) -> float:
        return 60.0 * self.passes / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict:
        return {"kind": self.kind, "seed": self.seed, "cases": self.cases, "passes": self.passes,
                "rejected": self.rejected, "refused": dict(self.refused), "failures": dict(self.failures),
                "seconds": round(self.seconds, 1),
                "verified_per_minute": round(self.per_minute(), 2),
                "reproducers": [str(p) for p in self.reproducers]}

    def text(self) -> str:
        lines = [(f"fuzz {self.kind} seed={self.seed}: {self.cases} cases in {self.seconds:.0f} s: "
                 f"{self.passes} passed, {self.failed} failed, {self.rejected} rejected configs"),
                 (f"throughput: {self.per_minute():.1f} verified schedules/min "
                 f"({60.0 * self.cases / max(self.seconds, 1e-9):.1f} cases/min)")]
        if self.failures:
            lines.append("failures by kind: " + ", ".join(f"{k}={v}" for k, v in
                                                          self.failures.most_common()))
            lines += [f"  reproducer: {p}" for p in self.reproducers]
        else:
            lines.append("failures by kind: none")
        if self.refused:
            lines.append("refused schedules (typed compile-time resource errors, not failures): "
                         + ", ".join(f"{k}={v}" for k, v in self.refused.most_common()))
        return "\n".join(lines)


class Progress:
    """``[#####.....]  42/120 s  cases 31  ok 30  fail 1  rej 2  1.2/s`` rewritten in place."""

    def __init__(self, budget: float | None, examples: int | None, stream=sys.stderr) -> None:
        self.budget, self.examples, self.stream = budget, examples, stream
        self.t0 = time.monotonic()
        self.enabled = stream is not None

    def update(self, s: Summary, note: str = "") -> None:
        if not self.enabled:
            return
        el = time.monotonic() - self.t0
        frac = 0.0
        if self.budget:
            frac = el / self.budget
        if self.examples:
            frac = max(frac, s.cases / self.examples)
        frac = min(frac, 1.0)
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        total = f"/{self.budget:.0f}" if self.budget else ""
        msg = (f"\r[{bar}] {el:5.0f}{total} s  cases {s.cases}  ok {s.passes}  "
               f"fail {s.failed}  rej {s.rejected}  refused {sum(s.refused.values())}  {s.cases / max(el, 1e-9):.2f}/s {note}")
        self.stream.write(msg[:160].ljust(120))
        self.stream.flush()

    def done(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def campaign(kind: str = "gemm", *, budget: float | None = 60.0, seed: int = 0,
             outdir: str | Path = "fuzz_out", examples: int | None = None, small: bool = True,
             shrink_failures: bool = True, progress_stream=sys.stderr, log=None) -> Summary:
    """Run fuzz cases until ``budget`` seconds or ``examples`` cases, whichever comes first."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from ..kinds import registry
    registry.get(kind)          # an unknown kind is a ConfigError naming the known ones
    if budget is None and examples is None:
        raise ConfigError("fuzz needs a --budget or an --examples limit")
    outdir = Path(outdir)
    summary = Summary(kind, seed)
    bar = Progress(budget, examples, progress_stream)
    t0 = time.monotonic()

    waiting: list[FuzzCase] = []

    def over() -> bool:
        return ((budget is not None and time.monotonic() - t0 >= budget)
                or (examples is not None and summary.cases + len(waiting) >= examples))

    def one(case: FuzzCase) -> None:
        if over():
            return
        waiting.append(case)
        if len(waiting) >= batch_size():
            flush()

    def batch_size() -> int:
        """BATCH, but 1 for the first case (settle_gc freezes what it leaves: imports, tables),
        and no more cases than the time left is expected to run (the budget holds as before)."""
        if not warm:
            return 1
        if budget is None or not summary.cases:
            return BATCH
        per_case = (time.monotonic() - t0) / summary.cases
        return max(1, min(BATCH, int((budget - (time.monotonic() - t0)) / per_case)))

    def flush() -> None:
        nonlocal warm
        batch = list(waiting)
        waiting.clear()
        outs = run_batch(batch) if len(batch) > 1 else [run_case(c) for c in batch]
        settle_gc()
        warm = True
        for case, out in zip(batch, outs):
            record(case, out)

    def record(case: FuzzCase, out: Outcome) -> None:
        summary.cases += 1
        if out.kind == PASS:
            summary.passes += 1
        elif out.kind == REJECTED:
            summary.rejected += 1
        elif out.kind.startswith(REFUSED):
            summary.refused[out.kind[len(REFUSED):]] += 1
        else:
            summary.failures[out.kind] += 1
            if log:
                log(f"FAIL {out.kind}: {case.describe()}: {out.message[:300]}")
            small_case, small_out = case, out
            if shrink_failures:
                bar.update(summary, "shrinking")
                small_case, s_out = shrink(case, out.kind, log=log)
                small_out = s_out or out
            path = save_reproducer(outdir, summary.failed, small_case, small_out, original=case)
            summary.reproducers.append(path)
            if log:
                log(f"  reproducer {path}")
        summary.seconds = time.monotonic() - t0
        bar.update(summary)

    warm = False
    session = 0
    while not over():
        test = settings(max_examples=SESSION_EXAMPLES, deadline=None, database=None,
                        phases=[Phase.generate], suppress_health_check=list(HealthCheck))(
            given(fuzz_cases(small=small, kind=kind))(one))
        hseed(seed * 100003 + session)(test)()
        if waiting:
            flush()
        session += 1
    summary.seconds = time.monotonic() - t0
    bar.done()
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "summary.json").write_text(json.dumps(summary.to_dict(), indent=1) + "\n")
    return summary


def replay(path: str | Path) -> Outcome:
    """Re-run a reproducer's case exactly (config, schedule seed, emulator seed)."""
    from .cases import load_reproducer
    return run_case(load_reproducer(path))
