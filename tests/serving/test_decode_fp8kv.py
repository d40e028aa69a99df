"""fp8 KV caches in decode (issue 17): ``kv_dtype`` fp8_e4m3fnuz (gfx942) / fp8_e4m3 (gfx950),
the cache bytes dequantised to bf16/f16 in registers, per-tensor ``k_scale`` / ``v_scale``. On
the emulator against the NumPy reference (fp8 decoded exactly by ml_dtypes, scales applied),
dense and paged (page 16), GQA, 1 and several query tokens, both arches, two seeds; the same
outputs fail against a reference that drops either scale; the kernels are LLVM code objects;
split kernels run through ``decode_combine`` end to end against the unsplit reference; an fp8 the
arch lacks is a typed error (config and CLI)."""
from __future__ import annotations

import json

import pytest
import numpy as np
from decode_util import DECODE, kernel, run_combine, run_decode

from asmgen.cli import main
from asmgen.dtypes import DTYPES
from asmgen.errors import ConfigError
from asmgen.kinds.decode.config import KV_FP8, DecodeConfig
from asmgen.kinds.decode.contract import decode_args
from asmgen.kinds.decode.reference import compare_combine, compare_decode, decode_reference

ARCHES = ("gfx942", "gfx950")
SEEDS = (1, 2)


def fp8_of(arch: str) -> str:
    (name,) = [n for n in KV_FP8 if arch in DTYPES[n].arches]
    return name


CASES = {
    "dense_gqa2_t1_bf16": (dict(heads=4, kv_heads=2, q_tokens=1, head_dim=64, dtype="bf16",
                                max_context=96, num_splits=1), [1, 45, 96]),
    "paged16_gqa4_t3_f16_split2": (dict(heads=8, kv_heads=2, q_tokens=3, head_dim=128,
                                        dtype="f16", max_context=160, paged=True, page_size=16,
                                        num_splits=2), [3, 50, 160]),
    "dense_gqa8_t2_bf16_split3": (dict(heads=8, kv_heads=1, q_tokens=2, head_dim=128,
                                       dtype="bf16", max_context=256, num_splits=3),
                                  [2, 97, 256]),
    "paged16_mha_t2_bf16_pf0": (dict(heads=2, q_tokens=2, head_dim=64, dtype="bf16",
                                     max_context=64, paged=True, page_size=16, num_splits=1,
                                     prefetch=0), [2, 64]),
}


def _cfg(case: str, arch: str):
    kw, lens = CASES[case]
    return DecodeConfig(batch=len(lens), arch=arch, kv_dtype=fp8_of(arch), **kw), lens


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_fp8_kv_matches_reference_and_needs_both_scales(case, arch, seed):
    cfg, lens = _cfg(case, arch)
    inp, out = run_decode(cfg, seed, lens)
    assert inp["k_cache"].dtype == DTYPES[cfg.kv_dtype].np_type
    ok, msg = compare_decode(cfg, out, inp)
    assert ok, msg
    for n in ("k_scale", "v_scale"):          # the kernel applies each scale: dropping one fails
        assert not (0.99 < inp[n] < 1.01)
        bad, msg = compare_decode(cfg, out, {**inp, n: 1.0})
        assert not bad, f"reference without {n} still matches: {msg}"

    if cfg.num_splits > 1:
        _combine_end_to_end(cfg, inp, out, seed)


COMBINE_EPS = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11}


def _combine_end_to_end(cfg, inp, out, seed):
    """The split fp8 kernel's partials through ``decode_combine``: o and lse of the whole
    context against the unsplit reference (the scales applied), and not against one that drops
    v_scale (O scales with it; the LSE, through k_scale, too)."""
    fin = run_combine(cfg, out, seed)
    ok, msg = compare_combine(DECODE.combine_config(cfg), fin, {"o_partial": out["o_partial"],
                                                               "lse_partial": out["lse_partial"]})
    assert ok, msg
    o_ref, lse_ref = decode_reference(cfg, inp)
    o = np.asarray(fin["o"], np.float64)
    err = float(np.abs(o - o_ref).max())
    assert err <= 12 * COMBINE_EPS[cfg.dtype] * max(1.0, float(np.abs(o_ref).max())), \
        f"end to end max|O - ref| = {err}"
    lse = np.asarray(fin["lse"], np.float64)
    assert np.array_equal(np.isneginf(lse), np.isneginf(lse_ref))
    f = np.isfinite(lse_ref)
    assert np.allclose(lse[f], lse_ref[f], rtol=1e-5, atol=1e-5)
    for n in ("k_scale", "v_scale"):
        o_bad, lse_bad = decode_reference(cfg, {**inp, n: 1.0})
        assert float(np.abs(o - o_bad).max()) > 12 * COMBINE_EPS[cfg.dtype] or \
            not np.allclose(lse[f], lse_bad[f], rtol=1e-5, atol=1e-5), f"{n} dropped still matches"


@pytest.mark.parametrize("arch", ARCHES)
def test_fp8_kv_kernels_are_llvm_code_objects_with_the_scales_in_the_contract(arch):
    for case in sorted(CASES):
        cfg, _ = _cfg(case, arch)
        k = kernel(cfg)
        assert k.hsaco[:4] == b"\x7fELF"
        assert "LLVM" in k.meta["toolchain"] or "clang" in k.meta["toolchain"]
        assert "v_cvt_pk_f32_fp8" in k.asm
        args = {a.name: a for a in decode_args(cfg)}
        assert args["k_cache"].dtype == args["v_cache"].dtype == fp8_of(arch)
        assert args["k_scale"].dtype == args["v_scale"].dtype == "f32"
        assert args["q"].dtype == cfg.dtype
        # one byte per element: a key row is kv_heads x head_dim bytes
        assert cfg.kv_row_bytes == cfg.kv_heads * cfg.head_dim


def test_default_kv_dtype_is_dtype_without_scales():
    cfg = DecodeConfig(dtype="f16")
    assert cfg.kv_dtype == "f16" and not cfg.kv_fp8 and "_kv" not in cfg.name
    names = {a.name for a in decode_args(cfg)}
    assert not names & {"k_scale", "v_scale"}


@pytest.mark.parametrize("arch", ARCHES)
def test_an_fp8_the_arch_lacks_is_a_config_error_naming_the_arch(arch):
    other = next(n for n in KV_FP8 if n != fp8_of(arch))
    with pytest.raises(ConfigError, match=f"kv_dtype='{other}' is not available on {arch}.*"
                                          f"{fp8_of(arch)}"):
        DecodeConfig(arch=arch, kv_dtype=other)
    with pytest.raises(ConfigError, match="kv_dtype='i8'"):
        DecodeConfig(arch=arch, kv_dtype="i8")


def test_kv_dtype_on_the_cli_check_and_user_error(tmp_path, capsys):
    common = ["decode", "--batch", "1", "--heads", "2", "--head-dim", "64", "--max-context",
              "32", "--paged", "--page-size", "16"]
    assert main([*common, "--arch", "gfx950", "--kv-dtype", "fp8_e4m3", "-o", str(tmp_path)]) == 0
    (js,) = tmp_path.glob("*.json")
    meta = json.loads(js.read_text())
    assert meta["config"]["kv_dtype"] == "fp8_e4m3"
    assert main(["check", str(js), "--seed", "3"]) == 0
    assert "OK attn_decode" in capsys.readouterr().out
    assert main([*common, "--arch", "gfx942", "--kv-dtype", "fp8_e4m3",
                 "-o", str(tmp_path / "x")]) == 2
    assert "not available on gfx942" in capsys.readouterr().err
