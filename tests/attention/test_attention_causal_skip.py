"""Causal attention's cold paths (``asmgen.kinds.attention.kvloop``): the triangle body (the
wave's diagonal key block, masked by 16 constant lane masks as the QK product's initial value)
and, with several waves, the skip body (a key block wholly above the wave's rows: loads and
barrier, no compute). Emulator against the float64 reference (two seeds) on lengths that take
each path, and the dynamic streams prove which path each wave ran: with bottom-right aligned
lengths every wave runs its diagonal block in the triangle body, never the per-element mask,
and skips exactly the blocks above its rows."""
from __future__ import annotations

import numpy as np
import pytest
from attn_util import kernel, run_case

from asmgen.kinds.attention.config import AttentionConfig
from asmgen.profiling.common import emulate_streams

C = AttentionConfig
# (config, schedule): lengths chosen for the path they take
CASES = [
    # aligned (sk - sq = 0 mod 32): unmasked, triangle, skip; both arches, D 64 / 128
    (C(waves=4, heads=2, kv_heads=1, seqlen_q=256, seqlen_k=256, causal=True, dtype="bf16"),
     "attn_prio_interleave"),
    (C(waves=4, seqlen_q=256, seqlen_k=288, head_dim=128, causal=True, dtype="bf16",
       arch="gfx950"), "attn_prio_interleave"),
    (C(waves=2, kv_buffers=3, seqlen_q=200, seqlen_k=232, causal=True, arch="gfx950"),
     "attn_basic"),                               # a partial last wave, sk - sq = 32
    # not aligned: the diagonal falls inside blocks, the per-element mask runs
    (C(waves=4, seqlen_q=250, seqlen_k=256, head_dim=128, causal=True), "attn_prio"),
    # seqlen_q > seqlen_k: the first waves see no key at all and skip every block
    (C(waves=4, seqlen_q=300, seqlen_k=100, causal=True, dtype="bf16", arch="gfx950"),
     "attn_interleave"),
    # one wave: the triangle body in the register loop and the one-wave LDS loop
    (C(seqlen_q=96, seqlen_k=128, causal=True, head_dim=128), "attn_interleave"),
    (C(waves=1, kv_buffers=2, seqlen_q=64, seqlen_k=64, causal=True, dtype="bf16",
       arch="gfx950"), "attn_basic"),
]


def _id(case) -> str:
    cfg, sched = case
    return f"{cfg.name}_q{cfg.seqlen_q}k{cfg.seqlen_k}_{sched}"


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_matches_reference(case, seed):
    cfg, sched = case
    ok, msg, _ = run_case(cfg, seed, sched)
    assert ok, msg


def _paths(cfg: AttentionConfig, sched: str, sq: int, sk: int) -> list[dict]:
    """Per wave of the last Q-block (the workgroup the causal grid starts with): how many key
    blocks it ran in the triangle body (16 lane-mask v_cndmask_b32 each), the per-element mask
    (16 v_cmp_lt_i32), computed at all (its QK and PV MFMAs) and skipped: the loop's trips (one
    s_barrier each, after the prologue's) less the computed ones."""
    k = kernel(cfg, sched)
    rng = np.random.default_rng(0)
    d = cfg.head_dim
    vals = {n: rng.uniform(-1, 1, (1, 1, s, d)).astype(np.float16)
            for n, s in (("Q", sq), ("K", sk), ("V", sk), ("O", sq))}
    vals["LSE"] = np.zeros((1, 1, sq), np.float32)
    vals.update(batch=1, heads=1, kv_heads=1, seqlen_q=sq, seqlen_k=sk)
    out = []
    qk = d // cfg.mfma_k
    for st in emulate_streams(k.meta, k.hsaco, vals):
        ops = [str(i) for i in st.instrs]
        tri = sum(1 for o in ops if o.startswith("v_cndmask_b32_e64") and ", 0, " in o
                  and " s[" in o)
        trips = sum(o.startswith("s_barrier") for o in ops) - (cfg.kv_buffers > 1)
        mf = sum(o.startswith("v_mfma") for o in ops)
        per = qk + (32 // cfg.mfma_k) * (d // 32)
        assert mf % per == 0
        out.append({"tri": tri // 16, "mask": sum(o.startswith("v_cmp_lt_i32") for o in ops) // 16,
                    "blocks": mf // per, "skip": trips - mf // per if cfg.kv_buffers > 1 else 0})
    return out


def test_aligned_waves_run_triangle_and_skip_never_the_mask():
    """seqlen_q = seqlen_k = 256, 4 waves: the last Q-block (rows 128..255) runs 8 key blocks;
    wave w computes blocks 0 .. 4 + w (its diagonal 4 + w in the triangle body) and skips the
    3 - w above it."""
    cfg = C(waves=4, seqlen_q=256, seqlen_k=256, causal=True, dtype="f16")
    got = _paths(cfg, "attn_prio_interleave", 256, 256)
    assert got == [{"tri": 1, "mask": 0, "blocks": 5 + w, "skip": 3 - w} for w in range(4)]


def test_unaligned_diagonal_takes_the_mask_and_skips():
    """seqlen_k - seqlen_q = 6: the diagonal of every wave crosses two key blocks, both in the
    per-element mask, none in the triangle; the blocks above still skip."""
    cfg = C(waves=4, seqlen_q=250, seqlen_k=256, causal=True, dtype="f16")
    got = _paths(cfg, "attn_prio_interleave", 250, 256)
    # rows 128 + 32 w .. + 31 see keys up to row + 6: blocks 0 .. 4 + w (+ 1 for the last
    # key of the wave's last row), the diagonal ones masked; wave 3's last row 249 sees 255
    assert [g["tri"] for g in got] == [0, 0, 0, 0]
    assert [g["mask"] for g in got] == [2, 2, 2, 1]
    assert [g["blocks"] for g in got] == [6, 7, 8, 8]
    assert [g["skip"] for g in got] == [2, 1, 0, 0]


def test_one_wave_diagonal_is_the_triangle():
    cfg = C(seqlen_q=96, seqlen_k=128, causal=True)
    (got,) = _paths(cfg, "attn_interleave", 96, 128)
    # one Q-block of 32 rows (the last: rows 64..95) sees keys up to row + 32: blocks 0..3
    assert got["tri"] == 1 and got["mask"] == 0 and got["blocks"] == 4


def test_triangle_masks_are_the_bottom_right_triangle():
    """The 16 lane masks the template builds (``tri_masks``: SGPR pairs set in the prologue)
    against the C layout of the 32x32 MFMA: register r, lane l holds key 8 (r / 4) + 4 (l / 32)
    + r % 4 of row l % 32 (cdna-facts section 2.2), hidden iff key > row."""
    from asmgen.kinds.attention.template import build_attention
    ir = build_attention(C(seqlen_q=64, seqlen_k=64, causal=True))
    words: dict[tuple[str, int], int] = {}
    for n in ir.prologue.nodes:
        dst = n.instr.operands[0]
        if n.instr.op == "s_mov_b32" and getattr(dst, "name", "").startswith("tri_m"):
            words[(dst.name, dst.offset)] = n.instr.operands[1].value
    assert len(words) == 32
    lanes = np.arange(64)
    for r in range(16):
        mask = words[(f"tri_m{r}", 0)] | words[(f"tri_m{r}", 1)] << 32
        bits = (mask >> lanes) & 1
        key = 8 * (r // 4) + 4 * (lanes // 32) + r % 4
        assert (bits.astype(bool) == (key > lanes % 32)).all(), r
