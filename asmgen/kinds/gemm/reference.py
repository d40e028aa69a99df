"""NumPy references for generated kernels (float64 math, then cast), and their tolerances.

``gemm_reference(cfg, A, B, C, alpha, beta, bias)`` computes
``act(alpha * op(A) @ op(B) + beta * C + bias)`` exactly as design.md states the contract: A is
MxK row-major for layout ``N`` (KxM for ``T``), B is KxN for ``N`` (NxK for ``T``), C is MxN
(leading dimension ldc), bias is an f32 vector over N. The inputs are rounded to their real
formats first (f16/bf16 through ml_dtypes), so the only differences to the kernel are fp32
accumulation order and the final rounding.
"""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import EPS, NP_DTYPES, np_dtype  # noqa: F401  (np_dtype: re-exported)


def _rows(mat: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The ``rows x cols`` matrix view of a 2-D buffer whose rows may be padded (ld >= cols)."""
    return np.asarray(mat)[:rows, :cols].astype(np.float64)


def op_a(layout: str, A: np.ndarray, m: int, k: int) -> np.ndarray:
    return _rows(A, k, m).T if layout[0] == "T" else _rows(A, m, k)


def op_b(layout: str, B: np.ndarray, k: int, n: int) -> np.ndarray:
    return _rows(B, n, k).T if layout[1] == "T" else _rows(B, k, n)


def activation(x: np.ndarray, kind: str) -> np.ndarray:
    if kind == "none":
        return x
    if kind == "silu":
        return x / (1.0 + np.exp(-x))
    if kind == "gelu":   # tanh approximation (the kernel's)
        c = math.sqrt(2.0 / math.pi)
        return 0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x ** 3)))
    raise ValueError(f"activation {kind!r} is not none, silu or gelu")


def gemm_reference64(cfg, A, B, C, alpha: float, beta: float, bias=None) -> np.ndarray:
    """The float64 result (M x N) before the cast to the output dtype."""
    m, n, k = cfg.m, cfg.n, cfg.k
    acc = op_a(cfg.layout, A, m, k) @ op_b(cfg.layout, B, k, n)
    out = alpha * acc
    if beta != 0:
        out = out + beta * _rows(C, m, n)
    if bias is not None:
        out = out + np.asarray(bias, dtype=np.float64)[None, :n]
    return activation(out, cfg.activation)


def gemm_reference(cfg, A, B, C, alpha: float = 1.0, beta: float = 0.0, bias=None) -> np.ndarray:
    """``act(alpha * op(A) @ op(B) + beta * C + bias)`` in float64, cast to ``cfg.out_dtype``."""
    return gemm_reference64(cfg, A, B, C, alpha, beta, bias).astype(NP_DTYPES[cfg.out_dtype])


def gemm_tolerance(cfg, A, B, C, alpha: float, beta: float, bias=None) -> np.ndarray:
    """Per-element absolute tolerance: fp32 accumulation error (K + 2 units of 2^-24 times
    sum |a*b|, cdna-facts section 2.3), the output rounding (one unit roundoff of out_dtype, of
    the result plus the scaled inputs, since activation math in fp32 is close to 1-2 ulp), and a
    small absolute floor for the transcendental activations."""
    m, n, k = cfg.m, cfg.n, cfg.k
    mag = np.abs(op_a(cfg.layout, A, m, k)) @ np.abs(op_b(cfg.layout, B, k, n))
    scale = abs(alpha) * mag
    if beta != 0:
        scale = scale + abs(beta) * np.abs(_rows(C, m, n))
    if bias is not None:
        scale = scale + np.abs(np.asarray(bias, dtype=np.float64))[None, :n]
    ref = np.abs(gemm_reference64(cfg, A, B, C, alpha, beta, bias))
    tol = (k + 8) * EPS["f32"] * scale + 2 * EPS[cfg.out_dtype] * (ref + EPS["f32"] * scale)
    if cfg.activation != "none":
        tol = tol + 1e-5 * (1.0 + scale) + 4 * EPS[cfg.out_dtype] * (ref + scale)
    # the smallest normal of the output format (values below it are flushed or denormal)
    return tol + {"f32": 1e-30, "f16": 6.1e-5, "bf16": 1e-30}[cfg.out_dtype]


def compare(cfg, out, A, B, C, alpha: float, beta: float, bias=None) -> tuple[bool, str]:
    """(ok, message): the kernel's ``out`` against the reference with ``gemm_tolerance``."""
    ref = gemm_reference64(cfg, A, B, C, alpha, beta, bias)
    got = np.asarray(out)[:cfg.m, :cfg.n].astype(np.float64)
    tol = gemm_tolerance(cfg, A, B, C, alpha, beta, bias)
    err = np.abs(got - ref)
    bad = ~(err <= tol)
    if not bad.any():
        return True, f"max error {err.max() if err.size else 0:.3g} within tolerance"
    i, j = np.argwhere(bad)[0]
    return False, (f"{int(bad.sum())} of {bad.size} elements differ; first at ({i}, {j}): got "
                   f"{got[i, j]!r}, expected {ref[i, j]!r} (tolerance {tol[i, j]:.3g})")


def gemm_random_inputs(cfg, seed: int = 0, alpha: float | None = None,
                       beta: float | None = None) -> dict:
    """Seeded inputs for ``cfg``: A, B, C (standard normal, rounded to their dtypes, rows padded
    to lda/ldb/ldc), bias when fused, and alpha/beta (drawn when not given; beta is 0 for odd
    seeds so both the C-read and the C-skip paths get exercised)."""
    rng = np.random.default_rng(seed)
    ta, tb = cfg.layout[0] == "T", cfg.layout[1] == "T"
    a_rows = cfg.k if ta else cfg.m
    b_rows = cfg.n if tb else cfg.k
    dt, ot = NP_DTYPES[cfg.dtype], NP_DTYPES[cfg.out_dtype]
    out = {
        "A": rng.standard_normal((a_rows, cfg.lda)).astype(dt),
        "B": rng.standard_normal((b_rows, cfg.ldb)).astype(dt),
        "C": rng.standard_normal((cfg.m, cfg.ldc)).astype(ot),
        "alpha": float(np.float32(rng.uniform(0.5, 1.5))) if alpha is None else alpha,
        "beta": (0.0 if seed % 2 else float(np.float32(rng.uniform(-1.0, 1.0)))) if beta is None else beta,
    }
    if cfg.bias:
        out["bias"] = rng.standard_normal(cfg.n).astype(np.float32)
    return out
