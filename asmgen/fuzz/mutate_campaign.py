"""The mutation-proof campaign of ``asmgen fuzz gemm|attention --mutate``: build the kind's proof
kernels, check each unmutated kernel passes, sample sites per class (``asmgen.fuzz.mutate.plan``:
sites come from each kernel's own instruction stream, never from template tags), run them in
class-major round robin until the time budget, and write ``mutations.json`` / ``mutations.txt``.
"""
from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

from ..errors import ConfigError
from .mutate import CLASSES, Report, baseline, plan, run_mutant


def proof_kernels(kind: str) -> tuple[dict, ...]:
    """The proof kernels of ``kind`` (its ``KernelKind.proof_kernels``: config keywords plus
    ``schedule`` / ``schedule_params``; e.g. ``asmgen.kinds.gemm.fuzz.GEMM_PROOF_KERNELS``)."""
    from ..kinds import registry
    specs = registry.get(kind).proof_kernels()
    if not specs:
        raise ConfigError(f"kernel kind {kind!r} has no mutation-proof kernels")
    return specs


def proof_aim(spec: dict) -> tuple[str, ...]:
    """The load mnemonics a proof kernel's spec asks extra wait mutants for (``mutate_aim``,
    ``asmgen.fuzz.mutate.plan``), () when none."""
    return tuple(spec.get("mutate_aim", ()))


def build_proof_kernel(kind: str, spec: dict):
    """Compile one proof kernel of ``kind`` from its spec (``asmgen.api.generate`` keywords;
    ``mutate_aim`` is the proof's, ``proof_aim``; ``check_sizes``: more runtime sizes the proof
    checks it at, kept as ``proof_sizes``, see ``mutate.run_mutant``)."""
    from ..api import generate
    spec = dict(spec)
    spec.pop("mutate_aim", None)
    sizes = tuple(dict(s) for s in spec.pop("check_sizes", ()))
    kern = generate(kind, spec.pop("schedule", None), spec.pop("schedule_params", None), **spec)
    kern.proof_sizes = sizes
    return kern


def mutation_campaign(kind: str = "gemm", *, seed: int = 0, budget: float | None = None,
                      per_class: int = 4, kernels: int | None = None, classes=CLASSES,
                      outdir: str | Path | None = None, log=None) -> Report:
    """The proof over the first ``kernels`` (default all) proof kernels of ``kind``, up to
    ``per_class`` sites per class and kernel, interleaved (class-major round robin) until
    ``budget`` seconds (the budget bounds mutant runs; building and the baselines come first)."""
    specs = proof_kernels(kind)
    if kernels is not None:
        if not 1 <= kernels <= len(specs):
            raise ConfigError(f"--kernels {kernels} is outside 1..{len(specs)} "
                              f"({len(specs)} {kind} proof kernels)")
        specs = specs[:kernels]
    report = Report()
    t0 = time.monotonic()
    queues: dict[str, list] = defaultdict(list)
    for n, spec in enumerate(specs):
        kern = build_proof_kernel(kind, spec)
        prog, chosen = plan(kern, per_class=per_class, seed=seed + n, classes=classes,
                            sites=report.sites, aim=proof_aim(spec))
        baseline(kern, prog, seed)
        report.kernels.append(kern.name)
        if log:
            log(f"{kern.name}: {len(prog.instrs)} instructions, {len(chosen)} mutants planned")
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
        write_report(report, outdir)
    return report


def write_report(report: Report, outdir: str | Path) -> None:
    d = Path(outdir)
    d.mkdir(parents=True, exist_ok=True)
    rows = [{"class": r.mutant.cls, "kernel": r.kernel, "site": r.mutant.description,
             "expected": r.mutant.expected, "outcome": r.outcome, "killed": r.killed,
             "precise": r.precise, "message": r.message} for r in report.results]
    (d / "mutations.json").write_text(json.dumps(rows, indent=1) + "\n")
    (d / "mutations.txt").write_text(report.text() + "\n")
