"""MX K tails (gfx950, issue 15): K a multiple of the 32-element scale block but not of DepthU x
staging. The data loads past K read 0 and so do the scale loads (kinds.gemm.mxscale), so the tail
adds exactly 0: every kernel is assembled by LLVM and run on the emulator against the NumPy
reference, two emulator x input seeds, M/N 1, 17, 255, 257; a NaN scale (0xFF) in the first
K-block of every odd row must poison exactly the odd rows (the even rows' tail lanes would read
it as their K-blocks past K without the scale mask). K % 32 != 0 is a ConfigError (OCP MX v1.0
blocks are whole 32-element blocks). Wider matrix behind --runslow."""
import functools

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.contract import size_multiples
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

ONE = (("tile", (32, 32, 128)), ("waves", (1, 1)), ("mfma", (16, 16, 128)))
ONE32 = (("tile", (32, 32, 128)), ("waves", (1, 1)), ("mfma", (32, 32, 64)))
FOUR = (("tile", (64, 64, 128)), ("waves", (2, 2)), ("mfma", (16, 16, 128)))
DMA = (("direct_to_lds", True), ("lds_swizzle", True))

CASES = [
    # dtype, recipe, (m, n, k), geometry
    ("mxfp8", "pgr1", (17, 40, 160), ONE),
    ("mxfp8", "pgr1", (1, 257, 32), ONE32),
    ("mxfp8", "pgr2", (255, 17, 224), FOUR),
    ("mxfp8", "pgr1", (40, 33, 288), FOUR + (("staging", 2),)),
    ("mxfp8", "ck_v4", (65, 70, 96), FOUR + (("frag_buffers", 2),) + DMA),
    ("mxfp4", "pgr1", (257, 1, 96), ONE),
    ("mxfp4", "pgr1", (17, 255, 160), ONE32 + DMA),
    ("mxfp4", "pgr1", (33, 40, 320), (("tile", (32, 32, 256)), ("waves", (1, 1)),
                                      ("mfma", (32, 32, 64)), ("staging", 2))),
]
WIDE = [(dt, "pgr1", (m, n, k), geo)
        for dt in ("mxfp8", "mxfp4") for m, n in ((1, 255), (257, 17))
        for k in (32, 64, 192) for geo in (ONE, FOUR + DMA)]


@functools.cache
def _kernel(dtype, recipe, mnk, geo):
    return gemm(*mnk, dtype=dtype, arch="gfx950", layout="NT", schedule=recipe, **dict(geo))


def _compare(cfg, got, inp, sa, sb=None):
    return compare(cfg, got, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                   inp.get("bias"), sa, inp["scale_b"] if sb is None else sb)


def _check(case, seeds):
    kern = _kernel(*case)
    cfg = kern.config
    assert kern.hsaco, "LLVM produced no code object"
    assert cfg.k_tail and size_multiples(cfg)["K"] == 32
    inp = gemm_random_inputs(cfg, seeds[1])
    got = load(kern, seed=seeds[0])(**inp)
    ok, msg = _compare(cfg, got, inp, inp["scale_a"])
    assert ok, f"{kern.name} seeds {seeds}: {msg}"
    # the block scales reach the result: unit B scales disagree; so does A's K reversed
    assert not _compare(cfg, got, inp, inp["scale_a"], np.full_like(inp["scale_b"], 127))[0]
    if cfg.k > 32:
        assert not _compare(cfg, got, inp, inp["scale_a"][:, ::-1])[0]


def _id(c):
    return f"{c[0]}-{c[1]}-{'x'.join(map(str, c[2]))}-{'-'.join(k for k, _ in c[3][3:]) or 'plain'}"


@pytest.mark.parametrize("case", CASES, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_mx_k_tail_on_the_emulator(case, seeds):
    _check(case, seeds)


@pytest.mark.slow
@pytest.mark.parametrize("case", WIDE, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 2), (1, 3)])
def test_mx_k_tail_wide(case, seeds):
    _check(case, seeds)


@pytest.mark.parametrize("dtype", ["mxfp8", "mxfp4"])
def test_a_nan_scale_past_k_does_not_reach_the_tail(dtype):
    """K = 160 in 128-deep tiles: the second tile's K-blocks 5..7 lie past K; in a row-major
    [M, 5] scale buffer they are the next row's blocks 0..2. A NaN in block 0 of every odd row
    must make the odd rows NaN and leave the even rows exact."""
    kern = _kernel(dtype, "pgr1", (34, 17, 160), ONE)
    inp = gemm_random_inputs(kern.config, 5)
    sa = inp["scale_a"].copy()
    sa[1::2, 0] = 0xFF
    inp["scale_a"] = sa
    got = np.asarray(load(kern, seed=0)(**inp))[:34, :17]
    assert np.isnan(got[1::2]).all() and not np.isnan(got[0::2]).any()
    ok, msg = _compare(kern.config, got, inp, sa)
    assert ok, msg


def test_mx_aligned_k_keeps_the_fast_loop():
    """K a multiple of DepthU x staging with k_multiple unset: no tail masks (the contract says
    K % span == 0), the same kernel as before the K tails; k_multiple=32 asks for the tail."""
    fast = _kernel("mxfp8", "pgr1", (40, 40, 256), ONE)
    assert not fast.config.k_tail and fast.config.k_multiple == 128
    tail = gemm(40, 40, 256, dtype="mxfp8", arch="gfx950", layout="NT", schedule="pgr1",
                k_multiple=32, assemble=False, **dict(ONE))
    assert tail.config.k_tail and tail.config.k_multiple == 32
    # the tail masks: per tile one compare per K-step and operand for the scales, and the data's
    assert tail.asm.count("v_cmp_gt_i32") > fast.asm.count("v_cmp_gt_i32")


@pytest.mark.parametrize("k", [16, 100, 250])
def test_mx_k_off_the_scale_block_is_a_config_error(k):
    with pytest.raises(ConfigError, match=f"K={k} must be a multiple of the 32"):
        gemm(64, 64, k, dtype="mxfp8", arch="gfx950", layout="NT", tile=(32, 32, 128),
             waves=(1, 1), mfma=(16, 16, 128), assemble=False)
