"""fp8 varlen prefill (issue 17): ``AttentionConfig(dtype=<the arch's fp8>, varlen=True)``,
packed batches in FlashAttention's varlen convention (``cu_seqlens_q`` / ``cu_seqlens_k``,
heads-major as the 16-bit varlen kernel), per-tensor ``q_scale`` / ``k_scale`` / ``v_scale``, P
quantised with the max-finite offset. On the emulator against the per-sequence fp8 reference
(``fp8ref.fp8_varlen_reference``, which models P's quantisation), both arches, two seeds: an
empty sequence, a length-1 one, one with queries and no key, one longer than the generated
max_seqlen, unaligned lengths; causal and not, GQA and MHA, one wave and two (K/V through LDS),
D 64 and 128. The same outputs fail when the reference drops any scale or the P offset; rows of
no sequence and keyless rows are O = 0, LSE = -inf; the contract, the CLI and ``asmgen check``.
The default run takes one slice (each arch, seed and layout once); the rest is ``slow``."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from attn_util import kernel

from asmgen.api import EmuRunner
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.contract import attention_args
from asmgen.kinds.attention.fp8ref import DROPS, compare_fp8
from asmgen.kinds.attention.reference import fp8_varlen_random_inputs

FP8 = {"gfx942": "fp8_e4m3fnuz", "gfx950": "fp8_e4m3"}
# sequence 1 is empty, 2 has one token, 4 has queries but no key, 3 is longer than seqlen_q
LENS_Q = [37, 0, 1, 70, 5]
LENS_K = [50, 3, 1, 33, 0]
KEYLESS = slice(108, 113)      # sequence 4's packed rows

# (arch, head_dim, causal, extra config), the default slice marked
CASES = [
    ("gfx942", 64, False, {"heads": 4, "kv_heads": 2}, True),
    ("gfx942", 128, True, {"heads": 2}, False),
    ("gfx942", 64, True, {"heads": 2, "kv_heads": 1, "waves": 2, "kv_buffers": 3}, False),
    ("gfx950", 64, True, {"heads": 4, "kv_heads": 2, "waves": 2, "kv_buffers": 2}, True),
    ("gfx950", 128, False, {"heads": 2, "kv_heads": 1}, False),
    ("gfx950", 128, True, {"heads": 2}, False),
]


def _params():
    for arch, d, causal, extra, default in CASES:
        for seed in (0, 1):
            marks = () if default else (pytest.mark.slow,)
            yield pytest.param(arch, d, causal, extra, seed, marks=marks,
                               id=f"{arch}-d{d}-{'causal' if causal else 'full'}-"
                                  f"w{extra.get('waves', 1)}-{seed}")


def _cfg(arch, d, causal, extra):
    return AttentionConfig(batch=len(LENS_Q), seqlen_q=64, seqlen_k=64, head_dim=d,
                           causal=causal, arch=arch, dtype=FP8[arch], varlen=True, **extra)


@pytest.mark.parametrize(("arch", "d", "causal", "extra", "seed"), _params())
def test_fp8_varlen_matches_reference_and_needs_every_scale(arch, d, causal, extra, seed):
    cfg = _cfg(arch, d, causal, extra)
    k = kernel(cfg)
    assert k.hsaco[:4] == b"\x7fELF" and "v_mfma_f32_32x32x16_fp8_fp8" in k.asm
    inp = fp8_varlen_random_inputs(cfg, seed, LENS_Q, LENS_K)
    assert inp["Q"].dtype.name.startswith("float8") and inp["total_q"] == sum(LENS_Q)
    out = EmuRunner(copy.deepcopy(k.meta), k.hsaco, seed=seed)(**inp)
    ok, msg = compare_fp8(cfg, out, inp)
    assert ok, msg
    lse = np.asarray(out["LSE"])
    assert np.all(np.isneginf(lse[:, KEYLESS]))                # queries without a key
    assert np.all(np.asarray(out["O"], np.float64)[:, KEYLESS] == 0.0)
    if not causal:                  # every other row sees a key (causal: sequence 3's first 37
        assert np.isfinite(lse[:, :KEYLESS.start]).all()        # rows precede its 33 keys)
    for drop in DROPS:
        bad, msg = compare_fp8(cfg, out, inp, drop)
        assert not bad, f"the reference without {drop} still matches: {msg}"


def test_contract_is_the_varlen_one_with_the_fp8_scales():
    cfg = _cfg("gfx942", 64, True, {"heads": 4, "kv_heads": 2})
    args = {a.name: a for a in attention_args(cfg)}
    assert args["Q"].dims == ("heads", "total_q", 64) and args["K"].dims == ("kv_heads",
                                                                             "total_k", 64)
    assert args["Q"].dtype == args["K"].dtype == "fp8_e4m3fnuz" and args["O"].dtype == "bf16"
    assert args["cu_seqlens_q"].dims == args["cu_seqlens_k"].dims == ("batch+1",)
    assert list(args)[-3:] == ["q_scale", "k_scale", "v_scale"]
    assert cfg.name.endswith("_varlen")


def test_cli_generates_and_checks_fp8_varlen(tmp_path, capsys):
    from asmgen.cli import main
    argv = ["attention", "--arch", "gfx950", "--batch", "3", "--heads", "2", "--seqlen-q", "40",
            "--seqlen-k", "70", "--head-dim", "64", "--dtype", "fp8_e4m3", "--varlen",
            "--causal", "-o", str(tmp_path)]
    assert main(argv) == 0
    (js,) = tmp_path.glob("*.json")
    meta = json.loads(js.read_text())
    assert meta["config"]["varlen"] and meta["config"]["dtype"] == "fp8_e4m3"
    capsys.readouterr()
    assert main(["check", str(js), "--seed", "2"]) == 0         # ragged lengths from the seed
    assert "OK attn_fwd_gfx950_fp8_e4m3" in capsys.readouterr().out
