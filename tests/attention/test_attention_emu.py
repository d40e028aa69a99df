"""Attention forward kernels on the emulator vs the float64 NumPy reference.

The default matrix covers every dimension at least once (seq lengths 1..300 aligned and not,
heads 1..4 with GQA/MQA, head_dim 64/128, causal or not, f16/bf16, gfx942/gfx950, recipes
attn_basic/attn_interleave/shuffle, K/V prefetch on and off), each with two emulator seeds. ``--runslow``
adds the full cross product."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from attn_util import kernel, run_case

from asmgen.kinds.attention.config import AttentionConfig

C = AttentionConfig
# (config, schedule)
CASES = [
    (C(seqlen_q=1, seqlen_k=1), "attn_basic"),
    (C(heads=2, kv_heads=1, seqlen_q=77, seqlen_k=77, causal=True), "attn_basic"),
    (C(heads=3, kv_heads=1, seqlen_q=33, seqlen_k=100, head_dim=128, dtype="bf16"), "attn_interleave"),
    (C(heads=4, kv_heads=2, seqlen_q=100, seqlen_k=45, head_dim=128, causal=True,
       arch="gfx950"), "attn_basic"),
    (C(seqlen_q=64, seqlen_k=64, dtype="bf16", causal=True, arch="gfx950"), "attn_interleave"),
    (C(seqlen_q=1, seqlen_k=200, causal=True), "attn_interleave"),
    (C(batch=2, heads=2, seqlen_q=96, seqlen_k=130, head_dim=128, dtype="bf16",
       arch="gfx950"), "attn_basic"),
    (C(heads=4, kv_heads=4, seqlen_q=150, seqlen_k=150, dtype="bf16", causal=True), "shuffle"),
    (C(heads=2, kv_heads=1, seqlen_q=45, seqlen_k=61, head_dim=128, causal=True, arch="gfx950"),
     "shuffle"),
    (C(seqlen_q=40, seqlen_k=72, arch="gfx950", mfma_k=8), "attn_basic"),
    (C(heads=2, kv_heads=1, seqlen_q=70, seqlen_k=90, head_dim=128, causal=True, prefetch=0),
     "attn_interleave"),
]


def _id(case) -> str:
    cfg, sched = case
    return f"{cfg.name}_b{cfg.batch}h{cfg.heads}_q{cfg.seqlen_q}k{cfg.seqlen_k}_{sched}"


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_matches_reference(case, seed):
    cfg, sched = case
    ok, msg, _ = run_case(cfg, seed, sched, sched_seed=seed if sched == "shuffle" else None)
    assert ok, msg


def test_fully_masked_rows_are_zero_and_neg_inf():
    """Causal with seqlen_q > seqlen_k: the first seqlen_q - seqlen_k rows see no key."""
    cfg = C(seqlen_q=70, seqlen_k=20, causal=True)
    ok, msg, out = run_case(cfg, 0)
    assert ok, msg
    o, lse = np.asarray(out["O"], np.float64), np.asarray(out["LSE"])
    assert np.all(o[0, 0, :50] == 0.0)
    assert np.all(np.isneginf(lse[0, 0, :50]))
    assert np.all(np.isfinite(lse[0, 0, 50:]))
    assert np.all(np.isfinite(o))


def test_length_one_key_gives_v_row():
    """One key: softmax is 1, so every query row's output is that V row (rounded to f16)."""
    cfg = C(seqlen_q=5, seqlen_k=1)
    ok, msg, out = run_case(cfg, 1)
    assert ok, msg
    from asmgen.kinds.attention.reference import attention_random_inputs
    v = attention_random_inputs(cfg, 1)["V"][0, 0, 0].astype(np.float64)
    assert np.array_equal(np.asarray(out["O"][0, 0], np.float64), np.tile(v, (5, 1)))


@pytest.mark.parametrize("sq,sk", [(40, 50), (20, 96), (64, 1)])
def test_lengths_are_runtime_arguments(sq, sk):
    """A kernel generated for 64 x 96 runs at other lengths (the grid follows seqlen_q)."""
    cfg = C(heads=2, kv_heads=1, seqlen_q=64, seqlen_k=96, causal=True)
    ok, msg, _ = run_case(cfg, 2, seqlen_q=sq, seqlen_k=sk)
    assert ok, msg


@pytest.mark.parametrize("arch,kk", [("gfx942", 8), ("gfx950", 16)])
def test_loop_keeps_p_in_registers(arch, kk):
    """The loop body's LDS traffic is V only (ds_write_b64 / ds_read_b128) plus, on gfx942, the
    row-max exchange (ds_bpermute_b32; v_permlane32_swap_b32 on gfx950): P goes from the first MFMA's C layout to the second's B operand
    without LDS; both matmuls are 32x32xK MFMAs (K = 16 on gfx950). The steady-state body
    (``loop``: every key block but a last partial one, kvloop) has no key mask."""
    k = kernel(C(head_dim=128, arch=arch))
    body = [n.instr.op for n in next(b for b in k.compiled.stream.blocks if b.name == "loop").nodes]
    assert "v_cmp_lt_i32" not in body
    ds = {op for op in body if op.startswith("ds_")}
    if arch == "gfx942":
        assert ds == {"ds_write_b64", "ds_read_b128", "ds_bpermute_b32"}
        assert body.count("ds_bpermute_b32") == 1
    else:   # the row-max exchange is a VALU lane swap on gfx950
        assert ds == {"ds_write_b64", "ds_read_b128"}
        assert body.count("v_permlane32_swap_b32") == 1
    assert body.count(f"v_mfma_f32_32x32x{kk}_f16") == 128 // kk + (32 // kk) * (128 // 32)
    assert body.count("v_exp_f32") == 17


WIDE = [
    C(batch=b, heads=h, kv_heads=hk, seqlen_q=sq, seqlen_k=sk, head_dim=d, dtype=dt, causal=c,
      arch=a)
    for a, dt, d, c, (h, hk), (sq, sk), b in itertools.product(
        ("gfx942", "gfx950"), ("f16", "bf16"), (64, 128), (False, True), ((1, 1), (4, 2), (3, 1)),
        ((1, 1), (31, 33), (64, 64), (100, 77), (77, 250)), (1,))
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cfg", WIDE, ids=lambda c: f"{c.name}_h{c.heads}q{c.seqlen_q}k{c.seqlen_k}")
def test_wide_matrix(cfg, seed):
    ok, msg, _ = run_case(cfg, seed, "attn_interleave" if seed else "attn_basic")
    assert ok, msg
