"""Generated GEMM kernels, assembled by LLVM and run on the project's emulator, against NumPy.

Every case runs with two emulator seeds (different wave interleavings and memory landing times)
and two input seeds (the odd one has beta = 0, so the C-skip path runs too). The default matrix
covers both arches, f16/bf16, all four layouts, the three recipes, prefetch 1..3, edge sizes
(1, 17, 100, K not a multiple of DepthU), the output dtypes, bias and activations, and the
LDS-DMA (direct_to_lds) path, two staged K-tiles (staging=2) and the fragment register sets
(frag_buffers: ck_v4's two, one, three).
``--runslow`` adds the full cross product (arch x dtype x layout x recipe x size, 384 runs).
"""
import functools
import itertools

import pytest

from asmgen.api import gemm, load
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

SMALL = dict(tile=(32, 32, 16), waves=(1, 1))
MED = dict(tile=(64, 64, 32), waves=(2, 2))
G950 = dict(arch="gfx950", tile=(32, 32, 32), waves=(1, 1))

CASES = [
    # (m, n, k), options
    ((1, 1, 1), dict(SMALL)),
    ((17, 17, 17), dict(SMALL)),
    ((64, 64, 32), dict(MED)),
    ((100, 64, 100), dict(MED, layout="NT")),
    ((64, 100, 72), dict(MED, layout="TN", schedule="pgr2")),
    ((17, 33, 40), dict(SMALL, layout="TT", schedule="pgr2")),
    ((64, 64, 64), dict(MED, dtype="bf16", layout="TT", schedule="pgr2")),
    ((40, 40, 70), dict(SMALL, dtype="bf16", schedule="ck_v4")),
    ((33, 20, 80), dict(SMALL, prefetch=3)),
    ((32, 32, 48), dict(SMALL, mfma=(16, 16, 16), out_dtype="f32")),
    ((30, 50, 24), dict(SMALL, out_dtype="bf16", bias=True, activation="silu")),
    ((30, 50, 24), dict(SMALL, layout="NT", bias=True, activation="gelu")),
    ((64, 64, 48), dict(G950)),
    ((40, 40, 72), dict(G950, dtype="bf16", layout="TT", schedule="pgr2")),
    ((33, 17, 40), dict(G950, mfma=(16, 16, 32), layout="TN", out_dtype="f32")),
    # global -> LDS straight through M0 (LDS-DMA) for the K-contiguous operands
    ((64, 64, 64), dict(MED, direct_to_lds=True, layout="NT", schedule="pgr2")),
    ((17, 33, 40), dict(SMALL, direct_to_lds=True, layout="TT", prefetch=2)),
    ((40, 40, 72), dict(G950, direct_to_lds=True, layout="NT")),          # dwordx4 ... lds
    # two K-tiles in flight in VGPRs (body unrolled twice; odd tile counts add a zero tile)
    ((40, 33, 72), dict(SMALL, staging=2)),
    ((64, 100, 100), dict(MED, staging=2, layout="TN", schedule="pgr2")),
    ((40, 40, 72), dict(G950, staging=2, direct_to_lds=True, layout="TT", dtype="bf16")),
    # ck_v4 over 4 K-steps per tile: two fragment register sets in turn (frag_buffers=2), the
    # reads of step s + 1 in flight across the MFMAs of step s; one set (frag_buffers=1) too
    ((64, 100, 72), dict(MED, layout="NT", schedule="ck_v4")),
    ((100, 64, 100), dict(MED, arch="gfx950", tile=(64, 64, 64), layout="TN", dtype="bf16",
                          schedule="ck_v4")),
    ((64, 64, 96), dict(MED, layout="NT", schedule="ck_v4", direct_to_lds=True, prefetch=2)),
    ((40, 64, 100), dict(MED, layout="TT", schedule="ck_v4", staging=2)),
    ((64, 64, 64), dict(MED, frag_buffers=1)),
    ((64, 64, 64), dict(MED, layout="NT", schedule="pgr2", frag_buffers=3)),
]
EMU_SEEDS = (0, 1)


@functools.cache
def _kernel(mnk, opts):
    return gemm(*mnk, **dict(opts))


def _run(mnk, opts, emu_seed, input_seed):
    kern = _kernel(mnk, tuple(sorted(opts.items())))
    inp = gemm_random_inputs(kern.config, input_seed)
    out = load(kern, seed=emu_seed)(**inp)
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                      inp.get("bias"))
    assert ok, f"{kern.name} emu seed {emu_seed} input seed {input_seed}: {msg}"
    return kern, out


def _id(case):
    (m, n, k), o = case
    extra = "-".join(f"{a}={b}" for a, b in sorted(o.items()) if a not in ("tile", "waves"))
    return f"{m}x{n}x{k}-t{'x'.join(map(str, o['tile']))}-{extra}"


@pytest.mark.parametrize("emu_seed", EMU_SEEDS)
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_gemm_matches_numpy(case, emu_seed):
    mnk, opts = case
    _run(mnk, opts, emu_seed, input_seed=emu_seed)


def test_outside_of_c_untouched():
    """Elements of the padded C buffer beyond N (ldc > N) keep their values: stores are masked."""
    import numpy as np
    kern = gemm(20, 20, 20, ldc=40, **SMALL)
    inp = gemm_random_inputs(kern.config, 0)
    before = inp["C"].copy()
    out = load(kern)(**inp)
    np.testing.assert_array_equal(out[:, 20:], before[:, 20:])
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], before, inp["alpha"], inp["beta"])
    assert ok, msg


def test_runtime_sizes_smaller_than_generated():
    """M, N, K are kernel arguments: a kernel generated for 64^3 runs 40x24x24 correctly when
    given those sizes (same leading dimensions; K stays a multiple of vec_a = 8)."""
    kern = gemm(64, 64, 64, **MED)
    cfg = kern.config
    import dataclasses
    small = dataclasses.replace(cfg, m=40, n=24, k=24, lda=64, ldb=64, ldc=64)
    inp = gemm_random_inputs(small, 3)
    out = load(kern)(**inp, M=40, N=24, K=24)
    ok, msg = compare(small, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg


WIDE = [((m, n, k), dict(SMALL if arch == "gfx942" else G950, dtype=dt, layout=lay, schedule=sch,
                         arch=arch))
        for arch, dt, lay, sch, (m, n, k) in itertools.product(
            ("gfx942", "gfx950"), ("f16", "bf16"), ("NN", "NT", "TN", "TT"), ("pgr1", "pgr2", "ck_v4"),
            ((1, 1, 1), (17, 17, 17), (64, 64, 64), (100, 100, 100)))]


@pytest.mark.slow
@pytest.mark.parametrize("emu_seed", EMU_SEEDS)
@pytest.mark.parametrize("case", WIDE, ids=[_id(c) for c in WIDE])
def test_gemm_wide(case, emu_seed):
    mnk, opts = case
    _run(mnk, opts, emu_seed, input_seed=emu_seed)


@pytest.mark.parametrize("seed, opts", [
    (1, dict(SMALL, layout="NN")),
    (2, dict(SMALL, layout="TT", direct_to_lds=True, prefetch=2)),
    (3, dict(MED, layout="TN", bias=True, activation="gelu")),
])
def test_shuffled_schedules(seed, opts):
    """Any order the DAG allows is legal (design.md, schedule fuzzing): a seeded random
    schedule of every block still computes the right result on the emulator."""
    opts = dict(opts)
    kern = gemm(40, 33, 40, schedule="shuffle", schedule_params=dict(seed=seed), **opts)
    inp = gemm_random_inputs(kern.config, seed)
    out = load(kern, seed=seed)(**inp)
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                      inp.get("bias"))
    assert ok, msg
