"""Data placement math of the GEMM template against independent definitions (isa.mfma_layout,
the direct vector index formula) and the LDS bounds."""
import itertools

import pytest

from asmgen.kinds.gemm.config import GemmConfig
from asmgen.kinds.gemm.layout import (
    acc_coords,
    global_read_map,
    lds_layout,
    mfma_name,
    mfma_operand_coords,
    mfma_operand_k,
)
from isa import mfma_layout

CONFIGS = [
    dict(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2)),
    dict(m=64, n=64, k=64, tile=(32, 32, 16), waves=(1, 1), layout="TT"),
    dict(m=128, n=128, k=64, tile=(128, 64, 64), waves=(2, 1), layout="TN", mfma=(16, 16, 16)),
    dict(m=64, n=64, k=64, tile=(64, 32, 32), waves=(1, 1), layout="NT", arch="gfx950"),
    dict(m=64, n=64, k=64, tile=(64, 64, 64), waves=(2, 2), arch="gfx950", mfma=(16, 16, 32)),
    dict(m=64, n=64, k=64, tile=(256, 32, 16), waves=(4, 1), vec_a=2),
]
# 8-bit MN-contiguous operands: 4 K rows per vector, K quads first (GlobalReadMap.k_fast)
CONFIGS_8BIT = [
    dict(m=64, n=64, k=64, tile=(64, 64, 64), waves=(2, 2), layout="TN", dtype="fp8_e4m3fnuz"),
    dict(m=64, n=66, k=64, tile=(32, 64, 128), waves=(1, 1), layout="NN", dtype="i8",
         arch="gfx950"),
    dict(m=17, n=64, k=64, tile=(32, 32, 32), waves=(1, 1), layout="TT", dtype="i8"),
]


@pytest.mark.parametrize("kw", CONFIGS + CONFIGS_8BIT)
def test_global_reads_cover_tile_once(kw):
    cfg = GemmConfig(**kw)
    for op in "ab":
        gm = global_read_map(cfg, op)
        seen = set()
        deltas = gm.deltas()
        for t in range(cfg.threads):
            r0, k0 = gm.lane0(t)
            for j, (dr, dk) in enumerate(deltas):
                r, k = gm.coords(t, j)
                assert (r, k) == (r0 + dr, k0 + dk), (op, t, j)
                assert gm.vec == cfg.kvec(op) and gm.mn_vec == cfg.mn_vec(op)
                for e in range(gm.vec):
                    for w in range(gm.mn_vec):
                        assert (r + w, k + e) not in seen
                        seen.add((r + w, k + e))
                # an LDS dword (2 or 4 K-neighbours) is always written by a single thread
                assert k % cfg.in_type.per_dword == 0 or gm.vec == 1
                if gm.k_fast:    # lanes of a wave: K quads first (distinct LDS dwords)
                    assert gm.lane0(t)[1] == 4 * (t % (cfg.tile[2] // 4))
        rows = cfg.tile[0] if op == "a" else cfg.tile[1]
        assert seen == set(itertools.product(range(rows), range(cfg.tile[2])))


# gfx950 f8f6f4 forms: fp8 operands in two runs of 16 K (CDNA4 ISA 7.1.5.1), fp4 in one of 32
CONFIGS_F8F6F4 = [
    dict(m=64, n=64, k=256, tile=(64, 64, 128), waves=(2, 2), dtype="fp8_e4m3", arch="gfx950",
         mfma=(16, 16, 128)),
    dict(m=64, n=64, k=256, tile=(64, 64, 128), waves=(1, 1), dtype="mxfp8", arch="gfx950",
         layout="NT", mfma=(32, 32, 64)),
    dict(m=64, n=64, k=256, tile=(64, 64, 128), waves=(1, 1), dtype="mxfp4", arch="gfx950",
         layout="NT", mfma=(16, 16, 128)),
]


@pytest.mark.parametrize("kw", CONFIGS + CONFIGS_F8F6F4)
def test_mfma_operand_and_acc_layout_match_isa(kw):
    cfg = GemmConfig(**kw)
    name = mfma_name(cfg)
    epr = 32 // cfg.in_type.bits
    for lane in range(64):
        row, k0 = mfma_operand_coords(cfg, lane)
        assert k0 == mfma_operand_k(cfg, lane, 0)
        for e in range(cfg.k_per_lane):
            if cfg.in_type.bits == 4:     # isa.mfma_layout's f8f6f4 coordinate maps are 8-bit
                assert mfma_operand_k(cfg, lane, e) == 32 * (lane // cfg.mfma[0]) + e
                continue
            blk, i, k = mfma_layout.a_index(name, e // epr, lane, e % epr)
            assert (i, k) == (row, mfma_operand_k(cfg, lane, e))
        for reg in range(cfg.acc_regs):
            blk, i, j = mfma_layout.cd_index(name, reg, lane)
            assert blk == 0 and (i, j) == acc_coords(cfg, reg, lane)


@pytest.mark.parametrize("kw", CONFIGS)
def test_lds_layout_bounds_and_alignment(kw):
    cfg = GemmConfig(**kw)
    lds = lds_layout(cfg)
    assert lds.total == cfg.lds_bytes
    last = lds.offset("b", cfg.tile[1] - 1, cfg.tile[2] - 1, cfg.prefetch)
    assert last + 2 <= lds.total
    assert lds.offset("b", 0, 0) == lds.offset("a", cfg.tile[0], 0)
    assert lds.row_bytes % 16 == 0          # ds_write_b128 / ds_read_b128 stay aligned
