"""MX-scaled GEMMs on gfx950 (issue 15): ``mxfp8`` (E4M3 elements) and ``mxfp4`` (E2M1 pairs
packed in uint8, even K in the low nibble), one E8M0 scale per 32 K-elements of each A row and
B column (``scale_a`` [M, K/32] / ``scale_b`` [N, K/32] uint8), through
``v_mfma_scale_f32_*_f8f6f4``, layout NT. Every kernel is assembled by LLVM and run on
the emulator against the NumPy reference with the block scales applied per block, two emulator
seeds x two input seeds, M/N off the tile; the scales are shown to reach the result (the
reference with a wrong scale disagrees)."""
import functools

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.contract import gemm_args
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
from asmgen.runtime.launch import LaunchError

ONE = (("tile", (32, 32, 128)), ("waves", (1, 1)), ("mfma", (16, 16, 128)))
ONE32 = (("tile", (32, 32, 64)), ("waves", (1, 1)), ("mfma", (32, 32, 64)))
FOUR = (("tile", (64, 64, 128)), ("waves", (2, 2)), ("mfma", (16, 16, 128)))

CASES = [
    # out dtype, recipe, (m, n, k), geometry
    ("f32", "pgr1", (40, 40, 128), ONE),
    ("bf16", "pgr2", (1, 255, 256), ONE),
    ("f32", "pgr2", (17, 33, 256), ONE32),
    ("f16", "pgr1", (257, 17, 128), FOUR),
    ("f32", "pgr1", (65, 70, 256), FOUR[:2] + (("mfma", (32, 32, 64)), ("staging", 2))),
    ("f32", "ck_v4", (65, 70, 256), FOUR + (("frag_buffers", 2),)),
    ("f32", "pgr1", (40, 40, 256), ONE + (("lds_swizzle", True),)),
    ("bf16", "pgr1", (40, 40, 256), ONE + (("direct_to_lds", True), ("lds_swizzle", True))),
    ("f32", "pgr1", (40, 40, 256), ONE + (("bias", True), ("activation", "silu"))),
    ("f32", "pgr1", (33, 40, 512), (("tile", (32, 32, 256)), ("waves", (1, 1)),
                                    ("mfma", (16, 16, 128)), ("prefetch", 2))),
    # the untuned 8192^3 default's shape (kinds.gemm.defaults.MX), off the tile
    ("f32", "ck_v4", (130, 200, 256), (("tile", (256, 256, 128)), ("waves", (2, 2)),
                                       ("mfma", (32, 32, 64)), ("direct_to_lds", True),
                                       ("lds_swizzle", True))),
]


# mxfp4: the same template paths with 4-bit elements (half-byte offsets, 32-element vectors)
CASES4 = [
    ("f32", "pgr1", (40, 40, 128), ONE),
    ("bf16", "pgr2", (1, 255, 256), ONE),
    ("f16", "pgr1", (65, 70, 256), FOUR[:2] + (("mfma", (32, 32, 64)), ("staging", 2))),
    ("f32", "pgr1", (257, 17, 256), FOUR + (("direct_to_lds", True), ("lds_swizzle", True))),
    ("f32", "ck_v4", (130, 200, 512), (("tile", (256, 256, 256)), ("waves", (2, 2)),
                                       ("mfma", (32, 32, 64)), ("direct_to_lds", True),
                                       ("lds_swizzle", True))),
]
ALL = [("mxfp8",) + c for c in CASES] + [("mxfp4",) + c for c in CASES4]


@functools.cache
def _kernel(out, recipe, mnk, geo, dtype="mxfp8"):
    return gemm(*mnk, dtype=dtype, arch="gfx950", layout="NT", out_dtype=out, schedule=recipe,
                **dict(geo))


def _compare(cfg, got, inp, sa, sb):
    return compare(cfg, got, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                   inp.get("bias"), sa, sb)


@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{'x'.join(map(str, c[3]))}-"
                         f"{'-'.join(k for k, _ in c[4][3:]) or 'plain'}")
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_mx_gemm_on_the_emulator(case, seeds):
    kern = _kernel(*case[1:], dtype=case[0])
    assert kern.hsaco, "LLVM produced no code object"
    assert "v_mfma_scale_f32_" in kern.asm
    assert (" cbsz:4 blgp:4" in kern.asm) == (case[0] == "mxfp4")
    inp = gemm_random_inputs(kern.config, seeds[1])
    got = load(kern, seed=seeds[0])(**inp)
    ok, msg = _compare(kern.config, got, inp, inp["scale_a"], inp["scale_b"])
    assert ok, f"{kern.name} seeds {seeds}: {msg}"
    # the block scales reach the result: unit B scales, or A's K-blocks reversed, disagree
    assert not _compare(kern.config, got, inp, inp["scale_a"], np.full_like(inp["scale_b"], 127))[0]
    assert not _compare(kern.config, got, inp, inp["scale_a"][:, ::-1], inp["scale_b"])[0]


def test_contract_names_the_block_scales():
    cfg = _kernel(*CASES[0]).config
    args = {a.name: a for a in gemm_args(cfg)}
    assert args["A"].dtype == args["B"].dtype == "fp8_e4m3"
    for name, rows in (("scale_a", "M"), ("scale_b", "N")):
        a = args[name]
        assert (a.kind, a.dtype, a.shape, a.dims) == ("buffer", "u8", ((40, 4)), (rows, "K/32"))
    assert cfg.k_multiple == 128 and not cfg.scaled


def test_a_wrong_scale_shape_is_a_launch_error():
    kern = _kernel(*CASES[0])
    inp = gemm_random_inputs(kern.config, 0)
    inp["scale_b"] = inp["scale_b"][:, :2]
    with pytest.raises(LaunchError, match="scale_b"):
        load(kern)(**inp)


@pytest.mark.parametrize("kw,match", [
    ({"arch": "gfx942"}, "gfx942"),
    ({"k": 100}, "multiple of the 32-element scale block"),
    ({"arrangement": "pingpong"}, "pingpong needs 8 waves"),
    ({"tile": (32, 32, 64), "mfma": (16, 16, 128)}, "not divisible by MFMA K"),
])
def test_mx_config_errors_name_the_value(kw, match):
    args = dict(m=64, n=64, k=256, dtype="mxfp8", arch="gfx950", layout="NT", tile=(32, 32, 128),
                waves=(1, 1), mfma=(16, 16, 128), assemble=False)
    args.update(kw)
    with pytest.raises(ConfigError, match=match):
        gemm(args.pop("m"), args.pop("n"), args.pop("k"), **args)


def test_mxfp4_contract_packs_two_elements_per_byte():
    cfg = _kernel(*CASES4[0], dtype="mxfp4").config
    args = {a.name: a for a in gemm_args(cfg)}
    for name, rows, ld in (("A", "M", "lda"), ("B", "N", "ldb")):
        a = args[name]
        assert (a.dtype, a.shape, a.dims, a.ld) == ("u8", (40, 64), (rows, "K/2"), f"{ld}/2")
    assert args["scale_a"].shape == (40, 4) and cfg.operand_regs == 4


def test_fp4_packing_order_reaches_the_kernel():
    """Swapping the nibbles of A (odd K in the low nibble) must break the result."""
    kern = _kernel(*CASES4[0], dtype="mxfp4")
    inp = gemm_random_inputs(kern.config, 3)
    got = load(kern, seed=0)(**inp)
    assert _compare(kern.config, got, inp, inp["scale_a"], inp["scale_b"])[0]
    swapped = dict(inp, A=((inp["A"] << 4) | (inp["A"] >> 4)).astype(np.uint8))
    assert not _compare(kern.config, got, swapped, inp["scale_a"], inp["scale_b"])[0]
