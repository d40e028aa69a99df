"""Head dim 256 flash-attention forward: Q in AccVGPRs (MFMA src B in ``a[...]``), O^T in
AccVGPRs below four waves (MFMA src C / vdst in ``a[...]``, the rescale through
``v_accvgpr_read`` / ``v_accvgpr_write``), on the emulator against the float64 NumPy reference
with two seeds.

Default run: a small slice (both arches, f16 and bf16, causal and not, GQA, 1 and 4 waves,
the K-in-registers and the LDS-shared loops, unaligned lengths 1, 17, 100, 257); ``--runslow``
adds the wider matrix."""
from __future__ import annotations

import itertools

import pytest
from attn_util import kernel, run_case, steady_body

from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig

C = AttentionConfig
D = 256
# (config, schedule): every default case walks several key blocks with a partial last one
CASES = [
    (C(heads=4, kv_heads=2, seqlen_q=100, seqlen_k=257, head_dim=D, dtype="bf16", waves=4,
       kv_buffers=2), "attn_prio_interleave"),
    (C(heads=2, kv_heads=1, seqlen_q=17, seqlen_k=100, head_dim=D, dtype="f16", causal=True,
       arch="gfx950"), "attn_basic"),
    (C(seqlen_q=100, seqlen_k=100, head_dim=D, dtype="bf16", causal=True, waves=4,
       kv_buffers=2, arch="gfx950"), "attn_interleave"),
    (C(seqlen_q=1, seqlen_k=257, head_dim=D, dtype="f16"), "attn_interleave"),
]


def _id(case) -> str:
    cfg, sched = case
    return f"{cfg.name}_h{cfg.heads}q{cfg.seqlen_q}k{cfg.seqlen_k}_{sched}"


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_d256_matches_reference(case, seed):
    cfg, sched = case
    ok, msg, _ = run_case(cfg, seed, sched)
    assert ok, msg


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("waves,kv_buffers", [(1, 1), (4, 2)])
def test_agpr_operands(arch, waves, kv_buffers):
    """Q's B operands come from AccVGPRs in every QK MFMA (64 per lane); with one wave the PV
    MFMAs read and write O^T in AccVGPRs too (128 more), rescaled through v_accvgpr_read /
    v_accvgpr_write (VALU takes no AGPR operand); four waves keep O^T in VGPRs. The kernel's
    resources say so."""
    cfg = C(seqlen_q=64, seqlen_k=64, head_dim=D, dtype="bf16", arch=arch, waves=waves,
            kv_buffers=kv_buffers)
    k = kernel(cfg)
    o_agpr = waves == 1
    assert k.resources["agpr"] == 64 + (128 if o_agpr else 0)
    assert k.resources["vgpr"] <= 256
    # the unmasked arm whole key blocks run (several waves: split by the O-rescale branch,
    # its multiplies in loop_rescale, the PV MFMAs in loop_stable; pipe.RESCALE_BRANCH)
    blocks = {b.name: b for b in k.compiled.stream.blocks}
    assert (waves > 1) == ("loop_rescale" in blocks)
    body = [n.instr for n in steady_body(k)] + [
        n.instr for b in ("loop_rescale", "loop_stable") if b in blocks for n in blocks[b].nodes]
    mfmas = [i for i in body if i.op.startswith("v_mfma")]
    qk, pv = mfmas[:D // cfg.mfma_k], mfmas[D // cfg.mfma_k:]
    assert len(pv) == (32 // cfg.mfma_k) * (D // 32)
    assert all(i.operands[2].file == "a" and i.operands[0].file == "v" for i in qk)
    assert all(i.operands[0].file == i.operands[3].file == ("a" if o_agpr else "v") for i in pv)
    ops = [i.op for i in body]
    n_rw = D // 2 if o_agpr else 0
    assert ops.count("v_accvgpr_read_b32") == ops.count("v_accvgpr_write_b32") == n_rw
    assert ops.count("v_pk_mul_f32") == D // 4


def test_d256_limits():
    """fp8 at head_dim 256 is refused naming the value; gfx942's 64 KiB LDS holds two 32 KiB
    K/V buffers of D = 256, not three."""
    with pytest.raises(ConfigError, match="head_dim=256 with dtype='fp8_e4m3fnuz'"):
        C(head_dim=D, dtype="fp8_e4m3fnuz")
    with pytest.raises(ConfigError, match="LDS 98304 bytes"):
        C(head_dim=D, waves=4, kv_buffers=3)
    assert C(head_dim=D, waves=4, kv_buffers=3, arch="gfx950").lds_bytes == 98304
    # the 8-wave ping-pong loop (D128 only): its two waves per SIMD get 256 registers each
    for arch in ("gfx942", "gfx950"):
        with pytest.raises(ConfigError, match="head_dim=128, got head_dim=256: two waves per "
                                              "SIMD leave each 256"):
            C(head_dim=D, waves=8, kv_buffers=3, arch=arch)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_d256_defaults_are_legal(arch):
    """Every candidate ``asmgen attention`` tries at head_dim 256 without tuning flags is a
    config the generator accepts (none is the ping-pong loop), for every query length class,
    causal or not, the key mask kept or not; the first one is the 4-wave table row from 128
    query rows on."""
    from asmgen.kinds.attention.defaults import MASKED, TABLE, candidates
    for causal, mult, sq in itertools.product((False, True), (1, 32), (1, 100, 128, 256, 8192)):
        cands = candidates(arch, D, causal, sq, mult)
        for kw in cands:
            C(seqlen_q=sq, seqlen_k=8192, head_dim=D, dtype="bf16", causal=causal, arch=arch,
              seqlen_k_multiple=mult, waves=kw["waves"], kv_buffers=kw["kv_buffers"])
        assert all(kw["waves"] < 8 for kw in cands)
        if sq >= 128:
            row = MASKED[(arch, D)] if not causal and mult == 1 else TABLE[(arch, D, causal)]
            assert tuple(cands[0].values()) == row


@pytest.mark.parametrize("sq,sk", [(257, 17), (40, 1)])
def test_d256_lengths_are_runtime_arguments(sq, sk):
    """A D = 256 kernel generated for 128 x 128 runs at other lengths (causal, GQA)."""
    cfg = C(heads=2, kv_heads=1, seqlen_q=128, seqlen_k=128, head_dim=D, dtype="bf16",
            causal=True, waves=4, kv_buffers=2)
    ok, msg, _ = run_case(cfg, 1, "attn_basic", seqlen_q=sq, seqlen_k=sk)
    assert ok, msg


# every arch x dtype x causal x loop shape, lengths and GQA cycling through the cases
# (unaligned 17 x 100, 257 x 33 and the one-row, one-key case)
LENGTHS = ((17, 100), (257, 33), (1, 1))
WIDE = [
    (C(heads=2 if i % 2 else 1, kv_heads=1, seqlen_q=LENGTHS[i % 3][0],
       seqlen_k=LENGTHS[i % 3][1], head_dim=D, dtype=dt, causal=c, arch=a, waves=w,
       kv_buffers=b), s)
    for i, (a, dt, c, (w, b, s)) in enumerate(itertools.product(
        ("gfx942", "gfx950"), ("f16", "bf16"), (False, True),
        ((1, 1, "attn_interleave"), (1, 2, "attn_basic"), (2, 2, "attn_prio"),
         (4, 2, "attn_prio_interleave"))))
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", WIDE, ids=_id)
def test_d256_wide_matrix(case, seed):
    cfg, sched = case
    ok, msg, _ = run_case(cfg, seed, sched)
    assert ok, msg


def _rescale_run(cfg, sched, branch: bool, inp, seed):
    """({"O", "LSE"}, v_pk_mul_f32 executed per wave) of the one-workgroup kernel built with
    or without the O-rescale branch (``pipe.RESCALE_BRANCH``), on the emulator."""
    import numpy as np

    from asmgen.api import compile_attention, get_attention_recipe
    from asmgen.kinds.attention import pipe
    from asmgen.profiling.common import emulate_streams
    old, pipe.RESCALE_BRANCH = pipe.RESCALE_BRANCH, branch
    try:
        k = compile_attention(cfg, get_attention_recipe(sched))
    finally:
        pipe.RESCALE_BRANCH = old
    assert ("s_cbranch_vccz" in k.asm) == branch
    outs = {"O": np.zeros((1, 1, cfg.seqlen_q, D), inp["Q"].dtype),
            "LSE": np.zeros((1, 1, cfg.seqlen_q), np.float32)}
    streams = emulate_streams(k.meta, k.hsaco, {**inp, **outs}, seed)   # stores in place
    return outs, [sum(i.op == "v_pk_mul_f32" for i in s.instrs) for s in streams]


@pytest.mark.parametrize("arch,sched,masked,mode,seed", [
    ("gfx950", "attn_basic", False, "stable", 0), ("gfx942", "attn_prio_interleave", True,
                                                   "always", 1)])
def test_d256_rescale_branch_exact_and_taken(arch, sched, masked, mode, seed):
    """Four waves at head_dim 256 skip O *= alpha in the unmasked body when no row's max
    changed: with inputs steered to each path (``kinds.attention.rescale``) the path taken is
    the one claimed (64 v_pk_mul_f32 per rescaled block and wave: block 0, alpha = 0 from
    m = -inf, and a masked last block always rescale), the result matches NumPy and is
    bit-identical to the loop built without the branch."""
    import numpy as np

    from asmgen.kinds.attention import rescale
    from asmgen.kinds.attention.reference import attention_random_inputs, compare_attention
    cfg = C(arch=arch, dtype="bf16", waves=4, head_dim=D, seqlen_q=128,
            seqlen_k=128 - (6 if masked else 0), seqlen_k_multiple=1 if masked else 32)
    inp = rescale.steer(attention_random_inputs(cfg, seed), mode)
    out, counts = _rescale_run(cfg, sched, True, inp, seed)
    ok, msg = compare_attention(cfg, out, inp)
    assert ok, msg
    ref, ref_counts = _rescale_run(cfg, sched, False, inp, seed)
    for name in ("O", "LSE"):     # exact: the branch skips multiplies by 1.0 only
        assert np.array_equal(out[name].view(np.uint8), ref[name].view(np.uint8)), name
    per, blocks = D // 4, 4
    want = blocks if mode == "always" else 1 + int(masked)
    assert counts == [per * want] * 4, counts
    assert ref_counts == [per * blocks] * 4, ref_counts
