"""The mutation proof covers the causal KV loops (``kinds.attention.kvloop``): sites inside the
diagonal loop's bodies (the triangle ``loop_kv_tri``, the per-element mask ``loop_kv_mask``
and, with several waves, the skip ``loop_kv_skip``) and inside the off-diagonal loop's
unmasked body are found in the final text and every sampled correctness mutant there is killed
with the predicted error. The causal proof kernels' lengths run every one of those bodies
(``kinds.attention.fuzz``), so the campaign covers them too; this test makes sure their sites
are not left out by sampling."""
from __future__ import annotations

import random

import pytest

from asmgen.fuzz.mutate import CORRECTNESS_CLASSES, Program, all_sites, kernel_waves, run_mutant
from asmgen.fuzz.mutate_campaign import build_proof_kernel, proof_kernels


def _block_range(prog: Program, label: str, end_label: str) -> range:
    """Instruction indices from ``label:`` up to ``end_label:``."""
    lo = prog.lines.index(f"{label}:")
    hi = prog.lines.index(f"{end_label}:")
    return range(sum(1 for a in prog.at if a < lo), sum(1 for a in prog.at if a < hi))


CAUSAL = [spec for spec in proof_kernels("attention") if spec.get("causal")]


@pytest.mark.parametrize("spec", CAUSAL[:1] + [s for s in CAUSAL[1:2]], ids=lambda s: str(s))
def test_mutants_in_every_body_are_killed(spec):
    kern = build_proof_kernel("attention", spec)
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    waves = kernel_waves(kern)
    bodies = {"full": _block_range(prog, "loop_kv", "loop_kv_full_end"),
              "tri": _block_range(prog, "loop_kv_tri", "loop_kv_mask"),
              "mask": _block_range(prog, "loop_kv_mask",
                                   "loop_kv_skip" if waves > 1 else "loop_kv_latch")}
    if waves > 1:
        bodies["skip"] = _block_range(prog, "loop_kv_skip", "loop_kv_latch")
    sites = all_sites(prog, waves)
    rng = random.Random(1)
    tried = []
    for name, where in bodies.items():
        assert len(where) > (20 if name == "skip" else 100), name
        classes = [c for c in CORRECTNESS_CLASSES if any(m.site in where for m in sites[c])]
        assert "delete_waitcnt" in classes and len(classes) >= (2 if name == "skip" else 3), \
            (name, classes)
        for cls in classes:
            inside = [m for m in sites[cls] if m.site in where]
            for m in rng.sample(inside, 1):
                tried.append((m, run_mutant(kern, prog, m, seed=0)))
    bad = [(m.description, m.expected, r.outcome) for m, r in tried if not r.precise]
    assert not bad, bad
    assert {m.cls for m, _ in tried} <= set(CORRECTNESS_CLASSES)
