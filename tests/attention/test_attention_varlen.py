"""Varlen prefill attention (``AttentionConfig.varlen``): packed batches described by
cu_seqlens_q / cu_seqlens_k, run on the emulator against the per-sequence NumPy reference
(empty and length-1 sequences, a sequence with no key, one longer than the generated
max_seqlen), the early exit of Q-blocks past their sequence, and the launch checks."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from asmgen.api import EmuRunner
from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.reference import (attention_reference, compare_attention,
                                              varlen_random_inputs, varlen_reference,
                                              varlen_scalars)
from asmgen.runtime.launch import LaunchError, plan_launch

from attn_util import kernel

# sequence 1 is empty, 2 has one token, 4 has queries but no key, 3 is longer than seqlen_q
LENS_Q = [37, 0, 1, 70, 5]
LENS_K = [50, 3, 1, 33, 0]

CASES = [("gfx942", False, 1), ("gfx942", True, 1), ("gfx950", True, 2), ("gfx950", False, 1)]


def _cfg(arch, causal, waves, **kw):
    return AttentionConfig(batch=len(LENS_Q), heads=2, kv_heads=1, seqlen_q=64, seqlen_k=64,
                           causal=causal, arch=arch, waves=waves, varlen=True, **kw)


@pytest.mark.parametrize("arch,causal,waves", CASES)
def test_varlen_matches_reference(arch, causal, waves):
    cfg = _cfg(arch, causal, waves)
    k = kernel(cfg)                       # assembled (compile_attention assembles)
    assert k.hsaco
    for seed in (0, 1):
        inp = varlen_random_inputs(cfg, seed, LENS_Q, LENS_K)
        out = EmuRunner(copy.deepcopy(k.meta), k.hsaco, seed=seed)(**varlen_scalars(inp), **inp)
        ok, msg = compare_attention(cfg, out, inp)
        assert ok, msg
        # the sequence without keys: O = 0, LSE = -inf (a real check, not only via compare)
        assert np.all(np.isneginf(np.asarray(out["LSE"])[:, 108:113]))


def test_padding_rows_untouched_and_early_exit():
    """Rows past cu_seqlens_q[-1] (total_q larger than the packed tokens) keep the caller's
    values: no workgroup stores outside its sequence; the kernel has the exit s_endpgm."""
    cfg = _cfg("gfx942", True, 1)
    k = kernel(cfg)
    assert k.asm.count("s_endpgm") == 2            # the early exit and the kernel's end
    inp = varlen_random_inputs(cfg, 3, [1, 0, 40], [2, 5, 40])
    pad = 24
    h, tq, d = inp["Q"].shape
    inp["Q"] = np.concatenate([inp["Q"], np.ones((h, pad, d), inp["Q"].dtype)], axis=1)
    sc = varlen_scalars(inp)
    o0 = np.full((h, tq + pad, d), 7.0, inp["Q"].dtype)
    l0 = np.full((h, tq + pad), 7.0, np.float32)
    out = EmuRunner(copy.deepcopy(k.meta), k.hsaco, seed=3)(**sc, **inp, O=o0, LSE=l0)
    o, lse = np.asarray(out["O"]), np.asarray(out["LSE"])
    assert np.all(o[:, tq:] == 7.0) and np.all(lse[:, tq:] == 7.0)
    ref_o, ref_l = varlen_reference(inp["Q"][:, :tq], inp["K"], inp["V"], inp["cu_seqlens_q"],
                                    inp["cu_seqlens_k"], cfg.scale, True)
    assert np.abs(o[:, :tq].astype(np.float64) - ref_o).max() < 4e-3
    assert np.allclose(lse[:, :tq], ref_l, rtol=1e-4)


def test_varlen_reference_is_per_sequence():
    """The reference of two packed sequences equals the dense reference of each."""
    rng = np.random.default_rng(0)
    q, kk, v = (rng.uniform(-1, 1, (2, n, 16)) for n in (9, 11, 11))
    cu_q, cu_k = np.array([0, 4, 9]), np.array([0, 6, 11])
    o, lse = varlen_reference(q, kk, v, cu_q, cu_k, 0.3, True)
    for b in range(2):
        sq, sk = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        ob, lb = attention_reference(q[None, :, sq], kk[None, :, sk], v[None, :, sk], 0.3, True)
        assert np.allclose(o[:, sq], ob[0]) and np.allclose(lse[:, sq], lb[0])


def _plan(meta, inp, **over):
    vals = dict(varlen_scalars(inp), **inp)
    vals.update(over)
    return plan_launch(meta, vals)


def test_launch_checks_cu_seqlens():
    cfg = _cfg("gfx942", False, 1)
    meta = kernel(cfg).meta
    inp = varlen_random_inputs(cfg, 0, LENS_Q, LENS_K)
    plan = _plan(meta, inp)
    assert plan.grid == (-(-70 // 32), 2, len(LENS_Q))      # max_seqlen_q over 32 rows, heads, batch
    bad = inp["cu_seqlens_q"].copy()
    bad[2] = bad[1] - 1
    with pytest.raises(LaunchError, match="non-decreasing"):
        _plan(meta, inp, cu_seqlens_q=bad)
    with pytest.raises(LaunchError, match="cu_seqlens_k"):
        _plan(meta, inp, cu_seqlens_k=inp["cu_seqlens_k"][:-1])        # batch + 1 entries
    big = inp["cu_seqlens_k"].copy()
    big[-1] += 1
    with pytest.raises(LaunchError, match="total_k"):
        _plan(meta, inp, cu_seqlens_k=big)
    first = inp["cu_seqlens_q"] + 1
    with pytest.raises(LaunchError, match="start at 0"):
        _plan(meta, inp, cu_seqlens_q=first, total_q=int(first[-1]),
              Q=np.zeros((2, int(first[-1]), 64), inp["Q"].dtype))


def test_varlen_config_rules():
    with pytest.raises(ConfigError, match="varlen"):
        _cfg("gfx942", False, 1, seqlen_k_multiple=32)
    with pytest.raises(ConfigError, match="varlen"):
        AttentionConfig(varlen=1)
    assert _cfg("gfx942", False, 1).name.endswith("_varlen")


def test_cli_varlen_generate_and_check(tmp_path, capsys):
    """``asmgen attention --varlen`` writes the varlen contract; ``asmgen check`` runs it against
    the reference at its sizes (ragged lengths drawn from the seed) and at a smaller batch /
    max_seqlen (lengths drawn again), and refuses --size of a packed total (exit 2, named)."""
    import json

    from asmgen.cli import main
    rc = main(["attention", "--batch", "3", "--heads", "2", "--seqlen-q", "40", "--seqlen-k", "24",
               "--head-dim", "64", "--causal", "--varlen", "-o", str(tmp_path)])
    assert rc == 0
    path = next(tmp_path.glob("*.json"))
    meta = json.loads(path.read_text())
    names = [a["name"] for a in meta["args"]]
    assert names[5:7] == ["cu_seqlens_q", "cu_seqlens_k"] and "max_seqlen_q" in names
    assert meta["grid_from"][2] == ["max_seqlen_q", 32] and meta["grid"] == [2, 3, 2]
    assert main(["check", str(path), "--seed", "1"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["check", str(path), "--size", "batch=2", "--size", "max_seqlen_k=17"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["check", str(path), "--size", "total_q=5"]) == 2
    assert "--size total_q" in capsys.readouterr().err
