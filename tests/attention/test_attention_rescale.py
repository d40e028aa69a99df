"""The ping-pong loop's O-rescale branch (``pingpong.rescale_unless_stable``): O *= alpha is
skipped when no row of the wave changed its max, exactly (alpha = 1 there, ``softmax.
TailOptions.exact_alpha``). On the emulator against the float64 reference with inputs steered
to each path (``kinds.attention.rescale``: every block raises every max / the max sits in key
0), each path is the one taken (the rescale's v_pk_mul_f32 count per wave), and O and LSE are
bit-identical to the same loop built without the branch (``pingpong.RESCALE_BRANCH = False``).

Default run: gfx942 bf16 with the key mask and gfx950 f16 without, two seeds, both modes;
``--runslow`` adds the other arch / dtype / mask combinations."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from asmgen.api import compile_attention, get_attention_recipe
from asmgen.kinds.attention import pingpong, rescale
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.reference import attention_random_inputs, compare_attention

PP = "attn_pingpong"
_BUILT: dict = {}


def _kernel(cfg, branch: bool):
    key = (cfg, branch)
    if key not in _BUILT:
        old = pingpong.RESCALE_BRANCH
        pingpong.RESCALE_BRANCH = branch
        try:
            _BUILT[key] = compile_attention(cfg, get_attention_recipe(PP))
        finally:
            pingpong.RESCALE_BRANCH = old
    return _BUILT[key]


def _emulate(k, cfg, inp, seed=0):
    """The kernel's one workgroup (batch 1, heads 1, 256 rows: the whole grid) on the emulator
    with trace on: ({"O", "LSE"} as it stored them, v_pk_mul_f32 executed per wave; only the O
    rescale uses it, 8 per 32 head dims and block)."""
    from asmgen.profiling.common import emulate_streams
    outs = {"O": np.zeros((1, 1, cfg.seqlen_q, cfg.head_dim), inp["Q"].dtype),
            "LSE": np.zeros((1, 1, cfg.seqlen_q), np.float32)}
    streams = emulate_streams(k.meta, k.hsaco, {**inp, **outs}, seed)   # stores in place
    return outs, [sum(i.op == "v_pk_mul_f32" for i in s.instrs) for s in streams]


def _cfg(arch, dtype, masked, blocks=4):
    # one 8-wave workgroup of 256 rows; whole key blocks, or a partial last one (6 keys short)
    return AttentionConfig(arch=arch, dtype=dtype, waves=8, head_dim=128, seqlen_q=256,
                           seqlen_k=32 * blocks - (6 if masked else 0),
                           seqlen_k_multiple=1 if masked else 32)


def _check(arch, dtype, masked, mode, seed):
    cfg = _cfg(arch, dtype, masked)
    inp = rescale.steer(attention_random_inputs(cfg, seed), mode)
    k, ref_k = _kernel(cfg, True), _kernel(cfg, False)
    assert "s_cbranch_vccz" in k.asm and "s_cbranch_vccz" not in ref_k.asm
    out, counts = _emulate(k, cfg, inp, seed)
    ok, msg = compare_attention(cfg, out, inp)
    assert ok, msg
    ref, ref_counts = _emulate(ref_k, cfg, inp, seed)
    for name in ("O", "LSE"):     # exact: the branch skips multiplies by 1.0 only
        assert np.array_equal(out[name].view(np.uint8), ref[name].view(np.uint8)), name
    per = 8 * cfg.head_dim // 32           # v_pk_mul_f32 per rescaled block
    blocks = -(-cfg.seqlen_k // 32)
    # always: every block; stable: block 0 (alpha = 0 from m = -inf) and a masked last block
    # (its body always rescales, kvloop)
    want = blocks if mode == "always" else 1 + int(masked)
    assert counts == [per * want] * 8, counts
    assert ref_counts == [per * blocks] * 8, ref_counts


ALL = [(*c, m, sd) for c in itertools.product(("gfx942", "gfx950"), ("f16", "bf16"),
                                                 (False, True))
       for m in rescale.MODES for sd in (0, 1)]
# default: each arch once with the key mask and once without, both modes, both seeds
FAST = [("gfx942", "bf16", True, "always", 0), ("gfx942", "bf16", True, "stable", 1),
        ("gfx950", "f16", False, "stable", 0), ("gfx950", "f16", False, "always", 1)]
SLOW = [c for c in ALL if c not in FAST]


@pytest.mark.parametrize("arch,dtype,masked,mode,seed", FAST)
def test_rescale_branch_exact_and_taken(arch, dtype, masked, mode, seed):
    _check(arch, dtype, masked, mode, seed)


@pytest.mark.slow
@pytest.mark.parametrize("arch,dtype,masked,mode,seed", SLOW)
def test_rescale_branch_exact_and_taken_wide(arch, dtype, masked, mode, seed):
    _check(arch, dtype, masked, mode, seed)


def test_random_data_rescales_in_most_blocks():
    """Uniform random scores (the profile's default data before this) change some row's max in
    almost every one of a few blocks: the always-rescale figure is the one such data measure."""
    cfg = _cfg("gfx950", "bf16", False, blocks=8)
    inp = attention_random_inputs(cfg, 0)
    _, counts = _emulate(_kernel(cfg, True), cfg, inp)
    assert min(counts) >= 32 * 6, counts      # at least 6 of the 8 blocks


def test_steer_refuses_unknown_mode_and_too_many_blocks():
    cfg = _cfg("gfx950", "bf16", False)
    inp = attention_random_inputs(cfg, 0)
    with pytest.raises(ValueError, match="one of"):
        rescale.steer(inp, "sometimes")
    big = dict(inp, K=np.zeros((1, 1, 32 * 57, 128), inp["K"].dtype))
    with pytest.raises(ValueError, match="56"):
        rescale.steer(big, "always")
    vals = [rescale.key_value(j) for j in range(rescale.MAX_BLOCKS)]
    assert all(a < b for a, b in zip(vals, vals[1:]))
