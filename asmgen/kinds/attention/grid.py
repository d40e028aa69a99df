"""The attention kernel's workgroup grid and the order its workgroups start in.

The hardware hands out workgroups by linear id, x fastest (``isa.cycle.problem``: round robin
over the XCDs by linear id). Every workgroup of a non-causal kernel runs the same number of key
blocks, so the order does not matter there: the grid is (Q-blocks, heads, batch), Q-block =
workgroup id x.

Causal: Q-block ``q`` runs about ``q + 1`` key blocks, so dispatching Q-block fastest leaves the
last (batch, head)'s long Q-blocks running alone at the end. The causal grid is (heads, batch,
Q-blocks) and Q-block = ``n_qblocks - 1 - z``: every (batch, head) of the last Q-block (the most
key blocks) starts first, then the next one down. This is the longest-processing-time-first
rule (R. L. Graham, "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math. 17, 1969:
the makespan is within 4/3 of the optimum), with no division in the kernel: the template computes
``n_qblocks = ceil(seqlen_q / rows)`` (rows a power of two) and subtracts.

``tile_of`` mirrors the template's SALU arithmetic in Python (the test proves the mapping is a
permutation of every (batch, head, Q-block)); ``dispatch_qblocks`` gives the profiler the
Q-block of each workgroup in dispatch order (``kinds.attention.profile.makespan``);
``trips_per_qblock`` the KV-loop trips of each Q-block (the profile's durations, ``check``'s
emulation estimate).
"""
from __future__ import annotations

import numpy as np

from .lds import BLOCK_K, BLOCK_Q


def n_qblocks(seqlen_q: int, rows: int) -> int:
    return -(-seqlen_q // rows)


def grid(causal: bool, batch: int, heads: int, seqlen_q: int, rows: int) -> tuple[int, int, int]:
    """Workgroups per dimension (x, y, z); see the module docstring."""
    nq = n_qblocks(seqlen_q, rows)
    return (heads, batch, nq) if causal else (nq, heads, batch)


def grid_from(causal: bool, rows: int, varlen: bool = False) -> tuple[tuple[str, int], ...]:
    """The contract's rule tying each grid dimension to a runtime scalar (``Launch.grid_from``);
    varlen kernels size the Q-block dimension by ``max_seqlen_q`` (every sequence's Q-blocks fit,
    the workgroups past a shorter sequence's end exit at once)."""
    sq = "max_seqlen_q" if varlen else "seqlen_q"
    if causal:
        return (("heads", 1), ("batch", 1), (sq, rows))
    return ((sq, rows), ("heads", 1), ("batch", 1))


def tile_of(causal: bool, wg: tuple[int, int, int], seqlen_q: int,
            rows: int) -> tuple[int, int, int]:
    """(batch, head, Q-block) of workgroup ids ``wg`` = (x, y, z), as the template computes it."""
    x, y, z = wg
    if causal:
        return y, x, n_qblocks(seqlen_q, rows) - 1 - z
    return z, y, x


def dispatch_qblocks(causal: bool, n_q: int, n_bh: int) -> np.ndarray:
    """Q-block index of each of the ``n_q * n_bh`` workgroups in dispatch (linear id) order."""
    q = np.arange(n_q, dtype=np.int64)
    if causal:
        return np.repeat(q[::-1], n_bh)
    return np.tile(q, n_bh)


def trips_per_qblock(sq: int, sk: int, causal: bool, rows: int = BLOCK_Q) -> np.ndarray:
    """KV-loop trip count of each Q-block of ``rows`` query rows (kinds.attention.template: causal is
    bottom-right aligned, query i sees keys j <= i + sk - sq; the loop stops at the last block
    any row of the workgroup sees, >= 1)."""
    nqb = -(-sq // rows)
    full = -(-sk // BLOCK_K)
    if not causal:
        return np.full(nqb, full, dtype=np.int64)
    last_row = np.minimum(np.arange(nqb, dtype=np.int64) * rows + rows - 1, sq - 1)
    last_key = np.minimum(sk - 1, last_row + sk - sq)
    return np.where(last_key >= 0, np.minimum(full, last_key // BLOCK_K + 1), 1)
