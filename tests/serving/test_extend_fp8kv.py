"""fp8 KV caches in extend (issue 17): ``kv_dtype`` fp8_e4m3fnuz (gfx942) / fp8_e4m3 (gfx950),
per-tensor (``kv_scale="tensor"``, f32 scalars) or per-token (``"token"``, f32 buffers in
AITER's layout) ``k_scale`` / ``v_scale``, the shared decode loop's dequant and scale paths. On the
emulator against the NumPy reference, both arches, two seeds: dense and paged (16, 64) caches,
GQA/MQA and MHA, packed batches with empty and length-1 chunks over prefixes of 0, 1, aligned
and unaligned lengths; every unreadable cache entry and scale is NaN. The same outputs fail
against a reference that drops k_scale or v_scale (per token: replaces it by its mean). The
contract, the CLI (``--kv-dtype``, ``--kv-scale``), ``asmgen check`` and the typed errors.

The default run takes one slice of the matrix (every arch, seed, scale kind and cache layout
once); the rest is ``slow`` (``--runslow``)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from extend_util import CASES, kernel, run_extend

from asmgen.cli import main
from asmgen.dtypes import DTYPES
from asmgen.errors import ConfigError
from asmgen.kinds.decode.config import KV_FP8
from asmgen.kinds.extend.config import ExtendConfig
from asmgen.kinds.extend.contract import extend_args
from asmgen.kinds.extend.profile import extend_bytes
from asmgen.kinds.extend.reference import compare_extend

ARCHES = ("gfx942", "gfx950")
SEEDS = (1, 2)
SCALES = ("tensor", "token")


def fp8_of(arch: str) -> str:
    (name,) = [n for n in KV_FP8 if arch in DTYPES[n].arches]
    return name



# the default slice: each arch, seed, scale kind and case at least once
DEFAULT = {("dense_gqa2_d64_bf16", "token", "gfx942", 1),
           ("paged16_mha_d128_f16", "tensor", "gfx950", 2),
           ("paged64_gqa4_d64_bf16", "token", "gfx950", 1),
           ("paged16_mha_d128_f16", "token", "gfx942", 2)}


def _matrix():
    for case in sorted(CASES):
        for sc in SCALES:
            for arch in ARCHES:
                for seed in SEEDS:
                    marks = () if (case, sc, arch, seed) in DEFAULT else (pytest.mark.slow,)
                    yield pytest.param(case, sc, arch, seed, marks=marks,
                                       id=f"{case}-{sc}-{arch}-{seed}")


def _cfg(case: str, scale: str, arch: str):
    kw, ql, cl = CASES[case]
    return ExtendConfig(batch=len(ql), arch=arch, kv_dtype=fp8_of(arch), kv_scale=scale,
                        **kw), ql, cl


def _drop(inp: dict, n: str) -> dict:
    """The scale ``n`` dropped: 1.0 per tensor, its mean over the readable entries per token."""
    if np.ndim(inp[n]) == 0:
        return {**inp, n: 1.0}
    return {**inp, n: float(np.nanmean(np.asarray(inp[n], np.float64)))}


@pytest.mark.parametrize(("case", "scale", "arch", "seed"), _matrix())
def test_fp8_kv_extend_matches_reference_and_needs_both_scales(case, scale, arch, seed):
    cfg, ql, cl = _cfg(case, scale, arch)
    assert kernel(cfg).hsaco[:4] == b"\x7fELF"          # assembled and linked by LLVM
    inp, out = run_extend(cfg, seed, ql, cl)
    assert inp["k_cache"].dtype == DTYPES[cfg.kv_dtype].np_type
    if scale == "token":
        assert np.isnan(inp["v_scale"]).any()           # unreadable scale entries are NaN
    else:
        assert not (0.99 < inp["k_scale"] < 1.01) and not (0.99 < inp["v_scale"] < 1.01)
    ok, msg = compare_extend(cfg, out, inp)
    assert ok, msg
    assert np.isfinite(np.asarray(out["lse"])).all()    # every new token sees its own key
    for n in ("k_scale", "v_scale"):
        bad, msg = compare_extend(cfg, out, _drop(inp, n))
        assert not bad, f"reference without {n} still matches: {msg}"


def test_dense_token_scales_with_max_context_not_a_multiple_of_4():
    """max_context 62, the last sequence at the full context: its last 4-key scale group passes
    the scale array's end; the dwords past the context are out of range (CDNA3 ISA "Range
    Checking": per component) and touch no memory, so the emulator runs it and it matches."""
    cfg = ExtendConfig(batch=2, arch="gfx942", kv_dtype=fp8_of("gfx942"), kv_scale="token",
                       heads=4, kv_heads=2, head_dim=64, dtype="bf16", seqlen_q=8, max_context=62)
    inp, out = run_extend(cfg, 1, [5, 8], [21, 62])
    ok, msg = compare_extend(cfg, out, inp)
    assert ok, msg
    for n in ("k_scale", "v_scale"):
        bad, msg = compare_extend(cfg, out, _drop(inp, n))
        assert not bad, f"reference without {n} still matches: {msg}"


@pytest.mark.parametrize("scale", SCALES)
def test_contract_names_dtypes_and_dims(scale):
    for paged in (False, True):
        cfg = ExtendConfig(batch=2, heads=4, kv_heads=2, head_dim=64, seqlen_q=8, max_context=64,
                           paged=paged, kv_dtype="fp8_e4m3fnuz", kv_scale=scale)
        args = {a.name: a for a in extend_args(cfg)}
        assert args["k_cache"].dtype == args["v_cache"].dtype == "fp8_e4m3fnuz"
        assert args["q"].dtype == args["o"].dtype == "bf16"
        for n in ("k_scale", "v_scale"):
            a = args[n]
            assert a.dtype == "f32"
            if scale == "tensor":
                assert a.kind == "scalar"
            else:
                assert a.kind == "buffer"
                assert a.dims == (("num_blocks", 2, 16) if paged else ("batch", 2, 64))
        assert list(args)[-2:] == ["k_scale", "v_scale"]
        assert "_kvfp8_e4m3fnuz" in cfg.name and ("_tok" in cfg.name) == (scale == "token")
    plain = {a.name for a in extend_args(ExtendConfig())}
    assert not plain & {"k_scale", "v_scale"}


def test_config_errors_and_defaults():
    with pytest.raises(ConfigError, match="extend kv_scale='token' applies to an fp8 kv_dtype"):
        ExtendConfig(kv_scale="token")
    with pytest.raises(ConfigError, match="extend kv_dtype='fp8_e4m3' is not available on gfx942"):
        ExtendConfig(kv_dtype="fp8_e4m3")
    with pytest.raises(ConfigError, match="extend kv_dtype='f32' is not dtype='bf16'"):
        ExtendConfig(kv_dtype="f32")
    with pytest.raises(ConfigError, match="extend kv_scale='row' is not one of"):
        ExtendConfig(kv_dtype="fp8_e4m3fnuz", kv_scale="row")
    # prefetch 1 unless the prefetched per-token scales do not fit (D 128 on paged caches:
    # 32+ key pages, and 16-key pages with gfx950's x16 MFMA)
    tok = dict(kv_dtype="fp8_e4m3fnuz", kv_scale="token", head_dim=128, max_context=256)
    assert ExtendConfig().prefetch == ExtendConfig(kv_dtype="fp8_e4m3fnuz").prefetch == 1
    assert ExtendConfig(**tok).prefetch == 1
    assert ExtendConfig(**tok, paged=True, page_size=16).prefetch == 1
    assert ExtendConfig(**tok, paged=True, page_size=64).prefetch == 0
    assert ExtendConfig(**{**tok, "kv_dtype": "fp8_e4m3"}, arch="gfx950", paged=True,
                        page_size=16).prefetch == 0


def test_fp8_cache_halves_the_modeled_kv_bytes():
    kw = dict(batch=4, heads=8, kv_heads=2, head_dim=128, seqlen_q=32, max_context=512)
    b16 = extend_bytes(ExtendConfig(**kw), 4)["kv"]
    assert extend_bytes(ExtendConfig(**kw, kv_dtype="fp8_e4m3fnuz"), 4)["kv"] * 2 == b16
    tok = extend_bytes(ExtendConfig(**kw, kv_dtype="fp8_e4m3fnuz", kv_scale="token"), 4)["kv"]
    assert tok == b16 // 2 + 2 * 4 * 512 * 2 * 4                  # + an f32 per key, head, K/V


def test_kv_dtype_and_scale_on_the_cli_check_and_user_error(tmp_path, capsys):
    common = ["extend", "--batch", "2", "--heads", "4", "--kv-heads", "2", "--head-dim", "64",
              "--seqlen-q", "8", "--max-context", "64", "--arch", "gfx950"]
    for extra in (["--kv-dtype", "fp8_e4m3"],
                  ["--kv-dtype", "fp8_e4m3", "--kv-scale", "token", "--paged"]):
        out = tmp_path / str(len(extra))
        assert main([*common, *extra, "-o", str(out)]) == 0
        (js,) = out.glob("*.json")
        meta = json.loads(js.read_text())
        assert meta["config"]["kv_dtype"] == "fp8_e4m3"
        assert main(["check", str(js), "--seed", "3"]) == 0
        assert "OK attn_extend" in capsys.readouterr().out
    assert main([*common, "--kv-scale", "token", "-o", str(tmp_path / "x")]) == 2
    assert "applies to an fp8 kv_dtype" in capsys.readouterr().err
    assert main([*common, "--kv-dtype", "fp8_e4m3fnuz", "-o", str(tmp_path / "y")]) == 2
    assert "not available on gfx950" in capsys.readouterr().err
