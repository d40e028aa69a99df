"""MX GEMMs (gfx950, issue 15) in the split loops: the 8-wave ``pingpong`` and the 4-wave
``interleave`` recipes (kinds.gemm.pingpong), whose memory phase carries the block-scale loads of
tile i + 2 and the copy of tile i + 1's scales to the registers the next MFMAs read. Every kernel
is assembled by LLVM and run on the emulator against the NumPy reference, two emulator x input
seeds, M/N 1, 17, 255, 257 and K tails; the scales reach the result; each scale load sits in
the memory phase, after the MFMA cluster. Wider matrix behind --runslow."""
import functools

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

PP16 = (("tile", (64, 128, 128)), ("waves", (2, 4)), ("mfma", (16, 16, 128)))
PP32 = (("tile", (64, 128, 128)), ("waves", (2, 4)), ("mfma", (32, 32, 64)))
IL1 = (("tile", (32, 32, 128)), ("waves", (1, 1)), ("mfma", (16, 16, 128)))
IL4 = (("tile", (64, 64, 128)), ("waves", (2, 2)), ("mfma", (32, 32, 64)))
PP128 = (("tile", (128, 128, 128)), ("waves", (2, 4)), ("mfma", (16, 16, 128)))
DMA = (("direct_to_lds", True), ("lds_swizzle", True))

CASES = [
    # dtype, recipe, (m, n, k), geometry
    ("mxfp8", "pingpong", (70, 130, 256), PP16),
    ("mxfp8", "pingpong", (17, 257, 160), PP32 + DMA),
    ("mxfp8", "interleave", (1, 40, 384), IL1),
    ("mxfp8", "interleave", (255, 17, 96), IL4 + DMA),
    ("mxfp4", "pingpong", (257, 1, 160), PP32),
    ("mxfp4", "interleave", (17, 255, 256), IL4 + DMA),
    ("mxfp4", "interleave", (40, 33, 224), IL1),
]
WIDE = [(dt, recipe, (m, n, k), geo)
        for dt in ("mxfp8", "mxfp4") for m, n in ((1, 255), (257, 17))
        for k in (32, 128, 416)
        for recipe, geo in (("pingpong", PP128 + DMA), ("interleave", IL4))]


@functools.cache
def _kernel(dtype, recipe, mnk, geo):
    return gemm(*mnk, dtype=dtype, arch="gfx950", layout="NT", schedule=recipe, **dict(geo))


def _compare(cfg, got, inp, sa, sb):
    return compare(cfg, got, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                   inp.get("bias"), sa, sb)


def _check(case, seeds):
    kern = _kernel(*case)
    cfg = kern.config
    assert kern.hsaco, "LLVM produced no code object"
    assert cfg.arrangement == case[1] and "v_mfma_scale_f32_" in kern.asm
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
def test_mx_split_loop_on_the_emulator(case, seeds):
    _check(case, seeds)


@pytest.mark.slow
@pytest.mark.parametrize("case", WIDE, ids=_id)
@pytest.mark.parametrize("seeds", [(0, 2), (1, 3)])
def test_mx_split_loop_wide(case, seeds):
    _check(case, seeds)


@pytest.mark.parametrize("case", [CASES[0], CASES[3]], ids=_id)
def test_scale_loads_sit_in_the_memory_phase(case):
    """In the loop body every scale load (buffer_load_ubyte) comes after the last MFMA, beside
    the operand ds_reads of the next tile: the MFMA cluster holds no memory op."""
    lines = [ln.strip() for ln in _kernel(*case).asm.splitlines()]
    start = next(i for i, ln in enumerate(lines) if ln.startswith("loop_k"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("s_cbranch"))
    body = lines[start:end]
    mfmas = [i for i, ln in enumerate(body) if ln.startswith("v_mfma_scale")]
    loads = [i for i, ln in enumerate(body) if ln.startswith("buffer_load_ubyte")]
    cfg = _kernel(*case).config
    per_tile = (cfg.blocks[0] + cfg.blocks[1]) * (cfg.tile[2] // cfg.mfma[2])
    assert len(loads) == per_tile and len(mfmas) == cfg.blocks[0] * cfg.blocks[1] * \
        (cfg.tile[2] // cfg.mfma[2])
    if case[1] == "pingpong":
        assert min(loads) > max(mfmas)
