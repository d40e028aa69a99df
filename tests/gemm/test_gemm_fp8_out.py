"""fp8/bf8 GEMM outputs (issue 15, chained layers): the epilogue saturates to the format's largest
finite value (NaN kept) before the non-saturating v_cvt_pk_{fp8,bf8}_f32, stores bytes, and
reads a fp8 C for beta. Every kernel is assembled by LLVM and run on the emulator against the
saturating ml_dtypes reference, both arches, two emulator seeds x two input seeds (the odd one has
beta = 0); a large alpha drives most outputs past the format's range."""
import functools

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.dtypes import dtype_of
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.reference import (compare, gemm_random_inputs, gemm_reference,
                                        gemm_reference64)

SMALL = (("tile", (32, 32, 32)), ("waves", (1, 1)))
CASES = [
    # arch, in dtype, out dtype, recipe, (m, n, k), extra config
    ("gfx942", "fp8_e4m3fnuz", "fp8_e4m3fnuz", "pgr1", (17, 33, 40), ()),
    ("gfx942", "bf8_e5m2fnuz", "bf8_e5m2fnuz", "pgr2", (33, 17, 72), ()),
    ("gfx942", "i8", "fp8_e4m3fnuz", "pgr1", (1, 40, 37), ()),
    ("gfx942", "f16", "fp8_e4m3fnuz", "pgr2", (40, 17, 33), (("layout", "NN"),)),
    ("gfx950", "fp8_e4m3", "fp8_e4m3", "pgr2", (17, 33, 40), ()),
    ("gfx950", "bf8_e5m2", "bf8_e5m2", "pgr1", (33, 1, 72), ()),
    ("gfx950", "fp8_e4m3", "bf8_e5m2", "pgr1", (40, 40, 96), (("bias", True), ("activation", "silu"))),
    ("gfx950", "bf16", "fp8_e4m3", "pgr2", (17, 40, 33), (("layout", "NN"),)),
]


@functools.cache
def _kernel(arch, dtype, out, recipe, mnk, extra):
    kw = dict(SMALL + (("layout", "NT"),) + extra)
    return gemm(*mnk, dtype=dtype, arch=arch, out_dtype=out, schedule=recipe, **kw)


def _check(kern, inp, emu_seed):
    got = load(kern, seed=emu_seed)(**inp)
    args = (inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], inp.get("bias"))
    scales = (inp["scale_a"], inp["scale_b"]) if kern.config.scaled else (1.0, 1.0)
    ok, msg = compare(kern.config, got, *args, *scales)
    assert ok, f"{kern.name} emu seed {emu_seed}: {msg}"
    assert np.asarray(got).dtype == dtype_of(kern.config.out_dtype).np_type
    return got, args, scales


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:4])))
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_fp8_output_on_the_emulator(case, seeds):
    kern = _kernel(*case)
    assert kern.hsaco, "LLVM produced no code object"
    _check(kern, gemm_random_inputs(kern.config, seeds[1]), seeds[0])


@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[4], CASES[5]],
                         ids=lambda c: "-".join(map(str, c[:4])))
@pytest.mark.parametrize("seed", [0, 1])
def test_overflow_saturates_and_nan_propagates(case, seed):
    """alpha large enough that most outputs overflow: they must be +-max, not NaN/Inf (what the
    bare convert gives); a NaN in A makes its row NaN."""
    kern = _kernel(*case)
    cfg = kern.config
    big = dtype_of(cfg.out_dtype).max_finite
    inp = gemm_random_inputs(cfg, seed, alpha=big / 2, beta=0.0)
    a = np.asarray(inp["A"]).copy()
    a[0, 0] = np.nan
    inp["A"] = a.astype(inp["A"].dtype)
    got, args, scales = _check(kern, inp, seed)
    g = np.asarray(got)[:cfg.m, :cfg.n].astype(np.float64)
    assert np.isnan(g[0]).all(), "a NaN input must reach its output row"
    rest = g[1:]
    sat = np.abs(rest) == big
    assert sat.mean() > 0.3, f"only {sat.mean():.2f} of the outputs saturated"
    assert np.isfinite(rest).all()
    ref = gemm_reference(cfg, *args, *scales)
    assert np.array_equal(np.isnan(np.asarray(ref, np.float64)), np.isnan(g))
    # the saturated outputs are ones whose exact value lies past the range (where the bare
    # convert gives NaN / Inf)
    exact = gemm_reference64(cfg, *args, *scales)[1:]
    assert (np.abs(exact[sat]) > 0.9 * big).all() and (np.abs(exact[sat]) > big).mean() > 0.5


def test_fp8_output_asm_and_refusals():
    kern = _kernel(*CASES[0])
    asm = kern.asm
    for ins in ("v_med3_f32", "v_cvt_pk_fp8_f32", "buffer_store_byte", "buffer_load_ubyte",
                "v_cvt_f32_fp8"):
        assert ins in asm, ins
    assert "v_cvt_pk_bf8_f32" in _kernel(*CASES[1]).asm
    with pytest.raises(ConfigError, match="gfx942"):       # the OCP encoding is gfx950's
        gemm(64, 64, 64, dtype="fp8_e4m3fnuz", arch="gfx942", layout="NT", out_dtype="fp8_e4m3",
             assemble=False)
    with pytest.raises(ConfigError, match="gfx950"):
        gemm(64, 64, 64, dtype="fp8_e4m3", arch="gfx950", layout="NT", out_dtype="bf8_e5m2fnuz",
             assemble=False)


def test_fp8_output_costs_the_registers_of_a_bf16_output():
    """The convert reads its destination: written in place, its register lives one element long
    (a fresh destination would be live from the kernel's start: 184 VGPRs, one wave per SIMD, and
    the 8192^3 default would fall back to a smaller tile)."""
    kw = dict(dtype="fp8_e4m3fnuz", arch="gfx942", layout="NT", tile=(256, 256, 32), waves=(2, 4),
              schedule="pingpong", direct_to_lds=True, lds_swizzle=True, prefetch=1,
              assemble=False)
    f8 = gemm(8192, 8192, 8192, out_dtype="fp8_e4m3fnuz", **kw).resources
    bf = gemm(8192, 8192, 8192, out_dtype="bf16", **kw).resources
    assert f8["waves_per_simd"] == 2 and f8["vgpr"] <= bf["vgpr"] + 4, (f8, bf)
