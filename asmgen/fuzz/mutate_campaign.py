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

# GEMM kernels the proof breaks: several recipes, layouts and arches, 4 or 8 waves (races)
# and at least 4 K-iterations (so a stale address or value from the previous trip is a wrong one).
GEMM_PROOF_KERNELS = (
    {"m": 64, "n": 64, "k": 128, "schedule": "pgr1"},
    {"m": 64, "n": 64, "k": 256, "schedule": "pgr2", "layout": "NT"},
    {"m": 48, "n": 40, "k": 256, "schedule": "ck_v4", "layout": "TN", "dtype": "bf16",
     "arch": "gfx950", "mfma": (16, 16, 32), "tile": (32, 32, 64)},
    {"m": 64, "n": 64, "k": 128, "schedule": "pgr1", "direct_to_lds": True},
    {"m": 64, "n": 64, "k": 128, "schedule": "fuzz", "schedule_params": {"seed": 11}},
    {"m": 64, "n": 64, "k": 128, "schedule": "fuzz", "layout": "TT",
     "schedule_params": {"seed": 12}},
    # the split K loops: 8-wave ping-pong (barriers between phases, a conditional barrier per
    # wave group) over swizzled LDS-DMA tiles, and the 4-wave interleave without a K mask
    {"m": 64, "n": 128, "k": 160, "schedule": "pingpong", "layout": "NT", "waves": (2, 4),
     "tile": (64, 128, 32), "direct_to_lds": True, "lds_swizzle": True},
    {"m": 64, "n": 64, "k": 128, "schedule": "interleave", "layout": "NT", "lds_swizzle": True,
     "k_multiple": 32, "tile": (64, 64, 32)},
)
PROOF_KERNELS = GEMM_PROOF_KERNELS        # the name the GEMM proof always had

# Attention kernels: both arches (ds_bpermute on gfx942, v_permlane32_swap on gfx950), both
# MFMA K on gfx950, causal and ragged key counts (so a stale mask or a stale row maximum is a
# wrong one: the last key block is partial, and causal rows see different key counts), GQA,
# prefetch 0 and 1, and every attention recipe (critical path, interleaved, fuzzed order).
# Each walks at least 4 key blocks. The config keys are ``AttentionConfig`` fields; ``schedule``
# and ``schedule_params`` name the recipe.
SINGLE_WAVE_ATTENTION = (
    {"seqlen_q": 64, "seqlen_k": 150, "causal": True, "schedule": "attn_basic"},
    {"seqlen_q": 40, "seqlen_k": 130, "heads": 2, "kv_heads": 1, "dtype": "bf16",
     "arch": "gfx950", "schedule": "attn_interleave"},
    {"seqlen_q": 33, "seqlen_k": 140, "head_dim": 128, "prefetch": 0, "causal": True,
     "schedule": "fuzz", "schedule_params": {"seed": 11}},
    {"seqlen_q": 64, "seqlen_k": 129, "arch": "gfx950", "mfma_k": 8, "schedule": "fuzz",
     "schedule_params": {"seed": 12}},
)
# Workgroups of several waves sharing K/V through LDS (s_barrier between LDS phases: the
# delete_barrier and publication sites), with 2 and 3 LDS buffers; used when the attention
# config has those fields (``waves``, ``kv_buffers``). The first one leads the list, so
# ``--kernels 1`` proves a kernel with barriers.
MULTI_WAVE_ATTENTION = (
    {"seqlen_q": 64, "seqlen_k": 160, "causal": True, "waves": 2, "schedule": "attn_basic"},
    {"seqlen_q": 100, "seqlen_k": 130, "waves": 4, "kv_buffers": 3, "arch": "gfx950",
     "dtype": "bf16", "schedule": "fuzz", "schedule_params": {"seed": 5}},
)


def attention_proof_kernels() -> tuple[dict, ...]:
    """The attention proof kernels the current ``AttentionConfig`` can express."""
    from ..kinds.attention.config import AttentionConfig
    fields = set(AttentionConfig.__dataclass_fields__)
    multi = tuple(spec for spec in MULTI_WAVE_ATTENTION
                  if {"waves", "kv_buffers"} & set(spec) <= fields)
    if not multi:
        return SINGLE_WAVE_ATTENTION
    return multi[:1] + SINGLE_WAVE_ATTENTION[:2] + multi[1:] + SINGLE_WAVE_ATTENTION[2:]


ATTENTION_PROOF_KERNELS = attention_proof_kernels()

PROOF = {"gemm": GEMM_PROOF_KERNELS, "attention": ATTENTION_PROOF_KERNELS}


def build_proof_kernel(kind: str, spec: dict):
    """Compile one proof kernel of ``kind`` from its spec (a dict of the tables above)."""
    import schedules.fuzz  # noqa: F401  (registers "fuzz")
    if kind == "gemm":
        from ..api import gemm
        return gemm(**spec)
    if kind == "attention":
        from ..kinds.attention.api import compile_attention, get_attention_recipe
        from ..kinds.attention.config import AttentionConfig
        cfg_kw = {k: v for k, v in spec.items() if k not in ("schedule", "schedule_params")}
        recipe = get_attention_recipe(spec.get("schedule", "attn_basic"),
                                      **dict(spec.get("schedule_params") or {}))
        return compile_attention(AttentionConfig(**cfg_kw), recipe)
    raise ConfigError(f"mutation proof kind {kind!r} is not one of {tuple(PROOF)}")


def mutation_campaign(kind: str = "gemm", *, seed: int = 0, budget: float | None = None,
                      per_class: int = 4, kernels: int | None = None, classes=CLASSES,
                      outdir: str | Path | None = None, log=None) -> Report:
    """The proof over the first ``kernels`` (default all) proof kernels of ``kind``, up to
    ``per_class`` sites per class and kernel, interleaved (class-major round robin) until
    ``budget`` seconds (the budget bounds mutant runs; building and the baselines come first)."""
    if kind not in PROOF:
        raise ConfigError(f"mutation proof kind {kind!r} is not one of {tuple(PROOF)}")
    specs = PROOF[kind]
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
                            sites=report.sites)
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
