"""Mixed fp8 x bf8 GEMMs (``dtype_b``, issue 15): A in one 8-bit float format, B in the other,
through v_mfma_f32_*_fp8_bf8 / _bf8_fp8 of the arch (FNUZ on gfx942, OCP on gfx950). Every kernel
is assembled by LLVM and run on the emulator against the ml_dtypes reference (which decodes A and
B with their own types), two emulator seeds x two input seeds; reading B with A's type must fail
the comparison, so the test would see a kernel that ignored dtype_b."""
import functools

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.contract import gemm_args
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

SMALL = (("tile", (32, 32, 32)), ("waves", (1, 1)))
CASES = [
    # arch, A, B, out, recipe, (m, n, k), mfma
    ("gfx942", "fp8_e4m3fnuz", "bf8_e5m2fnuz", "f32", "pgr1", (17, 33, 40), (32, 32, 16)),
    ("gfx942", "bf8_e5m2fnuz", "fp8_e4m3fnuz", "bf16", "pgr2", (33, 17, 72), (16, 16, 32)),
    ("gfx950", "fp8_e4m3", "bf8_e5m2", "f16", "pgr2", (17, 33, 40), (32, 32, 16)),
    ("gfx950", "bf8_e5m2", "fp8_e4m3", "fp8_e4m3", "pgr1", (40, 1, 96), (16, 16, 32)),
]


@functools.cache
def _kernel(arch, a, b, out, recipe, mnk, mfma):
    return gemm(*mnk, dtype=a, dtype_b=b, arch=arch, layout="NT", out_dtype=out, schedule=recipe,
                mfma=mfma, **dict(SMALL))


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:5])))
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_mixed_fp8_gemm_on_the_emulator(case, seeds):
    kern = _kernel(*case)
    arch, a, b = case[:3]
    assert kern.hsaco, "LLVM produced no code object"
    mn = f"_{a.split('_')[0]}_{b.split('_')[0]}"          # v_mfma_f32_..._fp8_bf8 / _bf8_fp8
    assert f"{'x'.join(map(str, case[6]))}{mn}" in kern.asm
    cfg = kern.config
    inp = gemm_random_inputs(cfg, seeds[1])
    assert inp["B"].dtype != inp["A"].dtype
    got = load(kern, seed=seeds[0])(**inp)
    args = (inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], None)
    scales = (inp["scale_a"], inp["scale_b"])
    ok, msg = compare(cfg, got, *args, *scales)
    assert ok, f"{kern.name} seeds {seeds}: {msg}"
    # the same bytes of B read as A's format give a different product
    wrong = np.asarray(inp["B"]).view(np.uint8).view(inp["A"].dtype)
    assert not compare(cfg, got, inp["A"], wrong, *args[2:], *scales)[0]


def test_contract_names_b_type_and_refusals():
    kern = _kernel(*CASES[0])
    args = {a.name: a for a in gemm_args(kern.config)}
    assert args["A"].dtype == "fp8_e4m3fnuz" and args["B"].dtype == "bf8_e5m2fnuz"
    assert "x" in kern.name.split("_NT_")[1].split("_f32")[0]     # the pair is in the name
    same = gemm(64, 64, 64, dtype="fp8_e4m3", dtype_b="fp8_e4m3", arch="gfx950", layout="NT",
                assemble=False)
    assert same.config.dtype_b is None                 # B = A is the plain kernel
    with pytest.raises(ConfigError, match="gfx942"):   # OCP B on the FNUZ arch
        gemm(64, 64, 64, dtype="fp8_e4m3fnuz", dtype_b="bf8_e5m2", arch="gfx942", layout="NT",
             assemble=False)
    with pytest.raises(ConfigError, match="no MFMA"):  # no i8 x fp8 MFMA
        gemm(64, 64, 64, dtype="i8", dtype_b="fp8_e4m3fnuz", arch="gfx942", layout="NT",
             assemble=False)
    with pytest.raises(ConfigError, match="dtype_b"):
        gemm(64, 64, 64, dtype="f16", dtype_b="bf16", arch="gfx942", assemble=False)
