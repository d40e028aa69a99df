"""fp8 KV caches in decode (issue 17): ``kv_dtype`` fp8_e4m3fnuz (gfx942) / fp8_e4m3 (gfx950),
the cache bytes dequantised to bf16/f16 in registers, per-tensor ``k_scale`` / ``v_scale``. On
the emulator against the NumPy reference (fp8 decoded exactly by ml_dtypes, scales applied),
dense and paged (page 16), GQA, 1 and several query tokens, both arches, two seeds; the same
outputs fail against a reference that drops either scale; the kernels are LLVM code objects;
an fp8 the arch lacks is a typed error (config and CLI)."""
from __future__ import annotations

import json

import pytest
from decode_util import kernel, run_decode

from asmgen.cli import main
from asmgen.dtypes import DTYPES
from asmgen.errors import ConfigError
from asmgen.kinds.decode.config import KV_FP8, DecodeConfig
from asmgen.kinds.decode.contract import decode_args
from asmgen.kinds.decode.reference import compare_decode

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
