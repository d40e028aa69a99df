"""8-bit GEMMs in all four layouts (issue 15, "layouts: all four stay legal"): an MN-contiguous
operand (A in T, B in N) is loaded 4 K rows at a time (1, 2 or 4 MN bytes per load) and
byte-transposed in registers into dwords of K-neighbours (``kinds.gemm.memops._pack_bytes``), so
LDS and the MFMA reads are those of the K-contiguous path. Every kernel is assembled by LLVM and
run on the emulator against the ml_dtypes reference, two emulator seeds x two input seeds (the
odd one has beta = 0). The default run is a representative shard; ``--runslow`` adds the cross
product arch x dtype x layout x scale modes x unaligned sizes x recipes."""
import functools
import itertools

import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.config import LAYOUTS
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

DTYPES = {"gfx942": ("fp8_e4m3fnuz", "bf8_e5m2fnuz", "i8"), "gfx950": ("fp8_e4m3", "bf8_e5m2", "i8")}
SMALL = (("tile", (32, 32, 32)), ("waves", (1, 1)))
MED = (("tile", (64, 64, 64)), ("waves", (2, 2)))
TENSOR, VECTORS = ("tensor", "tensor"), ("row", "col")

CASES = [
    # arch, dtype, out, layout, (scale_a, scale_b), recipe, (m, n, k), geometry
    ("gfx942", "fp8_e4m3fnuz", "f32", "NN", VECTORS, "pgr1", (17, 255, 40), SMALL),
    ("gfx942", "bf8_e5m2fnuz", "bf16", "TN", TENSOR, "pgr2", (255, 17, 100), SMALL),
    ("gfx942", "i8", "i32", "TT", TENSOR, "pgr1", (33, 17, 257), SMALL),
    ("gfx950", "fp8_e4m3", "f16", "TN", VECTORS, "pgr2", (100, 64, 130), MED),
    ("gfx950", "bf8_e5m2", "f32", "TT", TENSOR, "pgr1", (1, 17, 37), SMALL),
    ("gfx950", "i8", "bf16", "NN", VECTORS, "pgr2", (64, 66, 72), SMALL),
    # the template's other paths with transposed 8-bit operands
    ("gfx942", "fp8_e4m3fnuz", "f32", "TN", TENSOR, "pgr1", (40, 40, 96),
     SMALL + (("lds_swizzle", True),)),
    ("gfx950", "fp8_e4m3", "f32", "NN", TENSOR, "pgr1", (40, 40, 96),
     SMALL + (("direct_to_lds", True),)),          # A (K-contiguous) by LDS-DMA, B transposed
    ("gfx942", "i8", "i32", "TT", TENSOR, "pgr2", (40, 40, 96), SMALL + (("staging", 2),)),
    ("gfx942", "bf8_e5m2fnuz", "bf16", "TN", TENSOR, "pgr1", (64, 64, 128),
     MED + (("arrangement", "interleave"),)),
    ("gfx950", "fp8_e4m3", "bf16", "TT", TENSOR, "pgr1", (64, 40, 96), SMALL + (("frag_buffers", 1),)),
    # the 8-wave ping-pong over padded rows (the default of these layouts, kinds.gemm.defaults)
    ("gfx950", "fp8_e4m3", "f32", "TN", VECTORS, "pingpong", (130, 140, 200),
     (("tile", (128, 128, 64)), ("waves", (2, 4)), ("prefetch", 1), ("lds_pad", 32))),
    ("gfx950", "bf8_e5m2", "bf16", "NT", TENSOR, "pingpong", (130, 140, 200),
     (("tile", (128, 128, 64)), ("waves", (2, 4)), ("prefetch", 1), ("lds_pad", 32))),
    ("gfx942", "i8", "i32", "NN", TENSOR, "pingpong", (130, 140, 100),
     (("tile", (128, 128, 32)), ("waves", (2, 4)), ("prefetch", 1))),
]


@functools.cache
def _kernel(arch, dtype, out, layout, scales, recipe, mnk, geo):
    geo = dict(geo)
    if out != "i32":
        geo.update(scale_a_mode=scales[0], scale_b_mode=scales[1])
    return gemm(*mnk, dtype=dtype, arch=arch, layout=layout, out_dtype=out, schedule=recipe, **geo)


def _run(arch, dtype, out, layout, scales, recipe, mnk, geo, emu_seed, input_seed):
    kern = _kernel(arch, dtype, out, layout, scales, recipe, mnk, geo)
    assert kern.hsaco, "LLVM produced no code object"
    cfg = kern.config
    assert cfg.layout == layout and cfg.in_type.bits == 8
    inp = gemm_random_inputs(cfg, input_seed)
    got = load(kern, seed=emu_seed)(**inp)
    args = (inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], None)
    sc = (inp["scale_a"], inp["scale_b"]) if cfg.scaled else (1.0, 1.0)
    ok, msg = compare(cfg, got, *args, *sc)
    assert ok, f"{kern.name} emu seed {emu_seed} input seed {input_seed}: {msg}"


def _id(c):
    return f"{c[0]}-{c[1]}-{c[2]}-{c[3]}-{'/'.join(c[4])}-{c[5]}-{'x'.join(map(str, c[6]))}"


@pytest.mark.parametrize("case", CASES, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_8bit_layouts_on_the_emulator(case, seeds):
    _run(*case, *seeds)


# every unaligned size of the issue on each dimension: 1, 17, 255, 257, and K off the tile (40,
# 255, 257 against DepthU 32); the two recipes alternate over the sizes, swapped between the
# scale modes, so each (dtype, layout) sees every size under each recipe
SIZES = ((1, 1, 1), (17, 255, 40), (255, 17, 257), (257, 1, 255))


def _slow_cases():
    out = []
    for arch, dts in DTYPES.items():
        for dt, layout in itertools.product(dts, LAYOUTS):
            modes = (("i32", TENSOR), ("bf16", VECTORS)) if dt == "i8" else \
                (("f32", TENSOR), ("bf16", VECTORS))
            for s, (o, scales) in enumerate(modes):
                for i, mnk in enumerate(SIZES):
                    recipe = ("pgr1", "pgr2")[(i + s) % 2]
                    out.append((arch, dt, o, layout, scales, recipe, mnk, SMALL))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case", _slow_cases(), ids=_id)
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_8bit_layout_matrix(case, seeds):
    _run(*case, *seeds)


@pytest.mark.parametrize("layout", ["NN", "TN", "TT"])
def test_transposed_operands_load_4_k_rows_and_byte_transpose(layout):
    """An MN-contiguous 8-bit operand: dword loads of 4 MN bytes from 4 K rows (vec 4 on an
    aligned size), v_perm_b32 byte shuffles, ds_write_b32 per MN row; the K-contiguous one keeps
    its 16-byte loads and one ds_write_b128."""
    kern = gemm(256, 256, 256, dtype="fp8_e4m3fnuz", arch="gfx942", layout=layout,
                tile=(64, 64, 64), assemble=False)
    cfg, asm = kern.config, kern.asm
    mn_a, mn_b = layout[0] == "T", layout[1] == "N"
    assert (cfg.vec_a, cfg.vec_b) == (4 if mn_a else 16, 4 if mn_b else 16)
    assert "v_perm_b32" in asm and "ds_write_b32" in asm and "buffer_load_dword " in asm
    assert ("ds_write_b128" in asm) == (not (mn_a and mn_b))
    nt = gemm(256, 256, 256, dtype="fp8_e4m3fnuz", arch="gfx942", layout="NT", tile=(64, 64, 64),
              assemble=False).asm
    assert "v_perm_b32" not in nt and "ds_write_b32" not in nt


def test_odd_sizes_narrow_the_transposed_loads():
    """M odd: A (layout T) falls back to byte loads and shift-or packing; N = 2 mod 4: ushort."""
    cfg = gemm(17, 66, 64, dtype="i8", arch="gfx950", layout="TN", tile=(32, 32, 64),
               waves=(1, 1), assemble=False)
    assert (cfg.config.vec_a, cfg.config.vec_b) == (1, 2)
    asm = cfg.asm
    assert "buffer_load_ubyte" in asm and "buffer_load_ushort" in asm and "v_lshl_or_b32" in asm


def test_mn_vector_widths_are_checked():
    with pytest.raises(ConfigError, match=r"vec_a=8 is not one of \(4, 2, 1\)"):
        gemm(64, 64, 64, dtype="fp8_e4m3fnuz", arch="gfx942", layout="TN", vec_a=8,
             assemble=False)
    with pytest.raises(ConfigError, match="vec_b=4 does not divide N=66"):
        gemm(64, 66, 64, dtype="fp8_e4m3fnuz", arch="gfx942", layout="NN", vec_b=4,
             assemble=False)
