"""Plain fp8/bf8 GEMMs on gfx950 through the unscaled ``v_mfma_f32_*_f8f6f4`` (formats in
cbsz/blgp): the default MFMA when DepthU is a multiple of its K (twice the MACs per pass of the
fp8/bf8 forms; modeled 8192^3 fp8 1.58x faster, issue 15 notes). Every kernel assembles and runs
on the emulator against the reference, two seeds, K off the tile, through the default loop and
the split ones (pingpong's prologue reads the 32-byte operands in two pieces)."""
import functools

import pytest

from asmgen.api import gemm, load
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

CASES = [
    # dtype, (m, n, k), geometry
    ("fp8_e4m3", (40, 17, 200), (("tile", (32, 32, 128)), ("waves", (1, 1)), ("schedule", "pgr1"))),
    ("bf8_e5m2", (65, 40, 100), (("tile", (64, 64, 64)), ("waves", (2, 2)), ("schedule", "pgr2"))),
    ("fp8_e4m3", (200, 130, 192), (("tile", (256, 256, 64)), ("waves", (2, 4)),
                                   ("schedule", "pingpong"), ("direct_to_lds", True),
                                   ("lds_swizzle", True))),
    ("bf8_e5m2", (200, 130, 256), (("tile", (128, 128, 128)), ("waves", (2, 2)),
                                   ("schedule", "interleave"))),
]


@functools.cache
def _kernel(dtype, mnk, geo):
    return gemm(*mnk, dtype=dtype, arch="gfx950", layout="NT", **dict(geo))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{'x'.join(map(str, c[1]))}-{c[2][2][1]}")
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_fp8_through_f8f6f4_on_the_emulator(case, seeds):
    kern = _kernel(*case)
    assert kern.hsaco and kern.config.mfma[2] in (64, 128)
    fmt = "" if case[0] == "fp8_e4m3" else " cbsz:1 blgp:1"
    assert any(ln.strip().startswith("v_mfma_f32_") and "_f8f6f4 " in ln and ln.endswith(fmt)
               for ln in kern.asm.splitlines())
    inp = gemm_random_inputs(kern.config, seeds[1])
    got = load(kern, seed=seeds[0])(**inp)
    ok, msg = compare(kern.config, got, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                      None, inp["scale_a"], inp["scale_b"])
    assert ok, f"{kern.name} seeds {seeds}: {msg}"


def test_depthu_below_the_f8f6f4_k_keeps_the_fp8_form():
    cfg = gemm(64, 64, 64, dtype="fp8_e4m3", arch="gfx950", layout="NT", tile=(32, 32, 32),
               waves=(1, 1), assemble=False).config
    assert cfg.mfma == (32, 32, 16)
