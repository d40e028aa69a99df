"""Extend attention (issue 17) on the emulator against the float64 NumPy reference, both arches,
two seeds: packed batches of new tokens (cu_seqlens_q) with empty and length-1 sequences over
cached prefixes of 0, 1, block-aligned and unaligned lengths up to 300 keys, dense and paged KV
caches (pages of 16 and 64), MHA and GQA, both head dims and dtypes. Every cache entry no
sequence may read is NaN (``extend_random_inputs``), so a stray read fails the comparison."""
from __future__ import annotations

import numpy as np
import pytest
from extend_util import CASES, kernel, run_extend

from asmgen.kinds.extend.config import ExtendConfig
from asmgen.kinds.extend.reference import compare_extend, extend_reference

ARCHES = ("gfx942", "gfx950")
SEEDS = (1, 2)



def _cfg(name: str, arch: str):
    kw, ql, cl = CASES[name]
    return ExtendConfig(batch=len(ql), arch=arch, **kw), ql, cl


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_extend_matches_reference(case, arch, seed):
    cfg, ql, cl = _cfg(case, arch)
    assert kernel(cfg).hsaco                       # assembled by LLVM
    inp, out = run_extend(cfg, seed, ql, cl)
    ok, msg = compare_extend(cfg, out, inp)
    assert ok, msg
    # every new token sees at least its own key (context_lens >= q_len here)
    assert np.isfinite(np.asarray(out["lse"])).all()


def test_prefix_and_causality_matter():
    """The reference is not trivially met: dropping the prefix (keys = the new tokens only) or
    the causal mask changes O; the kernel's output matches neither wrong reading."""
    cfg, ql, cl = _cfg("dense_gqa2_d64_bf16", "gfx942")
    inp, out = run_extend(cfg, 3, ql, cl)
    o = np.asarray(out["o"], np.float64)
    ref, _ = extend_reference(cfg, inp)
    assert np.abs(o - ref).max() < 0.03
    # no prefix: every sequence's context is its new tokens, the cache rows shifted down
    shifted = dict(inp)
    for n in ("k_cache", "v_cache"):
        c = np.array(inp[n])
        for b, (q, L) in enumerate(zip(ql, cl)):
            c[b, :q] = inp[n][b, L - q:L]
        shifted[n] = c
    shifted["context_lens"] = np.array(ql, np.int32)
    no_prefix, _ = extend_reference(cfg, shifted)
    assert np.abs(o - no_prefix).max() > 0.05
    # not causal: the last new token's view for every token
    full = dict(inp, cu_seqlens_q=inp["cu_seqlens_q"])
    lens = np.array(cl, np.int32)
    diff = 0.0
    for b, (q, L) in enumerate(zip(ql, cl)):
        if q > 1:
            c0 = int(inp["cu_seqlens_q"][b])
            one = dict(full, cu_seqlens_q=np.array([0, 1], np.int32),
                       context_lens=lens[b:b + 1], q=inp["q"][:, c0:c0 + 1],
                       k_cache=inp["k_cache"][b:b + 1], v_cache=inp["v_cache"][b:b + 1])
            ob, _ = extend_reference(cfg, one)     # token 0 seeing all L keys
            diff = max(diff, float(np.abs(o[:, c0] - ob[:, 0]).max()))
    assert diff > 0.05


def test_launch_checks_name_the_value_and_the_limit():
    """Every bad length is a typed LaunchError naming it: fewer keys than new tokens (their K/V
    must be in the cache), a context past max_context or negative, cu_seqlens_q decreasing,
    max_seqlen_q below a sequence (the grid would miss Q-blocks) or above max_context, a
    block table of the wrong shape."""
    from asmgen.runtime.launch import LaunchError, plan_launch
    cfg = ExtendConfig(batch=2, heads=2, head_dim=64, seqlen_q=8, max_context=64, paged=True,
                       page_size=16)
    meta = kernel(cfg).meta
    from asmgen.kinds.extend.reference import extend_random_inputs
    inp = extend_random_inputs(cfg, 1, [8, 3], [8, 40])
    plan_launch(meta, inp)
    bad = [({"context_lens": np.array([5, 40], np.int32)},
            r"context_lens\[0\] = 5 below the 8 new tokens"),
           ({"context_lens": np.array([8, 65], np.int32)}, r"context_lens\[1\] = 65.*\[0, 64\]"),
           ({"context_lens": np.array([-1, 40], np.int32)}, r"context_lens\[0\] = -1"),
           ({"cu_seqlens_q": np.array([0, 9, 5], np.int32)}, "non-decreasing"),
           ({"max_seqlen_q": 4}, "max_seqlen_q = 4 below sequence 0's 8 tokens"),
           ({"max_seqlen_q": 65}, r"max_seqlen_q in \[1, 64\]"),
           ({"block_table": np.zeros((2, 3), np.int32)}, "block_table"),
           ({"num_blocks": 0}, "num_blocks")]
    for change, msg in bad:
        with pytest.raises(LaunchError, match=msg):
            plan_launch(meta, dict(inp, **change))


def test_rows_past_the_packed_tokens_are_untouched_and_q_blocks_exit_early():
    """total_q larger than cu_seqlens_q[-1]: those rows of o / lse keep the caller's values; the
    kernel ends Q-blocks past their sequence with the early s_endpgm."""
    cfg = ExtendConfig(batch=2, heads=2, kv_heads=1, head_dim=64, seqlen_q=40, max_context=96,
                       dtype="f16")
    k = kernel(cfg)
    assert k.asm.count("s_endpgm") == 2
    inp0, _ = run_extend(cfg, 5, [2, 40], [30, 96])
    pad = 16
    h, tq, d = inp0["q"].shape
    q = np.concatenate([inp0["q"], np.ones((h, pad, d), inp0["q"].dtype)], axis=1)
    o0 = np.full((h, tq + pad, d), 7.0, q.dtype)
    l0 = np.full((h, tq + pad), 7.0, np.float32)
    inp = dict(inp0, q=q, total_q=tq + pad)
    from asmgen.runtime.emu import EmuRunner
    out = EmuRunner(k.meta, k.hsaco, seed=5)(**inp, o=o0, lse=l0)
    o, lse = np.asarray(out["o"]), np.asarray(out["lse"])
    assert np.all(o[:, tq:] == 7.0) and np.all(lse[:, tq:] == 7.0)
    ref_o, ref_l = extend_reference(cfg, dict(inp0))
    assert np.abs(o[:, :tq].astype(np.float64) - ref_o).max() < 4e-3
    assert np.allclose(lse[:, :tq], ref_l, rtol=1e-4)
