"""Per-token fp8 KV scales in decode (issue 17, ``kv_scale="token"``): one f32 k_scale and
v_scale per (key, KV head) in AITER's layout (paged ``[num_blocks, kv_heads, page_size]``, dense
``[batch, kv_heads, max_context]``), applied to the scores and to P. On the emulator against the
NumPy reference, both arches, two seeds: dense and paged 16/64, GQA and MHA, 1-3 query tokens,
one split and several (then ``decode_combine`` end to end), prefetch 0 and 1, context lengths
from 1 to a few hundred (aligned and not). Unreadable scale entries are NaN. The same outputs
fail against a reference that replaces either per-token scale by its mean; the kernels are LLVM
code objects; the contract, the CLI and the typed errors."""
from __future__ import annotations

import json

import numpy as np
import pytest
from decode_util import DECODE, kernel, run_combine, run_decode

from asmgen.cli import main
from asmgen.dtypes import DTYPES
from asmgen.errors import ConfigError
from asmgen.kinds.decode.config import KV_FP8, DecodeConfig
from asmgen.kinds.decode.contract import decode_args
from asmgen.kinds.decode.reference import compare_combine, compare_decode, decode_reference

ARCHES = ("gfx942", "gfx950")
SEEDS = (1, 2)
COMBINE_EPS = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11}


def fp8_of(arch: str) -> str:
    (name,) = [n for n in KV_FP8 if arch in DTYPES[n].arches]
    return name


CASES = {
    "dense_gqa2_t1_d64_pf1": (dict(heads=4, kv_heads=2, q_tokens=1, head_dim=64, dtype="bf16",
                                   max_context=96), [1, 45, 96]),
    "dense_mha_t3_d128_split2_pf0": (dict(heads=2, q_tokens=3, head_dim=128, dtype="f16",
                                          max_context=192, num_splits=2, prefetch=0),
                                     [3, 100, 192]),
    "paged16_gqa4_t3_d128_split2_pf1": (dict(heads=8, kv_heads=2, q_tokens=3, head_dim=128,
                                             dtype="bf16", max_context=160, paged=True,
                                             page_size=16, num_splits=2), [3, 50, 160]),
    "paged16_gqa2_t2_d64_pf1_split3": (dict(heads=4, kv_heads=2, q_tokens=2, head_dim=64,
                                            dtype="f16", max_context=224, paged=True,
                                            page_size=16, num_splits=3), [2, 33, 224]),
    "paged64_mha_t2_d64_pf1": (dict(heads=2, q_tokens=2, head_dim=64, dtype="bf16",
                                    max_context=256, paged=True, page_size=64, num_splits=1),
                               [2, 100, 256]),
}


def _cfg(case: str, arch: str):
    kw, lens = CASES[case]
    kw = {"num_splits": 1, **kw}
    return DecodeConfig(batch=len(lens), arch=arch, kv_dtype=fp8_of(arch), kv_scale="token",
                        **kw), lens


def _mean(inp, n):
    """The per-token scale replaced by its mean over the readable entries (a per-tensor one)."""
    return {**inp, n: float(np.nanmean(np.asarray(inp[n], np.float64)))}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_token_scales_match_reference_and_the_mean_does_not(case, arch, seed):
    cfg, lens = _cfg(case, arch)
    inp, out = run_decode(cfg, seed, lens)
    assert inp["k_scale"].shape == inp["v_scale"].shape == \
        ((cfg.num_blocks, cfg.kv_heads, cfg.page_size) if cfg.paged
         else (cfg.batch, cfg.kv_heads, cfg.max_context))
    assert np.isnan(inp["v_scale"]).any()            # unreadable entries are NaN
    ok, msg = compare_decode(cfg, out, inp)
    assert ok, msg
    for n in ("k_scale", "v_scale"):
        bad, msg = compare_decode(cfg, out, _mean(inp, n))
        assert not bad, f"reference with the mean {n} still matches: {msg}"
    if cfg.num_splits > 1:
        fin = run_combine(cfg, out, seed)
        parts = {n: out[n] for n in ("o_partial", "lse_partial")}
        ok, msg = compare_combine(DECODE.combine_config(cfg), fin, parts)
        assert ok, msg
        o_ref, lse_ref = decode_reference(cfg, inp)
        err = float(np.abs(np.asarray(fin["o"], np.float64) - o_ref).max())
        assert err <= 12 * COMBINE_EPS[cfg.dtype] * max(1.0, float(np.abs(o_ref).max())), err
        lse = np.asarray(fin["lse"], np.float64)
        assert np.array_equal(np.isneginf(lse), np.isneginf(lse_ref))
        f = np.isfinite(lse_ref)
        assert np.allclose(lse[f], lse_ref[f], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("max_context,lens", [(63, [17, 62, 63]), (61, [1, 60, 61])])
def test_dense_token_scales_with_max_context_not_a_multiple_of_4(max_context, lens):
    """The last row's 4-key scale group passes the array's end (the last batch has the full
    context, so that group has in-range dwords): its dwords past the context are
    out of range (num_records ends at the context) and, per the CDNA3 ISA's per-component range
    check, read 0 without touching memory, so the emulator accepts it and the result matches."""
    cfg = DecodeConfig(batch=len(lens), arch="gfx942", kv_dtype=fp8_of("gfx942"), kv_scale="token",
                       heads=4, kv_heads=2, q_tokens=1, head_dim=64, dtype="bf16",
                       max_context=max_context, num_splits=1)
    inp, out = run_decode(cfg, 1, lens)
    assert inp["k_scale"].shape == (len(lens), 2, max_context)
    ok, msg = compare_decode(cfg, out, inp)
    assert ok, msg
    for n in ("k_scale", "v_scale"):
        bad, msg = compare_decode(cfg, out, _mean(inp, n))
        assert not bad, f"reference with the mean {n} still matches: {msg}"


@pytest.mark.parametrize("arch", ARCHES)
def test_token_scale_kernels_are_llvm_code_objects_with_scale_buffers(arch):
    for case in sorted(CASES):
        cfg, _ = _cfg(case, arch)
        k = kernel(cfg)
        assert k.hsaco[:4] == b"\x7fELF" and "_tok" in cfg.name
        assert "v_mul_legacy_f32" in k.asm and "v_pk_mul_f32" in k.asm
        args = {a.name: a for a in decode_args(cfg)}
        for n in ("k_scale", "v_scale"):
            assert args[n].kind == "buffer" and args[n].dtype == "f32"
            assert args[n].dims == (("num_blocks", cfg.kv_heads, cfg.page_size) if cfg.paged
                                    else ("batch", cfg.kv_heads, cfg.max_context))


def test_kv_scale_needs_an_fp8_cache_and_a_known_name():
    with pytest.raises(ConfigError, match="kv_scale='token' applies to an fp8 kv_dtype"):
        DecodeConfig(kv_scale="token")
    with pytest.raises(ConfigError, match="kv_scale='row' is not one of"):
        DecodeConfig(kv_dtype="fp8_e4m3fnuz", kv_scale="row")
    cfg = DecodeConfig(kv_dtype="fp8_e4m3fnuz")
    assert cfg.kv_scale == "tensor" and "_tok" not in cfg.name and cfg.prefetch == 1
    # default prefetch: 0 only where the prefetched scales do not fit (D128, pages of 32+)
    tok = dict(kv_dtype="fp8_e4m3fnuz", kv_scale="token", head_dim=128, max_context=256)
    assert DecodeConfig(**tok).prefetch == 1
    assert DecodeConfig(**tok, paged=True, page_size=16).prefetch == 1
    assert DecodeConfig(**tok, paged=True, page_size=64).prefetch == 0
    assert DecodeConfig(**{**tok, "head_dim": 64}, paged=True, page_size=64).prefetch == 1
    assert {a.name: a.kind for a in decode_args(cfg)}["k_scale"] == "scalar"


def test_kv_scale_on_the_cli_check_and_user_error(tmp_path, capsys):
    common = ["decode", "--batch", "2", "--heads", "4", "--kv-heads", "2", "--head-dim", "64",
              "--max-context", "64", "--arch", "gfx950", "--kv-dtype", "fp8_e4m3"]
    for extra in ([], ["--paged", "--page-size", "16"]):
        out = tmp_path / str(len(extra))
        assert main([*common, *extra, "--kv-scale", "token", "-o", str(out)]) == 0
        (js,) = out.glob("*.json")
        meta = json.loads(js.read_text())
        assert meta["config"]["kv_scale"] == "token"
        assert main(["check", str(js), "--seed", "3"]) == 0
        assert "OK attn_decode" in capsys.readouterr().out
    assert main([*common[:-2], "--kv-scale", "token", "-o", str(tmp_path / "x")]) == 2
    assert "applies to an fp8 kv_dtype" in capsys.readouterr().err
