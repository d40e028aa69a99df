"""Decode attention (issue 17) on the emulator against the float64 NumPy reference, both arches,
two seeds: dense and paged (page sizes 16 and 64) KV caches, MHA and GQA, 1 and several query
tokens, context lengths from 1 to a few hundred (aligned to the 32-key block and not, shorter
than the query tokens), one split (o, lse) and several (the partials, then the combine kernel
end to end). Every cache entry no sequence may read is NaN (``decode_random_inputs``)."""
from __future__ import annotations

import numpy as np
import pytest
from decode_util import COMBINE, DECODE, run_combine, run_decode

from asmgen.kinds.decode.config import DecodeConfig
from asmgen.kinds.decode.reference import compare_combine, compare_decode, decode_reference

ARCHES = ("gfx942", "gfx950")
SEEDS = (1, 2)

# (config keywords, context lengths per sequence)
CASES = {
    "mha_t1_d64": (dict(heads=2, q_tokens=1, head_dim=64, dtype="bf16", max_context=96,
                        num_splits=1), [1, 32, 96]),
    "gqa4_t4_d128_split3": (dict(heads=8, kv_heads=2, q_tokens=4, head_dim=128, dtype="f16",
                                 max_context=300, num_splits=3), [3, 64, 300]),
    "gqa8_t16_rowblocks": (dict(heads=8, kv_heads=1, q_tokens=16, head_dim=64, dtype="bf16",
                                max_context=160, num_splits=2), [16, 97]),
    "paged16_gqa2_t3": (dict(heads=4, kv_heads=2, q_tokens=3, head_dim=64, dtype="bf16",
                             max_context=176, paged=True, page_size=16, num_splits=2),
                        [2, 33, 176]),
    "paged64_mha_t1_d128": (dict(heads=2, q_tokens=1, head_dim=128, dtype="bf16",
                                 max_context=256, paged=True, page_size=64, num_splits=1),
                            [1, 130, 256]),
}


def _cfg(name: str, arch: str) -> tuple[DecodeConfig, list]:
    kw, lens = CASES[name]
    return DecodeConfig(batch=len(lens), arch=arch, **kw), lens


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_decode_matches_reference(case, arch, seed):
    cfg, lens = _cfg(case, arch)
    inp, out = run_decode(cfg, seed, lens)
    ok, msg = compare_decode(cfg, out, inp)
    assert ok, msg
    if cfg.num_splits > 1:     # the combine kernel finishes the job: o, lse of the whole context
        fin = run_combine(cfg, out, seed)
        o_ref, lse_ref = decode_reference(cfg, inp)
        ccfg = DECODE.combine_config(cfg)
        ok, msg = compare_combine(ccfg, fin, {"o_partial": out["o_partial"],
                                             "lse_partial": out["lse_partial"]})
        assert ok, msg
        err = float(np.abs(np.asarray(fin["o"], np.float64) - o_ref).max())
        assert err <= 12 * COMBINE_EPS[cfg.dtype], f"end to end max|O - ref| = {err}"
        fin_l = np.asarray(fin["lse"], np.float64)
        assert np.array_equal(np.isneginf(fin_l), np.isneginf(lse_ref))
        f = np.isfinite(lse_ref)
        assert np.allclose(fin_l[f], lse_ref[f], rtol=1e-5, atol=1e-5)


COMBINE_EPS = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11}


def test_rows_that_see_no_key_are_zero_with_lse_minus_inf():
    """Context 2 with 4 query tokens: tokens 0 and 1 see no key (O = 0, LSE = -inf)."""
    cfg = DecodeConfig(batch=1, heads=2, kv_heads=1, q_tokens=4, head_dim=64, max_context=64,
                       num_splits=1)
    inp, out = run_decode(cfg, 3, [2])
    ok, msg = compare_decode(cfg, out, inp)
    assert ok, msg
    assert np.isneginf(out["lse"][0, :2]).all() and np.isfinite(out["lse"][0, 2:]).all()
    assert not np.asarray(out["o"][0, :2], np.float64).any()


@pytest.mark.parametrize("paged", [False, True])
def test_an_empty_sequence_reads_nothing(paged):
    """context_lens 0 (an empty sequence in the batch, e.g. a finished request's slot): every
    row of it is O = 0, LSE = -inf; the other sequences are unaffected."""
    cfg = DecodeConfig(batch=3, heads=2, kv_heads=1, q_tokens=2, head_dim=64, max_context=64,
                       num_splits=1 if paged else 2, paged=paged, page_size=16)
    inp, out = run_decode(cfg, 1, [0, 17, 64])
    ok, msg = compare_decode(cfg, out, inp)
    assert ok, msg
    lse = out["lse"] if cfg.num_splits == 1 else out["lse_partial"]
    assert np.isneginf(lse[0]).all() and np.isfinite(lse[2]).any()


# a wider matrix (--runslow; a 1-in-8 shard runs by default): every legal page size, more tokens
# and groups, more splits, f16 and bf16, lengths around the block and page boundaries
SLOW = [
    (dict(heads=8, kv_heads=2, q_tokens=16, head_dim=64, dtype="f16", max_context=256,
          paged=True, page_size=32, num_splits=4), [1, 31, 200, 256]),
    (dict(heads=4, kv_heads=4, q_tokens=5, head_dim=128, dtype="bf16", max_context=256,
          paged=True, page_size=128, num_splits=3), [129, 255]),
    (dict(heads=6, kv_heads=2, q_tokens=1, head_dim=128, dtype="f16", max_context=512,
          paged=True, page_size=256, num_splits=2), [300, 511]),
    (dict(heads=16, kv_heads=2, q_tokens=4, head_dim=64, dtype="bf16", max_context=192,
          num_splits=5, prefetch=0), [33, 160, 192]),
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", range(len(SLOW)))
def test_decode_wide_matrix(case, arch, seed):
    kw, lens = SLOW[case]
    cfg = DecodeConfig(batch=len(lens), arch=arch, **kw)
    inp, out = run_decode(cfg, seed, lens)
    ok, msg = compare_decode(cfg, out, inp)
    assert ok, msg


def test_a_wrong_output_is_caught():
    cfg, lens = _cfg("mha_t1_d64", "gfx942")
    inp, out = run_decode(cfg, 1, lens)
    o = np.array(out["o"])
    o[1, 0, 1, 63] += 0.25
    ok, _ = compare_decode(cfg, {"o": o, "lse": out["lse"]}, inp)
    assert not ok


def test_combine_kind_on_random_partials():
    for arch in ARCHES:
        from decode_util import kernel

        from asmgen.kinds.decode.merge import CombineConfig
        from asmgen.runtime.emu import EmuRunner
        cfg = CombineConfig(batch=2, heads=5, q_tokens=3, head_dim=128, dtype="bf16",
                            num_splits=4, arch=arch)
        k = kernel(cfg)
        for seed in SEEDS:
            inp = COMBINE.random_inputs(cfg, seed)
            ok, msg = COMBINE.compare(cfg, EmuRunner(k.meta, k.hsaco)(**inp), inp)
            assert ok, msg
