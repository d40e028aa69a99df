"""mxfp4 (gfx950, issue 15) in the layouts other than NT. An MN-contiguous fp4 operand (A in T, B in
N) is stored as the launch contract says: uint8 rows of ``lda / 2`` (``ldb / 2``) bytes, two E2M1
per byte paired along M (N), even M in the low nibble, an odd M leaving the last byte's high
nibble as padding (``kinds.gemm.contract``); the kernel loads 8 K rows of 2, 4 or 8 MN elements
and nibble-transposes them in registers into dwords of 8 K-neighbours (``kinds.gemm.memops.
_pack_nibbles``) before its LDS write. The E8M0 scales stay ``scale_a`` [M, K/32] / ``scale_b``
[N, K/32] whatever the layout. Every kernel is assembled by LLVM and run on the emulator against
the NumPy reference (``reference.operands`` unpacks each buffer along its contiguous dimension),
two emulator x input seeds, M/N 1, 17, 255, 257 and K off the tile, the default and split loops;
the reference draws random values into the padding nibbles and the ld padding, so a kernel that
let them reach a stored C element fails. Wider matrix behind --runslow."""
import functools

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.contract import gemm_args, size_multiples
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
from asmgen.runtime.launch import LaunchError

FOUR = (("tile", (64, 64, 128)), ("waves", (2, 2)), ("mfma", (16, 16, 128)))
FOUR32 = (("tile", (64, 64, 128)), ("waves", (2, 2)), ("mfma", (32, 32, 64)))
ONE = (("tile", (32, 32, 128)), ("waves", (1, 1)), ("mfma", (16, 16, 128)))

CASES = [
    # layout, recipe, (m, n, k), geometry
    ("NN", "pgr1", (17, 257, 160), FOUR),
    ("TN", "pgr2", (257, 1, 288), ONE + (("lda", 264),)),    # A by dwords, B by bytes
    ("TN", "ck_v4", (1, 255, 256), FOUR + (("frag_buffers", 2),)),
    ("TT", "interleave", (255, 17, 256), FOUR32),
    # the untuned default's shape off NT (kinds.gemm.defaults.MX4_MN: 256x256x128 ck_v4, padded)
    ("TN", "ck_v4", (130, 200, 256), (("tile", (256, 256, 128)), ("waves", (2, 2)),
                                      ("mfma", (32, 32, 64)), ("lda", 136))),
]
WIDE = [(lay, recipe, (m, n, k), geo)
        for lay in ("NN", "TN", "TT") for m, n in ((1, 257), (255, 17)) for k in (32, 288)
        for recipe, geo in (("pgr1", FOUR), ("interleave", FOUR32 + (("lds_swizzle", True),)))]
# the untuned default's 256 x 256 tile, MN rows padded to whole dwords (dword MN vectors); TN's
# two MN-contiguous operands take DepthU 128 (at 256: 64 loads per thread and K-tile, config)
BIG = (("tile", (256, 256, 256)), ("waves", (2, 2)), ("mfma", (32, 32, 64)))
BIG128 = (("tile", (256, 256, 128)),) + BIG[1:]
WIDE += [(lay, "ck_v4", (257, 255, 512), (BIG128 if lay == "TN" else BIG) + pads)
         for lay, pads in (("NN", (("ldb", 256),)), ("TN", (("lda", 264), ("ldb", 256))),
                           ("TT", (("lda", 264),)))]


@functools.cache
def _kernel(layout, recipe, mnk, geo):
    return gemm(*mnk, dtype="mxfp4", arch="gfx950", layout=layout, schedule=recipe, **dict(geo))


def _compare(cfg, got, inp, **over):
    inp = dict(inp, **over)
    return compare(cfg, got, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                   inp.get("bias"), inp["scale_a"], inp["scale_b"])


def _check(case, seeds):
    kern = _kernel(*case)
    cfg = kern.config
    assert kern.hsaco, "LLVM produced no code object"
    assert cfg.layout == case[0] and "v_mfma_scale_f32_" in kern.asm and "v_bfi_b32" in kern.asm
    inp = gemm_random_inputs(cfg, seeds[1])
    got = load(kern, seed=seeds[0])(**inp)
    ok, msg = _compare(cfg, got, inp)
    assert ok, f"{kern.name} seeds {seeds}: {msg}"
    assert not _compare(cfg, got, inp, scale_b=np.full_like(inp["scale_b"], 127))[0]
    # the pairing direction reaches the result: swapping the nibbles of the MN-packed operand
    # (odd M / N in the low nibble) breaks it
    name = "A" if cfg.layout[0] == "T" else "B"
    swapped = ((inp[name] << 4) | (inp[name] >> 4)).astype(np.uint8)
    assert not _compare(cfg, got, inp, **{name: swapped})[0]


def _id(c):
    return f"{c[0]}-{c[1]}-{'x'.join(map(str, c[2]))}-{c[3][0][1][2]}-" \
           f"{'-'.join(k for k, _ in c[3][3:]) or 'plain'}"


@pytest.mark.parametrize("case", CASES, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_mxfp4_layouts_on_the_emulator(case, seeds):
    _check(case, seeds)


@pytest.mark.slow
@pytest.mark.parametrize("case", WIDE, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 2), (1, 3)])
def test_mxfp4_layouts_wide(case, seeds):
    _check(case, seeds)


def test_mn_packed_contract():
    """A in T: [K, ceil(M / 2)] bytes in rows of lda / 2, paired along M; B in N likewise along
    N; an odd M gets the even default lda; vectors promise lda, not M, a multiple."""
    cfg = gemm(17, 40, 256, dtype="mxfp4", arch="gfx950", layout="TN", assemble=False,
               **dict(FOUR)).config
    args = {a.name: a for a in gemm_args(cfg)}
    assert (cfg.lda, cfg.ldb) == (18, 40)
    assert (args["A"].shape, args["A"].dims, args["A"].ld) == ((256, 9), ("K", "M/2"), "lda/2")
    assert (args["B"].shape, args["B"].dims, args["B"].ld) == ((256, 20), ("K", "N/2"), "ldb/2")
    mult = size_multiples(cfg)
    assert "M" not in mult and mult["lda"] == cfg.vec_a >= 2


def test_mn_packed_rows_too_short_is_a_launch_error():
    kern = _kernel(*CASES[0])
    inp = gemm_random_inputs(kern.config, 0)
    inp["B"] = inp["B"][:, :128]        # N = 257 needs 129 bytes per K row
    with pytest.raises(LaunchError, match=r"argument B: .*\(K, N/2\) = \(160, 129\)"):
        load(kern)(**inp)


@pytest.mark.parametrize("kw,match", [
    ({"layout": "TN", "lda": 65}, "lda=65 is odd"),
    ({"layout": "NN", "ldb": 65}, "ldb=65 is odd"),
    ({"layout": "TN", "tile": (64, 64, 1024)}, "128 K octets"),
    ({"layout": "TN", "lda": 66, "ldb": 66}, "64 buffer loads per thread and K-tile"),
])
def test_mn_packed_config_errors(kw, match):
    args = dict(dtype="mxfp4", arch="gfx950", **dict(ONE), assemble=False)
    args.update(kw)
    with pytest.raises(ConfigError, match=match):
        gemm(64, 64, 1024, **args)


@pytest.mark.parametrize("dtype,layout,tile,dma", [
    ("mxfp4", "TN", (256, 256, 128), False), ("mxfp4", "NN", (256, 256, 128), False),
    ("mxfp4", "NT", (256, 256, 256), True), ("mxfp8", "TN", (128, 128, 128), False),
    ("mxfp8", "TT", (128, 128, 128), True)])
def test_mx_defaults_off_nt(dtype, layout, tile, dma):
    """The untuned 8192^3 default per layout (kinds.gemm.defaults.MX4_MN / MX8_MN): mxfp4 off
    NT the padded 256x256x128 ck_v4 (no small-tile fallback for TN, whose operands LDS-DMA
    cannot load), mxfp8 TN the padded 128 tile; NT and mxfp8 NN/TT unchanged."""
    from asmgen.kinds.gemm.defaults import build_default
    kern, _ = build_default(gemm, 8192, 8192, 8192, "gfx950", dtype=dtype, layout=layout,
                            assemble=False)
    cfg = kern.config
    assert (cfg.tile, cfg.direct_to_lds, cfg.layout) == (tile, dma, layout)
