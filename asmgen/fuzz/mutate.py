"""The mutation proof: break correct kernels one mutation at a time and show the emulator rejects
every broken one with the precise error (issue #5).

Mutations edit the *final* instruction stream (physical registers, waits and nops inserted) as
it appears in the kernel's ``.s`` text; the text is re-assembled and the code object run with the
kernel's own launch contract through ``asmgen check``'s checker. Classes:

==================  ====================================================  ======================
class               mutation                                              expected error
==================  ====================================================  ======================
delete_waitcnt      drop an ``s_waitcnt`` that protects a consumer        PendingRead/Overwrite,
                                                                          LdsRaceError (barrier)
raise_waitcnt       raise one count of such a wait by one                 as above
delete_barrier      drop an ``s_barrier`` between LDS phases (>1 wave)    LdsRaceError
shorten_nop         ``s_nop N`` -> ``s_nop N-1`` (deleted at 0)           HazardError
hoist_ds_read       move a ``ds_read`` above the wait just before it      as predicted
swap_dependent      swap two adjacent ALU instructions, 2nd reads the 1st Mismatch or any error
reuse_inflight      write a load's destination while the load is pending  PendingOverwriteError
drop_setprio        drop an ``s_setprio`` (neutral: must *survive*)       none
==================  ====================================================  ======================

Sites are chosen statically (``asmgen.fuzz.predict``: only where the mutation breaks a dependence
in the stream), never by asking the emulator. A kill is *precise* when the emulator's error class
is the predicted one.
"""
from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .mutate_sites import (
    ANY,
    Mutant,
    Program,
    all_sites,
    sites_barrier,
    sites_hoist,
    sites_nop,
    sites_reuse,
    sites_setprio,
    sites_swap,
    sites_waitcnt,
)

CORRECTNESS_CLASSES = ("delete_waitcnt", "raise_waitcnt", "delete_barrier", "shorten_nop",
                       "hoist_ds_read", "swap_dependent", "reuse_inflight")
NEUTRAL_CLASSES = ("drop_setprio",)
CLASSES = CORRECTNESS_CLASSES + NEUTRAL_CLASSES
MISMATCH, SURVIVED = "Mismatch", "survived"
__all__ = ["ANY", "CLASSES", "CORRECTNESS_CLASSES", "NEUTRAL_CLASSES", "Mutant", "Program",
           "all_sites", "sites_barrier", "sites_hoist", "sites_nop", "sites_reuse",
           "sites_setprio", "sites_swap", "sites_waitcnt"]


# --------------------------------------------------------------------------------------------
# running
@dataclass
class Result:
    mutant: Mutant
    outcome: str          # error class name, "Mismatch", "survived" or "asm:<reason>"
    message: str = ""

    @property
    def killed(self) -> bool:
        return self.outcome != SURVIVED and not self.outcome.startswith("asm:")

    @property
    def precise(self) -> bool:
        if not self.killed:
            return False
        return ANY in self.mutant.expected or self.outcome in self.mutant.expected


def run_mutant(kernel, prog: Program, mutant: Mutant, seed: int = 0, toolchain=None) -> Result:
    """Re-assemble the mutated text and check it like ``asmgen check --seed seed``."""
    from isa.emu.errors import EmulatorError

    from ..api import EmuRunner
    from ..cli_gemm import check_gemm
    from ..errors import AsmgenError
    from ..toolchain import find_toolchain
    asm = mutant.apply(prog)
    try:
        hsaco = (toolchain or find_toolchain()).assemble(asm, prog.arch)
    except AsmgenError as exc:
        return Result(mutant, "asm:" + type(exc).__name__, str(exc)[:300])
    try:
        ok, msg = check_gemm(kernel.meta, EmuRunner(kernel.meta, hsaco, seed=seed), seed)
    except EmulatorError as exc:
        return Result(mutant, type(exc).__name__, str(exc)[:300])
    return Result(mutant, SURVIVED if ok else MISMATCH, msg)


@dataclass
class Report:
    results: list[Result] = field(default_factory=list)
    sites: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def by_class(self) -> dict[str, list[Result]]:
        d = defaultdict(list)
        for r in self.results:
            d[r.mutant.cls].append(r)
        return d

    def kill_rate(self, cls: str) -> float:
        rs = self.by_class().get(cls, [])
        return sum(r.killed for r in rs) / len(rs) if rs else float("nan")

    def all_killed(self) -> bool:
        return all(r.killed and r.precise for r in self.results
                   if r.mutant.cls in CORRECTNESS_CLASSES)

    def text(self) -> str:
        lines = [f"mutation proof: {len(self.results)} mutants in {self.seconds:.0f} s"]
        bc = self.by_class()
        for cls in CLASSES:
            rs = bc.get(cls, [])
            if not rs:
                lines.append(f"  {cls:15s} no site ({self.sites[cls]} candidate sites)")
                continue
            k = sum(r.killed for r in rs)
            p = sum(r.precise for r in rs)
            errs = Counter(r.outcome for r in rs)
            tag = "neutral (survivals expected)" if cls in NEUTRAL_CLASSES else \
                f"kill rate {100.0 * k / len(rs):5.1f}%  precise {p}/{len(rs)}"
            lines.append(f"  {cls:15s} {k}/{len(rs)} killed  {tag}  "
                         + ", ".join(f"{e}={n}" for e, n in errs.most_common()))
        bad = [r for r in self.results if r.mutant.cls in CORRECTNESS_CLASSES and not r.precise]
        for r in bad:
            lines.append(f"  NOT KILLED AS PREDICTED: {r.mutant.cls}: {r.mutant.description}: "
                         f"expected {r.mutant.expected}, got {r.outcome}: {r.message[:200]}")
        return "\n".join(lines)


class BaselineError(Exception):
    """The unmutated kernel does not pass: mutating it would prove nothing."""


def baseline(kernel, prog: Program, seed: int) -> None:
    r = run_mutant(kernel, prog, Mutant("none", 0, "no edit", [], ()), seed=seed)
    if r.outcome != SURVIVED:
        raise BaselineError(f"{kernel.name}: the unmutated kernel fails ({r.outcome}: "
                            f"{r.message[:300]}); fix it before the mutation proof")


def plan(kernel, *, per_class: int, seed: int, classes=CLASSES,
         sites: Counter | None = None) -> tuple[Program, list[Mutant]]:
    """Up to ``per_class`` sampled sites of each class of one kernel."""
    cfg = kernel.config
    prog = Program.from_asm(kernel.asm, cfg.arch, kernel.name)
    found = all_sites(prog, cfg.waves[0] * cfg.waves[1])
    rng = random.Random(seed)
    chosen = []
    for cls in classes:
        cands = found.get(cls, [])
        if sites is not None:
            sites[cls] += len(cands)
        chosen += rng.sample(cands, min(per_class, len(cands)))
    return prog, chosen


def mutate_kernel(kernel, *, per_class: int = 3, seed: int = 0, classes=CLASSES,
                  report: Report | None = None, log=None) -> Report:
    """Apply up to ``per_class`` sampled mutations of each class to one correct kernel."""
    report = report or Report()
    t0 = time.monotonic()
    prog, chosen = plan(kernel, per_class=per_class, seed=seed, classes=classes,
                        sites=report.sites)
    baseline(kernel, prog, seed)
    for m in chosen:
        r = run_mutant(kernel, prog, m, seed=seed)
        report.results.append(r)
        if log:
            log(f"{m.cls}: {m.description[:160]} -> {r.outcome}")
    report.seconds += time.monotonic() - t0
    return report


# kernels the proof breaks: several recipes, layouts and arches, all with 4 waves (races) and at
# least 4 K-iterations (so a stale address or value from the previous trip is a wrong one).
PROOF_KERNELS = (
    {"m": 64, "n": 64, "k": 128, "schedule": "pgr1"},
    {"m": 64, "n": 64, "k": 256, "schedule": "pgr2", "layout": "NT"},
    {"m": 48, "n": 40, "k": 256, "schedule": "ck_v4", "layout": "TN", "dtype": "bf16",
     "arch": "gfx950", "mfma": (16, 16, 32), "tile": (32, 32, 64)},
    {"m": 64, "n": 64, "k": 128, "schedule": "pgr1", "direct_to_lds": True},
    {"m": 64, "n": 64, "k": 128, "schedule": "fuzz", "schedule_params": {"seed": 11}},
    {"m": 64, "n": 64, "k": 128, "schedule": "fuzz", "layout": "TT",
     "schedule_params": {"seed": 12}},
)


def mutation_campaign(kind: str = "gemm", *, seed: int = 0, budget: float | None = None,
                      per_class: int = 4, outdir: str | Path | None = None, log=None) -> Report:
    """``asmgen fuzz gemm --mutate``: the proof over ``PROOF_KERNELS``, up to ``per_class`` sites
    per class and kernel, interleaved (class-major round robin) until ``budget`` seconds."""
    import json

    import schedules.fuzz  # noqa: F401  (registers "fuzz")

    from ..api import gemm
    from ..errors import ConfigError
    if kind != "gemm":
        raise ConfigError(f"mutation proof for {kind!r}: only gemm kernels exist today")
    report = Report()
    t0 = time.monotonic()
    queues: dict[str, list] = defaultdict(list)
    for n, kw in enumerate(PROOF_KERNELS):
        kern = gemm(**kw)
        prog, chosen = plan(kern, per_class=per_class, seed=seed + n, sites=report.sites)
        baseline(kern, prog, seed)
        for m in chosen:
            queues[m.cls].append((kern, prog, m))
    order = []
    while any(queues.values()):
        for cls in CLASSES:
            if queues[cls]:
                order.append(queues[cls].pop(0))
    for kern, prog, m in order:
        if budget is not None and time.monotonic() - t0 > budget:
            break
        r = run_mutant(kern, prog, m, seed=seed)
        report.results.append(r)
        if log:
            log(f"{m.cls}: {kern.name}: {m.description[:160]} -> {r.outcome}")
    report.seconds = time.monotonic() - t0
    if outdir is not None:
        d = Path(outdir)
        d.mkdir(parents=True, exist_ok=True)
        rows = [{"class": r.mutant.cls, "site": r.mutant.description, "expected": r.mutant.expected,
                 "outcome": r.outcome, "precise": r.precise, "message": r.message}
                for r in report.results]
        (d / "mutations.json").write_text(json.dumps(rows, indent=1) + "\n")
        (d / "mutations.txt").write_text(report.text() + "\n")
    return report
