"""8-bit GEMMs (issue 15, first slice): fp8/bf8 FNUZ on gfx942, OCP on gfx950, and i8 on both,
K-contiguous operands (layout NT here: A MxK, B NxK, what BLAS calls TN; the other layouts:
test_gemm_lowp_layouts), per-tensor
scale_a/scale_b, f32/f16/bf16 output (and the raw i32 accumulator for i8, bit-exact). Every kernel is assembled by LLVM and run on the emulator against the ml_dtypes
reference, two emulator seeds x two input seeds (the odd one has beta = 0). ``--runslow`` adds the
cross product arch x dtype x out dtype x recipe x sizes."""
import functools
import itertools

import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.contract import gemm_args
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

FP8 = {"gfx942": ("fp8_e4m3fnuz", "bf8_e5m2fnuz"), "gfx950": ("fp8_e4m3", "bf8_e5m2")}
SMALL = (("tile", (32, 32, 32)), ("waves", (1, 1)))
MED = (("tile", (64, 64, 64)), ("waves", (2, 2)))

CASES = [
    # arch, dtype, out, recipe, (m, n, k), geometry
    ("gfx942", "fp8_e4m3fnuz", "f32", "pgr1", (17, 255, 40), SMALL),
    ("gfx942", "bf8_e5m2fnuz", "bf16", "pgr2", (255, 17, 100), SMALL),
    ("gfx942", "fp8_e4m3fnuz", "f16", "pgr2", (1, 1, 1), SMALL),
    ("gfx942", "fp8_e4m3fnuz", "bf16", "pgr1", (100, 64, 100), MED),
    ("gfx950", "fp8_e4m3", "f32", "pgr2", (17, 255, 40), SMALL),
    ("gfx950", "bf8_e5m2", "bf16", "pgr1", (1, 17, 37), SMALL),
    ("gfx950", "fp8_e4m3", "f16", "pgr2", (100, 64, 100), MED),
    ("gfx942", "i8", "i32", "pgr1", (17, 33, 40), SMALL),
    ("gfx942", "i8", "bf16", "pgr2", (255, 17, 100), SMALL),
    ("gfx950", "i8", "i32", "pgr2", (1, 255, 37), SMALL),
    ("gfx950", "i8", "f32", "pgr1", (17, 17, 72), SMALL),
    # the template's other paths with 1-byte elements
    ("gfx950", "fp8_e4m3", "f32", "pgr1", (40, 40, 96), SMALL + (("direct_to_lds", True),)),
    ("gfx942", "fp8_e4m3fnuz", "f32", "pgr1", (40, 40, 96), SMALL + (("lds_swizzle", True),)),
    ("gfx942", "bf8_e5m2fnuz", "f32", "pgr2", (40, 40, 96), SMALL + (("staging", 2),)),
    ("gfx942", "fp8_e4m3fnuz", "bf16", "pgr1", (40, 40, 96),
     MED + (("arrangement", "interleave"),)),
]


@functools.cache
def _kernel(arch, dtype, out, recipe, mnk, geo):
    return gemm(*mnk, dtype=dtype, arch=arch, layout="NT", out_dtype=out, schedule=recipe,
                **dict(geo))


def _run(arch, dtype, out, recipe, mnk, geo, emu_seed, input_seed):
    kern = _kernel(arch, dtype, out, recipe, mnk, geo)
    assert kern.hsaco, "LLVM produced no code object"
    inp = gemm_random_inputs(kern.config, input_seed)
    got = load(kern, seed=emu_seed)(**inp)
    args = (inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], None)
    assert kern.config.scaled == ("scale_a" in inp) == (out != "i32")
    scales = (inp["scale_a"], inp["scale_b"]) if kern.config.scaled else (1.0, 1.0)
    ok, msg = compare(kern.config, got, *args, *scales)
    assert ok, f"{kern.name} emu seed {emu_seed} input seed {input_seed}: {msg}"
    if kern.config.scaled:   # the scales reach the result: without scale_b the reference disagrees
        assert not compare(kern.config, got, *args, scales[0], 1.0)[0]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}-"
                         f"{'x'.join(map(str, c[4]))}")
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_fp8_gemm_on_the_emulator(case, seeds):
    _run(*case, *seeds)


SLOW = [(arch, dt, out, recipe, mnk, SMALL)
        for arch, dts in FP8.items() for dt in dts
        for out, recipe, mnk in itertools.product(
            ("f32", "f16", "bf16"), ("pgr1", "pgr2"),
            ((1, 1, 1), (17, 17, 17), (255, 255, 257), (33, 1, 72)))] + \
    [(arch, "i8", out, recipe, mnk, SMALL) for arch in FP8
     for out, recipe, mnk in itertools.product(
         ("i32", "f32", "bf16"), ("pgr1", "pgr2"), ((1, 1, 1), (17, 255, 17), (255, 33, 257)))]


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}-"
                         f"{'x'.join(map(str, c[4]))}")
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_fp8_gemm_matrix(case, seeds):
    _run(*case, *seeds)


@pytest.mark.parametrize("arch,dtype", [("gfx950", "fp8_e4m3fnuz"), ("gfx950", "bf8_e5m2fnuz"),
                                        ("gfx942", "fp8_e4m3"), ("gfx942", "bf8_e5m2")])
def test_a_dtype_the_arch_lacks_names_the_arch_and_its_dtypes(arch, dtype):
    with pytest.raises(ConfigError) as e:
        gemm(64, 64, 64, dtype=dtype, arch=arch, layout="NT", assemble=False)
    msg = str(e.value)
    assert arch in msg and dtype in msg
    for have in FP8[arch] + ("f16", "bf16"):
        assert have in msg


def test_8bit_kernels_pick_the_dtype_mfma_and_byte_widths():
    kern = _kernel("gfx942", "fp8_e4m3fnuz", "f32", "pgr1", (64, 64, 64), SMALL)
    asm = kern.asm
    assert "v_mfma_f32_32x32x16_fp8_fp8" in asm and "_f16" not in asm.split("v_mfma")[1][:30]
    assert "buffer_load_dwordx4" in asm                    # 16 fp8 along K per load
    assert "ds_read_b64" in asm                            # 8 fp8 per lane per MFMA operand
    names = [a.name for a in gemm_args(kern.config)]
    assert names[-4:] == ["alpha", "beta", "scale_a", "scale_b"]
    f16 = _kernel("gfx942", "f16", "f16", "pgr1", (64, 64, 64), (("tile", (32, 32, 16)),
                                                                ("waves", (1, 1))))
    assert "scale_a" not in [a.name for a in gemm_args(f16.config)]


def test_i32_output_needs_i8_and_no_epilogue_math():
    with pytest.raises(ConfigError, match="i32"):
        gemm(64, 64, 64, dtype="f16", out_dtype="i32", assemble=False)
    with pytest.raises(ConfigError, match="integer accumulator"):
        gemm(64, 64, 64, dtype="i8", out_dtype="i32", layout="NT", bias=True, assemble=False)
    kern = gemm(64, 64, 64, dtype="i8", layout="NT", assemble=False)
    assert kern.config.out_dtype == "i32" and not kern.config.scaled
    assert "v_mfma_i32_32x32x16_i8" in kern.asm


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_i32_output_in_the_8wave_pingpong(arch, seeds):
    """The raw i32 epilogue in element order (no C is read): the 256x256 ping-pong builds with two
    waves per SIMD (before, its row masks and offsets were all hoisted: 266 SGPRs) and is exact."""
    big = gemm(8192, 8192, 8192, dtype="i8", arch=arch, layout="NT", tile=(256, 256, 32),
               waves=(2, 4), schedule="pingpong", direct_to_lds=True, lds_swizzle=True, prefetch=1,
               assemble=False)
    assert big.resources["waves_per_simd"] >= 2 and "buffer_load_dword" not in big.asm.split(
        "v_accvgpr_read")[-1]
    _run(arch, "i8", "i32", "pingpong", (130, 140, 128),
         (("tile", (128, 128, 64)), ("waves", (2, 4)), ("direct_to_lds", True), ("prefetch", 1)),
         *seeds)
