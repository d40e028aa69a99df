"""Launch-time validation (asmgen.runtime.launch): every silent-wrong case of issue 13 point 1 now
raises a typed error naming the argument, what was given and what the kernel needs; runtime sizes
that the code supports are honoured (grid and output shapes recomputed), proven on the emulator
against NumPy."""
from __future__ import annotations

import numpy as np
import pytest

from asmgen import load
from asmgen.api import attention, gemm
from asmgen.kinds.attention.reference import attention_random_inputs, compare_attention
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
from asmgen.runtime.launch import LaunchError

SMALL = dict(tile=(32, 32, 16), waves=(1, 1))


@pytest.fixture(scope="module")
def k64():
    return gemm(64, 32, 48, **SMALL)          # A is 64x48 (M x K), B 48x32, C 64x32


@pytest.fixture(scope="module")
def att():
    return attention(batch=1, heads=2, kv_heads=1, seqlen_q=32, seqlen_k=64, head_dim=64)


def _inputs(k, seed=0):
    return gemm_random_inputs(k.config, seed)


def test_good_call_matches(k64):
    inp = _inputs(k64)
    out = load(k64)(**inp)
    ok, msg = compare(k64.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg


@pytest.mark.parametrize("mutate, match", [
    (lambda i: {"A": i["A"].T.copy()}, r"argument A: an array of shape \(48, 64\); the kernel needs "
                                        r"shape \(M, K\) = \(64, 48\)"),
    (lambda i: {"B": i["B"].T.copy()}, r"argument B: an array of shape \(32, 48\)"),
    (lambda i: {"A": i["A"][:, :40]}, r"argument A: an array of shape \(64, 40\)"),      # narrower
    (lambda i: {"A": np.zeros((64, 56), np.float16)}, r"argument A: an array of shape \(64, 56\)"),
    (lambda i: {"lda": 40}, r"argument lda: lda = 40 is smaller than the row length K = 48 of A"),
    (lambda i: {"K": 64}, r"argument lda: lda = 48 is smaller than the row length K = 64"),
    (lambda i: {"M": 96}, r"argument A: an array of shape \(64, 48\); the kernel needs shape "
                          r"\(M, K\) = \(96, 48\)"),
    (lambda i: {"A": i["A"].astype(np.int32)}, r"argument A: an array of dtype int32; the kernel "
                                                r"needs f16"),
    (lambda i: {"C": np.zeros((64, 16), np.float16)}, r"argument C: an array of shape \(64, 16\)"),
    (lambda i: {"M": -1}, r"argument M: -1; the kernel needs u32"),
    (lambda i: {"M": 0}, r"argument M: M = 0; the kernel needs M in \[1, inf\]"),
    (lambda i: {"M": 2.5}, r"argument M: 2.5; the kernel needs an integer"),
    (lambda i: {"A": "text"}, r"argument A: str; the kernel needs an array"),
])
def test_mismatch_raises(k64, mutate, match):
    inp = _inputs(k64)
    inp.update(mutate(inp))
    with pytest.raises(LaunchError, match=match):
        load(k64)(**inp)


def test_baked_sizes_refuse_other_runtime_sizes():
    k = gemm(32, 32, 16, bake_sizes=True, **SMALL)
    inp = gemm_random_inputs(k.config, 0)
    run = load(k)
    with pytest.raises(LaunchError, match=r"argument M: M = 64; the kernel needs M = 32 \(baked"):
        run(**inp, M=64)
    out = run(**inp, M=32)                       # the baked value itself is fine
    ok, msg = compare(k.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg


def test_numpy_integer_scalars(k64):
    inp = _inputs(k64)
    call = dict(inp, M=np.int64(64), N=np.uint32(32), K=np.array(48), alpha=np.float32(inp["alpha"]))
    out = load(k64)(**call)
    ok, msg = compare(k64.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg


def test_runtime_sizes_and_grid_follow_the_arguments(k64):
    """A larger runtime M than generated: the grid and C follow M (rows 64..95 are computed)."""
    import dataclasses
    big = dataclasses.replace(k64.config, m=96)
    inp = gemm_random_inputs(big, 1)
    out = load(k64)(**inp, M=96)
    assert out.shape == (96, 32)
    ok, msg = compare(big, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg


class _ArrayInterface:
    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


class _DLPackOnly:
    """Host memory exposed only through DLPack (as a CPU tensor of another library would)."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kw):
        return self._arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


class _Device:
    def __init__(self, arr):
        self.__cuda_array_interface__ = {"shape": arr.shape, "typestr": arr.dtype.str,
                                         "data": (arr.ctypes.data, False), "version": 3}


class _GpuDLPack(_DLPackOnly):
    def __dlpack_device__(self):
        return (10, 0)         # kDLROCM


@pytest.mark.parametrize("wrap", [_ArrayInterface, _DLPackOnly])
def test_array_protocols_accepted(k64, wrap):
    inp = _inputs(k64)
    out = load(k64)(**dict(inp, A=wrap(inp["A"]), B=wrap(inp["B"])))
    ok, msg = compare(k64.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg


@pytest.mark.parametrize("wrap, match", [
    (_Device, r"argument A: device memory \(_Device with __cuda_array_interface__\); the kernel "
              r"needs host memory on the emu backend"),
    (_GpuDLPack, r"argument A: a DLPack tensor on device type 10"),
])
def test_device_memory_refused_on_emu(k64, wrap, match):
    inp = _inputs(k64)
    with pytest.raises(LaunchError, match=match):
        load(k64)(**dict(inp, A=wrap(inp["A"])))


# -- attention -------------------------------------------------------------------------------------
def test_attention_q_in_bshd_order_raises(att):
    inp = attention_random_inputs(att.config, 0, {"heads": 2, "seqlen_q": 32})
    q = np.ascontiguousarray(inp["Q"].transpose(0, 2, 1, 3))      # (B, S, H, D)
    with pytest.raises(LaunchError, match=r"argument Q: an array of shape \(1, 32, 2, 64\); the "
                                          r"kernel needs shape \(batch, heads, seqlen_q, 64\)"):
        load(att)(**dict(inp, Q=q))


@pytest.mark.parametrize("scale, match", [(0.0, "scale = 0.0"), (-0.5, "scale = -0.5"),
                                          (float("nan"), "scale = nan")])
def test_attention_scale_refused(att, scale, match):
    inp = attention_random_inputs(att.config, 0)
    with pytest.raises(LaunchError, match=match):
        load(att)(**inp, scale=scale)


def test_attention_kv_heads_must_divide_heads(att):
    sc = {"heads": 3, "kv_heads": 2}
    inp = attention_random_inputs(att.config, 0, sc)
    with pytest.raises(LaunchError, match=r"argument kv_heads: kv_heads = 2 with heads = 3"):
        load(att)(**inp, **sc)


def test_attention_runtime_batch_heads_seqlen_q(att):
    """Runtime batch/heads/seqlen_q other than the contract's: the grid (seqlen_q blocks x heads x
    batch) and O/LSE shapes follow them, and the result matches NumPy; seqlen_q = 100 is not a
    multiple of the 32-row block (its rows past 100 are not stored)."""
    import dataclasses
    sc = {"batch": 2, "heads": 4, "kv_heads": 2, "seqlen_q": 100, "seqlen_k": 64}
    cfg = dataclasses.replace(att.config, **sc)
    inp = attention_random_inputs(cfg, 3, sc)
    out = load(att, seed=3)(**inp, **sc)
    assert out["O"].shape == (2, 4, 100, 64) and out["LSE"].shape == (2, 4, 100)
    ok, msg = compare_attention(cfg, out, inp)
    assert ok, msg
