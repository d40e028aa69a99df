"""fp8 prefill attention (``AttentionConfig`` dtype fp8_e4m3fnuz on gfx942, fp8_e4m3 on gfx950):
emulator runs against the NumPy reference that models P's quantisation (``fp8ref``), two seeds,
both arches, causal and not, D 64 and 128, unaligned lengths, GQA, one wave (K in registers) and
2 / 4 waves sharing K/V through LDS (every V-tile split: 4, 2 and 1 keys per item), bf16 and
f32 O; dropping any scale or the P offset from the reference fails; the contract, the refusals
and the CLI."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from asmgen.api import EmuRunner
from asmgen.errors import ConfigError
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.contract import attention_args
from asmgen.kinds.attention.fp8ref import DROPS, compare_fp8, fp8_random_inputs, fp8_reference
from asmgen.kinds.attention.reference import attention_reference, compare_attention

from attn_util import kernel

FP8 = {"gfx942": "fp8_e4m3fnuz", "gfx950": "fp8_e4m3"}

# (arch, head_dim, causal, extra config): unaligned lengths everywhere, GQA in half the cases
CASES = [
    ("gfx942", 64, False, {"heads": 2, "kv_heads": 1, "seqlen_q": 40, "seqlen_k": 70}),
    ("gfx942", 64, True, {"seqlen_q": 33, "seqlen_k": 65}),
    ("gfx942", 128, False, {"seqlen_q": 31, "seqlen_k": 97}),
    ("gfx942", 128, True, {"heads": 4, "kv_heads": 2, "seqlen_q": 45, "seqlen_k": 40}),
    ("gfx942", 128, False, {"seqlen_q": 70, "seqlen_k": 100, "waves": 4, "kv_buffers": 2}),
    ("gfx942", 64, True, {"heads": 2, "kv_heads": 1, "seqlen_q": 50, "seqlen_k": 130, "waves": 2,
                          "kv_buffers": 3}),
    ("gfx950", 64, False, {"seqlen_q": 33, "seqlen_k": 100}),
    ("gfx950", 64, True, {"heads": 2, "kv_heads": 1, "seqlen_q": 64, "seqlen_k": 70}),
    ("gfx950", 128, False, {"heads": 3, "kv_heads": 1, "seqlen_q": 20, "seqlen_k": 66}),
    ("gfx950", 128, True, {"seqlen_q": 40, "seqlen_k": 70}),
    ("gfx950", 128, True, {"heads": 2, "kv_heads": 1, "seqlen_q": 70, "seqlen_k": 100,
                           "waves": 2, "kv_buffers": 2}),
    ("gfx950", 64, False, {"seqlen_q": 70, "seqlen_k": 97, "waves": 4, "kv_buffers": 3}),
]


def _cfg(arch, d, causal, extra, **kw):
    return AttentionConfig(**{"batch": 1, **extra, **kw}, head_dim=d, causal=causal, arch=arch,
                           dtype=FP8[arch])


def _run(cfg, seed, schedule="attn_basic"):
    k = kernel(cfg, schedule)
    assert k.hsaco                               # compile_attention assembled it (LLVM)
    inp = fp8_random_inputs(cfg, seed)
    out = EmuRunner(copy.deepcopy(k.meta), k.hsaco, seed=seed)(**inp)
    return inp, out


@pytest.mark.parametrize("arch,d,causal,extra", CASES)
def test_fp8_matches_reference(arch, d, causal, extra):
    cfg = _cfg(arch, d, causal, extra)
    for seed in (0, 1):
        inp, out = _run(cfg, seed)
        assert np.asarray(out["O"]).dtype.name == "bfloat16"
        ok, msg = compare_attention(cfg, out, inp)       # dispatches to compare_fp8
        assert ok, msg


@pytest.mark.parametrize("arch,causal,extra", [
    ("gfx942", True, {"prefetch": 0}), ("gfx950", False, {"waves": 2, "kv_buffers": 2})])
def test_fp8_f32_out_and_schedules(arch, causal, extra):
    """f32 O (tolerance 2^-16 relative), with the interleaving recipes, prefetch 0 and two
    waves."""
    cfg = _cfg(arch, 64, causal, {"heads": 2, "kv_heads": 1, "seqlen_q": 37, "seqlen_k": 75},
               out_dtype="f32", **extra)
    for seed, sch in ((0, "attn_interleave"), (1, "attn_prio_interleave")):
        inp, out = _run(cfg, seed, sch)
        assert np.asarray(out["O"]).dtype == np.float32
        ok, msg = compare_fp8(cfg, out, inp)
        assert ok, msg


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_dropping_a_scale_or_the_p_offset_fails(arch):
    """The comparison sees every modelled step: a reference without q_scale, k_scale, v_scale
    or the P offset (P quantised as P, not P x max_finite) rejects the kernel's output."""
    cfg = _cfg(arch, 64, True, {"heads": 2, "kv_heads": 1, "seqlen_q": 40, "seqlen_k": 90})
    inp, out = _run(cfg, 2)
    ok, msg = compare_fp8(cfg, out, inp)
    assert ok, msg
    for drop in DROPS:
        ok, msg = compare_fp8(cfg, out, inp, drop=drop)
        assert not ok, f"dropping {drop}: {msg}"


def test_reference_is_attention_of_the_dequantised_inputs():
    """Without the P quantisation's error the model is plain attention: the fp8 reference is
    within fp8's rounding of P (relative 2^-4) of the float64 reference on q_scale Q8 etc., and
    its LSE equals the float LSE."""
    cfg = _cfg("gfx950", 64, True, {"seqlen_q": 20, "seqlen_k": 75})
    inp = fp8_random_inputs(cfg, 4)
    o, lse, _ = fp8_reference(cfg, inp)
    deq = {n: np.asarray(inp[n]).astype(np.float64) * inp[f"{n.lower()}_scale"]
           for n in ("Q", "K", "V")}
    o_ref, lse_ref = attention_reference(deq["Q"], deq["K"], deq["V"], cfg.scale, True)
    scale = np.abs(deq["V"]).max()
    assert np.abs(o - o_ref).max() <= 2 ** -4 * scale
    assert np.abs(o - o_ref).max() > 0                      # P is quantised
    assert np.allclose(lse, lse_ref, rtol=1e-12, atol=1e-12)


def test_contract_scales_and_out_dtype():
    cfg = _cfg("gfx942", 128, False, {}, out_dtype="f32")
    args = {a.name: a for a in attention_args(cfg)}
    assert [a.name for a in attention_args(cfg)][-3:] == ["q_scale", "k_scale", "v_scale"]
    assert all(args[n].dtype == "f32" and args[n].kind == "scalar"
               for n in ("q_scale", "k_scale", "v_scale"))
    assert args["Q"].dtype == args["K"].dtype == args["V"].dtype == "fp8_e4m3fnuz"
    assert args["O"].dtype == "f32" and args["LSE"].dtype == "f32"
    bf = AttentionConfig(dtype="bf16", arch="gfx950")
    assert not {"q_scale", "k_scale", "v_scale"} & {a.name for a in attention_args(bf)}
    assert bf.out_dtype == "bf16"


def test_kernel_uses_fp8_mfma_and_converts():
    for arch in FP8:
        asm = kernel(_cfg(arch, 64, False, {})).asm
        assert "v_mfma_f32_32x32x16_fp8_fp8" in asm
        assert "v_cvt_pk_fp8_f32" in asm and "op_sel:[0,0,1]" in asm


@pytest.mark.parametrize("kw,needle", [
    ({"arch": "gfx942", "dtype": "fp8_e4m3"},
     ("not available on gfx942 (its attention dtypes: f16, bf16, fp8_e4m3fnuz)")),
    ({"arch": "gfx950", "dtype": "fp8_e4m3fnuz"},
     ("not available on gfx950 (its attention dtypes: f16, bf16, fp8_e4m3)")),
    ({"arch": "gfx942", "dtype": "fp8_e4m3fnuz", "out_dtype": "f16"}, "out_dtype='f16'"),
    ({"arch": "gfx942", "dtype": "bf16", "out_dtype": "f32"}, "out_dtype='f32'"),
    ({"arch": "gfx950", "dtype": "fp8_e4m3", "mfma_k": 64}, "mfma_k=64"),
])
def test_fp8_refusals(kw, needle):
    with pytest.raises(ConfigError) as e:
        AttentionConfig(**kw)
    assert needle in str(e.value)


def test_cli_fp8(tmp_path, capsys):
    from asmgen.cli import main
    base = ["attention", "--batch", "1", "--heads", "2", "--seqlen-q", "64", "--seqlen-k", "64",
            "--head-dim", "64"]
    assert main(base + ["--arch", "gfx950", "--dtype", "fp8_e4m3fnuz", "-o", str(tmp_path)]) == 2
    assert "not available on gfx950" in capsys.readouterr().err
    assert main(base + ["--arch", "gfx950", "--dtype", "fp8_e4m3", "--out-dtype", "f32",
                        "-o", str(tmp_path)]) == 0
    names = [p.name for p in tmp_path.iterdir()]
    assert any(n.startswith("attn_fwd_gfx950_fp8_e4m3_d64_k16") and "_of32" in n
               and n.endswith(".s") for n in names), names
