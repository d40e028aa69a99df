"""XOR-swizzled LDS (``lds_swizzle``) and the K-multiple contract (``k_multiple``), on the emulator
against NumPy, plus the pure layout arithmetic and the bank-conflict effect they exist for.

The swizzle moves where every element of a tile sits in LDS, so a wrong read address, a wrong
global K index or a lost XOR on one side gives wrong numbers here; the conflict test checks that
the reads it produces are conflict-free by the emulator's own bank model (cdna-facts section 7).
"""
import dataclasses

import numpy as np
import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError, KernargError
from asmgen.kinds.gemm.config import GemmConfig
from asmgen.kinds.gemm.layout import lds_swizzle
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
from isa.emu.mem_lds import bank_conflict_cycles

CASES = [
    # (m, n, k), options: both arches, ds_write and LDS-DMA paths, all layouts, edge sizes
    ((64, 64, 64), dict(tile=(64, 64, 32), waves=(2, 2), layout="NT")),
    ((100, 72, 80), dict(tile=(64, 64, 32), waves=(2, 2), layout="NN", schedule="pgr2")),
    ((33, 40, 48), dict(tile=(32, 32, 16), waves=(1, 1), layout="TT", dtype="bf16")),
    ((64, 64, 96), dict(tile=(64, 64, 32), waves=(2, 2), layout="NT", direct_to_lds=True,
                        schedule="pgr2")),
    ((64, 32, 64), dict(tile=(64, 32, 64), waves=(2, 1), layout="TN", mfma=(16, 16, 16))),
    ((64, 64, 128), dict(arch="gfx950", tile=(64, 64, 64), waves=(2, 2), layout="NT",
                         direct_to_lds=True)),
    ((40, 40, 72), dict(arch="gfx950", tile=(32, 32, 32), waves=(1, 1), layout="NN",
                        dtype="bf16", schedule="pgr2")),
]


def _id(case):
    (m, n, k), o = case
    return f"{m}x{n}x{k}-" + "-".join(f"{a}={b}" for a, b in sorted(o.items()))


@pytest.mark.parametrize("emu_seed", (0, 1))
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_swizzled_gemm_matches_numpy(case, emu_seed):
    mnk, opts = case
    kern = gemm(*mnk, lds_swizzle=True, **opts)
    assert kern.config.lds_pad == 0 and kern.config.name.endswith("_swz")
    inp = gemm_random_inputs(kern.config, emu_seed)
    out = load(kern, seed=emu_seed)(**inp)
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, f"{kern.name} seed {emu_seed}: {msg}"


@pytest.mark.parametrize("emu_seed", (0, 1))
def test_k_multiple_drops_the_k_mask_and_stays_correct(emu_seed):
    """With K promised to be a multiple of DepthU the loop has no per-tile K compare/select,
    and the result is still right (prefetches past K read other rows or 0, never computed)."""
    opts = dict(tile=(64, 64, 32), waves=(2, 2), layout="NT", direct_to_lds=True, schedule="pgr2")
    masked = gemm(64, 64, 96, **opts)
    exact = gemm(64, 64, 96, k_multiple=32, **opts)
    assert masked.config.k_tail and not exact.config.k_tail
    assert "v_cndmask" in masked.asm.split("loop_k")[1]
    loop = exact.asm.split("loop_k:")[1].split("s_cbranch")[0]
    assert "v_cndmask" not in loop and "v_cmp" not in loop
    inp = gemm_random_inputs(exact.config, emu_seed)
    out = load(exact, seed=emu_seed)(**inp)
    ok, msg = compare(exact.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg


def test_k_multiple_is_enforced_at_launch():
    kern = gemm(64, 64, 64, tile=(64, 64, 32), waves=(2, 2), layout="NT", k_multiple=32)
    small = dataclasses.replace(kern.config, k=48, k_multiple=16)
    inp = gemm_random_inputs(small, 0)
    with pytest.raises(KernargError, match=r"K = 48 .*multiple of 32"):
        load(kern)(**inp, K=48)


def test_k_multiple_staging_two_needs_pairs_of_tiles():
    cfg = GemmConfig(64, 64, 96, layout="NT", tile=(64, 64, 32), staging=2, k_multiple=32)
    assert cfg.k_tail        # 3 tiles: the loop computes 4, the 4th must read zeros
    cfg = GemmConfig(64, 64, 128, layout="NT", tile=(64, 64, 32), staging=2, k_multiple=64)
    assert not cfg.k_tail


@pytest.mark.parametrize("bad, match", [
    (dict(k_multiple=3), "k_multiple=3 is not a power of two"),
    (dict(k_multiple=128), "k_multiple=128 does not divide K=64"),
    (dict(lds_swizzle=True, lds_pad=8), "lds_pad=8 must be 0"),
    (dict(lds_swizzle=True, vec_a=8), "vec_a=8 is not one of"),
    (dict(lds_swizzle=True, arch="gfx950", tile=(32, 32, 16), waves=(1, 1), mfma=(16, 16, 16)),
     "MFMA M = 16 rows is not a multiple of 32"),
])
def test_bad_swizzle_and_k_multiple_configs(bad, match):
    opts = dict(tile=(64, 64, 32), waves=(2, 2), layout="NT") | bad
    with pytest.raises(ConfigError, match=match):
        GemmConfig(64, 64, 64, **opts)


@pytest.mark.parametrize("arch, tile, mfma", [
    ("gfx942", (256, 256, 32), (32, 32, 8)), ("gfx942", (128, 128, 64), (16, 16, 16)),
    ("gfx950", (256, 256, 64), (32, 32, 16)), ("gfx950", (128, 128, 128), (16, 16, 32)),
])
def test_swizzled_operand_reads_are_conflict_free(arch, tile, mfma):
    """Every MFMA operand read of a swizzled tile (all K-steps, lanes as the MFMA wants them) has
    no bank conflict in the emulator's model; the unswizzled unpadded layout has many."""
    cfg = GemmConfig(1024, 1024, 1024, arch=arch, layout="NT", tile=tile, waves=(2, 2),
                     mfma=mfma, lds_swizzle=True)
    sw = lds_swizzle(cfg)
    m, kpl, rb = mfma[0], cfg.k_per_lane, cfg.lds_row_bytes
    lanes = np.arange(64)
    nbytes = 2 * kpl
    plain = swz = 0
    for blk in range(tile[0] // m):
        for step in range(tile[2] // mfma[2]):
            rows = blk * m + lanes % m
            k = step * mfma[2] + kpl * (lanes // m)
            plain += bank_conflict_cycles(arch, rows * rb + 2 * k, nbytes)
            kx = np.array([sw.swizzle_k(int(r), int(kk)) for r, kk in zip(rows, k)])
            swz += bank_conflict_cycles(arch, rows * rb + 2 * kx, nbytes)
    assert swz == 0
    assert plain > 0


def test_swizzle_is_a_permutation_of_each_row():
    cfg = GemmConfig(256, 256, 64, layout="NT", tile=(256, 256, 32), lds_swizzle=True)
    sw = lds_swizzle(cfg)
    for r in range(64):
        ks = [sw.swizzle_k(r, k) for k in range(32)]
        assert sorted(ks) == list(range(32))
        assert all(sw.swizzle_k(r, sw.swizzle_k(r, k)) == k for k in range(32))
