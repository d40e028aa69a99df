"""Inputs that steer the ping-pong loop's O-rescale branch (``pingpong.rescale_unless_stable``).

The branch skips ``O *= alpha`` when no row of the wave saw its max change in a key block; how
often that happens depends on the data, which neither the generator nor the cycle model knows.
These two input shapes bracket it (``asmgen profile`` runs both on a kernel with the branch; the
tests check that each takes the path it claims and that the results do not depend on it):

* ``"always"``: every key block raises every row's max, so every block rescales (the cost of
  the loop without the branch, plus the compare). Q >= 0 (|Q|) and key 32 j of every head is
  the constant c_j = 2^(j // 8) (1 + (j % 8) / 8): strictly increasing in j and exact in every
  16-bit and 8-bit input type (3 mantissa bits suffice), so q . k_(32 j) = c_j sum(q) grows
  with j and exceeds every other key of the block (|k| <= 1 < c_j elementwise, q >= 0).
* ``"stable"``: every row's max sits in key 0 (all ones, with |Q|): q . k_0 = sum(q) >= q . k
  for every |k| <= 1, so from block 1 on no max changes and every block skips.

The other keys and V keep their seeded values in [-1, 1).
"""
from __future__ import annotations

import numpy as np

MODES = ("always", "stable")
BLOCK = 32     # key block (``config.BLOCK_K``)
MAX_BLOCKS = 56    # c_55 = 2^6 x 1.875 = 120: within every input type's range (fp8 FNUZ: 240)


def key_value(j: int) -> float:
    """c_j (module docstring): exact with 3 mantissa bits, strictly increasing."""
    return float(2 ** (j // 8) * (1 + (j % 8) / 8))


def steer(inputs: dict, mode: str) -> dict:
    """A copy of dense attention ``inputs`` (Q ``[.., seqlen_q, D]``, K ``[.., seqlen_k, D]``)
    shaped for ``mode`` (module docstring); V and the other arguments unchanged."""
    if mode not in MODES:
        raise ValueError(f"rescale mode {mode!r} is not one of {MODES}")
    out = dict(inputs)
    q, k = inputs["Q"], inputs["K"]
    dt = q.dtype
    out["Q"] = np.abs(q.astype(np.float32)).astype(dt)
    k32 = k.astype(np.float32)
    nblk = -(-k.shape[-2] // BLOCK)
    if mode == "always" and nblk > MAX_BLOCKS:
        raise ValueError(f"rescale mode 'always' shapes at most {MAX_BLOCKS} key blocks "
                         f"(c_j within fp8 e4m3fnuz's 240), got {nblk}")
    if mode == "stable":
        k32[..., 0, :] = 1.0
    else:
        for j in range(nblk):
            k32[..., BLOCK * j, :] = key_value(j)
    out["K"] = k32.astype(k.dtype)
    return out
