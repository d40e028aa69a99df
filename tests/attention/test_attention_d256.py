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
    body = [n.instr for n in steady_body(k)]      # the unmasked arm whole key blocks run
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
