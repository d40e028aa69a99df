"""The mutation proof covers head dim 256's AccVGPR code (``kinds.attention.fuzz.D256_ATTENTION``,
the last attention proof kernels): in the one-wave kernel (Q and O^T in AGPRs) there are
sites on the rescale's v_accvgpr_read / v_accvgpr_write round trips, and the sampled ones are
killed (a skipped rescale is a mismatch past f16's tolerance); about 30 s of emulation, so
behind ``--runslow`` (``asmgen fuzz attention --mutate`` runs these kernels too)."""
from __future__ import annotations

import random

import pytest

from asmgen.fuzz.mutate import Program, all_sites, kernel_waves, run_mutant
from asmgen.fuzz.mutate_campaign import build_proof_kernel, proof_kernels
from asmgen.kinds.attention.fuzz import D256_ATTENTION


def test_d256_kernels_are_proof_kernels():
    specs = proof_kernels("attention")
    assert specs[-len(D256_ATTENTION):] == D256_ATTENTION
    assert {s.get("waves", 1) for s in D256_ATTENTION} == {1, 4}


@pytest.mark.slow
def test_agpr_round_trip_swaps_are_killed():
    """A swap on the rescale's round trip (the read after the multiply, or the write before it)
    leaves one O^T accumulator unscaled for every key block: a mismatch past f16's tolerance.
    (The MFMA <-> v_accvgpr_* hazards themselves are checked against llc in tests/isa; the
    scheduler keeps those pairs apart here, so they are no nop sites.)"""
    kern = build_proof_kernel("attention", D256_ATTENTION[0])
    assert kern.resources["agpr"] == 192
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    swaps = [m for m in all_sites(prog, kernel_waves(kern))["swap_dependent"]
             if "v_accvgpr" in m.description]
    reads = [m for m in swaps if "v_accvgpr_read" in m.description]
    writes = [m for m in swaps if "v_accvgpr_write" in m.description]
    assert reads and writes, [m.description for m in swaps[:4]]
    rng = random.Random(5)
    bad = []
    for m in (rng.choice(reads), rng.choice(writes)):
        r = run_mutant(kern, prog, m, seed=0)
        if not r.precise:
            bad.append((m.description, m.expected, r.outcome, r.message[:200]))
    assert not bad, bad
