"""mxfp8 (gfx950, issue 15) in the layouts other than NT: an MN-contiguous operand (A in T, B in N)
takes the 8-bit path's byte transpose in registers (kinds.gemm.layout, K-quad-first vectors), the
E8M0 scales stay ``scale_a`` [M, K/32] / ``scale_b`` [N, K/32] whatever the layout. Every kernel is
assembled by LLVM and run on the emulator against the NumPy reference, two emulator x input
seeds, M/N 1, 17, 255, 257 and K tails, the default and split loops; the scales reach the result.
mxfp4's layouts (a nibble transpose) are tests/gemm/test_gemm_mx4_layouts.py. Wider matrix behind --runslow."""
import functools

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

FOUR = (("tile", (64, 64, 128)), ("waves", (2, 2)), ("mfma", (16, 16, 128)))
FOUR32 = (("tile", (64, 64, 128)), ("waves", (2, 2)), ("mfma", (32, 32, 64)))
ONE = (("tile", (32, 32, 128)), ("waves", (1, 1)), ("mfma", (16, 16, 128)))

CASES = [
    # layout, recipe, (m, n, k), geometry
    ("NN", "pgr1", (65, 17, 160), FOUR),
    ("NN", "interleave", (1, 255, 256), FOUR32),
    ("TN", "pgr1", (257, 40, 96), FOUR),
    ("TN", "ck_v4", (17, 33, 256), FOUR32 + (("frag_buffers", 2),)),
    ("TT", "pgr2", (40, 257, 224), ONE),
    ("TT", "interleave", (255, 1, 256), FOUR32),
]
WIDE = [(lay, recipe, (m, n, k), geo)
        for lay in ("NN", "TN", "TT") for m, n in ((1, 257), (255, 17)) for k in (32, 288)
        for recipe, geo in (("pgr1", FOUR), ("interleave", FOUR + (("lds_swizzle", True),)))
        # TN's two byte-transposed operands in the interleave loop exceed the 256 VGPRs at
        # DepthU 128 (RegisterBudgetError; plain fp8 too)
        if (lay, recipe) != ("TN", "interleave")]


@functools.cache
def _kernel(layout, recipe, mnk, geo):
    return gemm(*mnk, dtype="mxfp8", arch="gfx950", layout=layout, schedule=recipe, **dict(geo))


def _compare(cfg, got, inp, sa, sb):
    return compare(cfg, got, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                   inp.get("bias"), sa, sb)


def _check(case, seeds):
    kern = _kernel(*case)
    cfg = kern.config
    assert kern.hsaco, "LLVM produced no code object"
    assert cfg.layout == case[0] and "v_mfma_scale_f32_" in kern.asm
    inp = gemm_random_inputs(cfg, seeds[1])
    got = load(kern, seed=seeds[0])(**inp)
    ok, msg = _compare(cfg, got, inp, inp["scale_a"], inp["scale_b"])
    assert ok, f"{kern.name} seeds {seeds}: {msg}"
    assert not _compare(cfg, got, inp, inp["scale_a"], np.full_like(inp["scale_b"], 127))[0]
    if cfg.k > 32:
        assert not _compare(cfg, got, inp, inp["scale_a"][:, ::-1], inp["scale_b"])[0]


def _id(c):
    return f"{c[0]}-{c[1]}-{'x'.join(map(str, c[2]))}-{'-'.join(k for k, _ in c[3][3:]) or 'plain'}"


@pytest.mark.parametrize("case", CASES, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_mxfp8_layouts_on_the_emulator(case, seeds):
    _check(case, seeds)


@pytest.mark.slow
@pytest.mark.parametrize("case", WIDE, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 2), (1, 3)])
def test_mxfp8_layouts_wide(case, seeds):
    _check(case, seeds)
