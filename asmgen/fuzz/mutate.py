"""The mutation proof: break correct kernels one mutation at a time and show the emulator rejects
every broken one with the precise error (issue #5).

Mutations edit the *final* instruction stream (physical registers, waits and nops inserted) as
it appears in the kernel's ``.s`` text; the text is re-assembled and the code object run with the
kernel's own launch contract through ``asmgen check``'s checker (GEMM or attention, by the
contract's ``config.kind``; waves per workgroup from its ``block``). Classes:

==================  ====================================================  ======================
class               mutation                                              expected error
==================  ====================================================  ======================
delete_waitcnt      drop an ``s_waitcnt`` that protects a consumer        PendingRead/Overwrite,
                                                                          LdsRaceError (barrier)
raise_waitcnt       raise one count of such a wait by one                 as above
delete_barrier      drop an ``s_barrier`` between LDS phases (>1 wave)    LdsRaceError
shorten_nop         ``s_nop N`` -> ``s_nop N-1`` (deleted at 0)           HazardError
hoist_ds_read       move a ``ds_read`` above the wait just before it      as predicted
swap_dependent      swap two adjacent ALU instructions in a loop, the 2nd Mismatch or any error
                    reads the 1st (no extremum op: ``mutate_sites``)
reuse_inflight      write a load's destination while the load is pending  PendingOverwriteError
drop_setprio        drop an ``s_setprio`` outside hazard windows           none
                    (neutral: must *survive*)
==================  ====================================================  ======================

Sites are chosen statically (``asmgen.fuzz.predict``: only where the mutation breaks a dependence
in the stream), never by asking the emulator. A kill is *precise* when the emulator's error class
is the predicted one. A correctness mutant that survives is a *survivor*, a neutral one that is
killed a *neutral kill*: both are printed loudly and fail ``Report.ok()`` (the CLI exit status).
The campaign over a kind's proof kernels is ``asmgen.fuzz.mutate_campaign``.
"""
from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .mutate_sites import (
    AIMED_CLASSES,
    ANY,
    Mutant,
    Program,
    aimed_at,
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
    kernel: str = ""      # the mutated kernel's name (campaigns mix several kernels)

    @property
    def killed(self) -> bool:
        return self.outcome != SURVIVED and not self.outcome.startswith("asm:")

    @property
    def precise(self) -> bool:
        if not self.killed:
            return False
        return ANY in self.mutant.expected or self.outcome in self.mutant.expected


def kernel_kind(kernel) -> str:
    """The launch contract's ``config.kind`` (a registered kernel kind)."""
    from ..kinds import registry
    return registry.of_contract(kernel.meta).name


def kernel_waves(kernel) -> int:
    """Waves per workgroup from the launch contract's block (wave64, cdna-facts section 1), so
    the proof reads the kernel as built instead of assuming a template's wave layout."""
    bx, by, bz = kernel.meta["block"]
    return max(1, -(-(bx * by * bz) // 64))


def run_mutant(kernel, prog: Program, mutant: Mutant, seed: int = 0, toolchain=None) -> Result:
    """Re-assemble the mutated text and check it like ``asmgen check --seed seed`` (the checker
    of the kernel's kind: GEMM or attention), at the contract's sizes and then at each of the
    kernel's ``proof_sizes`` (runtime sizes, ``asmgen check --size``: a proof kernel whose
    branches take different paths at different lengths, e.g. causal attention's diagonal
    blocks); the first failing run decides."""
    from isa.emu.errors import EmulatorError

    from ..errors import AsmgenError
    from ..kinds import registry
    from ..runtime.emu import EmuRunner
    from ..toolchain import find_toolchain
    check = registry.of_contract(kernel.meta).check
    asm = mutant.apply(prog)
    try:
        hsaco = (toolchain or find_toolchain()).assemble(asm, prog.target.arch)
    except AsmgenError as exc:
        return Result(mutant, "asm:" + type(exc).__name__, str(exc)[:300], kernel.name)
    for sizes in (None, *getattr(kernel, "proof_sizes", ())):
        try:
            ok, msg = check(kernel.meta, EmuRunner(kernel.meta, hsaco, seed=seed), seed, sizes)
        except EmulatorError as exc:
            return Result(mutant, type(exc).__name__, str(exc)[:300], kernel.name)
        if not ok:
            return Result(mutant, MISMATCH, msg, kernel.name)
    return Result(mutant, SURVIVED, msg, kernel.name)


@dataclass
class Report:
    results: list[Result] = field(default_factory=list)
    sites: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    kernels: list[str] = field(default_factory=list)

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

    def survivors(self) -> list[Result]:
        """Correctness-class mutants the emulator accepted: each is a finding (an error the
        emulator misses, or a site the prediction wrongly called harmful)."""
        return [r for r in self.results
                if r.mutant.cls in CORRECTNESS_CLASSES and r.outcome == SURVIVED]

    def unassembled(self) -> list[Result]:
        """Mutants whose text the assembler refused: the mutation is broken, not the kernel."""
        return [r for r in self.results if r.outcome.startswith("asm:")]

    def imprecise(self) -> list[Result]:
        """Correctness-class mutants killed, but not with the predicted error."""
        return [r for r in self.results
                if r.mutant.cls in CORRECTNESS_CLASSES and r.killed and not r.precise]

    def neutral_kills(self) -> list[Result]:
        """Neutral mutants the emulator rejected: the emulator flags a harmless edit."""
        return [r for r in self.results if r.mutant.cls in NEUTRAL_CLASSES and r.killed]

    def ok(self) -> bool:
        """Every correctness mutant killed as predicted, every neutral one survived, and every
        mutant assembled."""
        return self.all_killed() and not self.neutral_kills() and not self.unassembled()

    def text(self) -> str:
        lines = [f"mutation proof: {len(self.results)} mutants in {self.seconds:.0f} s"]
        if self.kernels:
            lines.append(f"  kernels: {', '.join(self.kernels)}")
        bc = self.by_class()
        for cls in CLASSES:
            rs = bc.get(cls, [])
            if not rs:
                why = (f"not run within the budget ({self.sites[cls]} candidate sites)"
                       if self.sites[cls] else "no site in these kernels")
                lines.append(f"  {cls:15s} {why}")
                continue
            k = sum(r.killed for r in rs)
            p = sum(r.precise for r in rs)
            errs = Counter(r.outcome for r in rs)
            tag = "neutral (survivals expected)" if cls in NEUTRAL_CLASSES else \
                f"kill rate {100.0 * k / len(rs):5.1f}%  precise {p}/{len(rs)}"
            lines.append(f"  {cls:15s} {k}/{len(rs)} killed  {tag}  "
                         + ", ".join(f"{e}={n}" for e, n in errs.most_common()))
        for r in self.survivors():
            lines.append(f"  SURVIVOR (finding): {r.mutant.cls} in {r.kernel}: "
                         f"{r.mutant.description}: expected {r.mutant.expected}, the emulator "
                         f"accepted it ({r.outcome}: {r.message[:200]})")
        for r in self.imprecise():
            lines.append(f"  NOT KILLED AS PREDICTED: {r.mutant.cls} in {r.kernel}: "
                         f"{r.mutant.description}: expected {r.mutant.expected}, got {r.outcome}: "
                         f"{r.message[:200]}")
        for r in self.unassembled():
            lines.append(f"  MUTANT DID NOT ASSEMBLE: {r.mutant.cls} in {r.kernel}: "
                         f"{r.mutant.description}: {r.message[:200]}")
        for r in self.neutral_kills():
            lines.append(f"  NEUTRAL MUTANT KILLED (finding): {r.mutant.cls} in {r.kernel}: "
                         f"{r.mutant.description}: {r.outcome}: {r.message[:200]}")
        if self.results:
            lines.append("verdict: " + ("every correctness mutant killed as predicted"
                                        if self.ok() else "FAILED (see the lines above)"))
        return "\n".join(lines)


class BaselineError(Exception):
    """The unmutated kernel does not pass: mutating it would prove nothing."""


def baseline(kernel, prog: Program, seed: int) -> None:
    r = run_mutant(kernel, prog, Mutant("none", 0, "no edit", [], ()), seed=seed)
    if r.outcome != SURVIVED:
        raise BaselineError(f"{kernel.name}: the unmutated kernel fails ({r.outcome}: "
                            f"{r.message[:300]}); fix it before the mutation proof")


def plan(kernel, *, per_class: int, seed: int, classes=CLASSES,
         sites: Counter | None = None, aim: tuple[str, ...] = ()) -> tuple[Program, list[Mutant]]:
    """Up to ``per_class`` sampled sites of each class of one kernel; with ``aim`` (load
    mnemonics, a proof kernel's ``mutate_aim``) also up to ``per_class`` of each wait class
    among the sites that break those loads (``mutate_sites.aimed_at``), beside the others."""
    prog = Program.from_asm(kernel.asm, kernel.config.target, kernel.name)
    found = all_sites(prog, kernel_waves(kernel))
    rng = random.Random(seed)
    chosen = []
    for cls in classes:
        cands = found.get(cls, [])
        if sites is not None:
            sites[cls] += len(cands)
        picked = rng.sample(cands, min(per_class, len(cands)))
        if aim and cls in AIMED_CLASSES:
            taken = {m.site for m in picked}
            aimed = [m for m in aimed_at(prog, cands, tuple(aim)) if m.site not in taken]
            picked += rng.sample(aimed, min(per_class, len(aimed)))
        chosen += picked
    return prog, chosen


def mutate_kernel(kernel, *, per_class: int = 3, seed: int = 0, classes=CLASSES,
                  report: Report | None = None, log=None, aim: tuple[str, ...] = ()) -> Report:
    """Apply up to ``per_class`` sampled mutations of each class to one correct kernel (``aim``:
    ``plan``'s)."""
    report = report or Report()
    t0 = time.monotonic()
    prog, chosen = plan(kernel, per_class=per_class, seed=seed, classes=classes,
                        sites=report.sites, aim=aim)
    baseline(kernel, prog, seed)
    report.kernels.append(kernel.name)
    for m in chosen:
        r = run_mutant(kernel, prog, m, seed=seed)
        report.results.append(r)
        if log:
            log(f"{m.cls}: {m.description[:160]} -> {r.outcome}")
    report.seconds += time.monotonic() - t0
    return report
