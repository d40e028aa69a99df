"""The workgroup grid (``kinds.attention.grid``): causal kernels start the Q-blocks with the most
key blocks first. The mapping from workgroup ids to (batch, head, Q-block) is a permutation of
every tile; the kernel's own SALU mapping writes every output on the emulator (O and LSE
pre-filled with NaN) and matches NumPy; the profiler deals workgroups in the order the grid
dispatches them, and that order is longest first."""
from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from asmgen.api import EmuRunner
from asmgen.kinds.attention.config import AttentionConfig as C
from asmgen.kinds.attention.grid import dispatch_qblocks, grid, tile_of
from asmgen.kinds.attention.profile import makespan, trips_per_qblock
from asmgen.kinds.attention.reference import attention_random_inputs, compare_attention

from attn_util import kernel


def _linear_ids(g):
    """Workgroup ids (x, y, z) in dispatch order: linear id, x fastest."""
    return [(x, y, z) for z in range(g[2]) for y in range(g[1]) for x in range(g[0])]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("b,h,sq,rows", [(1, 1, 32, 32), (2, 3, 100, 32), (3, 2, 129, 64),
                                         (2, 5, 1000, 128), (1, 4, 1, 128)])
def test_mapping_is_a_permutation_of_every_tile(causal, b, h, sq, rows):
    g = grid(causal, b, h, sq, rows)
    tiles = [tile_of(causal, wg, sq, rows) for wg in _linear_ids(g)]
    nq = -(-sq // rows)
    assert sorted(tiles) == list(itertools.product(range(b), range(h), range(nq)))
    # the profiler's dispatch order is the Q-block of each linear id
    assert [t[2] for t in tiles] == dispatch_qblocks(causal, nq, b * h).tolist()


@pytest.mark.parametrize("sq,sk,rows", [(8192, 8192, 128), (300, 200, 64), (77, 500, 32)])
def test_causal_dispatch_is_longest_first(sq, sk, rows):
    nq = -(-sq // rows)
    trips = trips_per_qblock(sq, sk, True, rows)
    order = dispatch_qblocks(True, nq, 6)
    assert np.all(np.diff(trips[order]) <= 0)           # never a longer one after a shorter
    assert trips[order[0]] == trips.max() > trips.min()


def test_longest_first_shortens_the_causal_makespan():
    """B16 H16 S8192 at 128 rows: 64 Q-blocks of 1..64 trips over 304 x 6 slots. Longest first
    lands within 1 % of the work bound (sum / slots); Q-block-fastest order 14 % above it (the
    last (batch, head)'s long Q-blocks run alone at the end)."""
    trips = trips_per_qblock(8192, 8192, True, 128).astype(float)
    dur = 5000.0 + 3000.0 * trips
    bound = dur.sum() * 256 / (304 * 6)
    lpt = makespan(dur, 256, 304 * 6, longest_first=True)
    fifo = makespan(dur, 256, 304 * 6, longest_first=False)
    assert bound <= lpt < 1.01 * bound
    assert fifo > 1.1 * bound


@pytest.mark.parametrize("cfg", [
    C(batch=2, heads=3, kv_heads=1, seqlen_q=100, seqlen_k=80, causal=True),
    C(batch=2, heads=2, seqlen_q=130, seqlen_k=150, causal=True, waves=2, dtype="bf16"),
    C(batch=3, heads=2, seqlen_q=70, seqlen_k=40, causal=True, waves=4, arch="gfx950",
      head_dim=128),
], ids=["w1", "w2", "w4_gfx950"])
@pytest.mark.parametrize("seed", [0, 1])
def test_causal_grid_writes_every_tile_on_the_emulator(cfg, seed):
    k = kernel(cfg, "attn_basic")
    assert k.meta["grid"] == list(cfg.grid) == [cfg.heads, cfg.batch, -(-cfg.seqlen_q
                                                                          // cfg.rows_per_wg)]
    inp = attention_random_inputs(cfg, seed, {})
    b, h, sq, d = cfg.batch, cfg.heads, cfg.seqlen_q, cfg.head_dim
    outs = {"O": np.full((b, h, sq, d), np.nan, inp["Q"].dtype),
            "LSE": np.full((b, h, sq), np.nan, np.float32)}
    out = EmuRunner(copy.deepcopy(k.meta), k.hsaco, seed=seed)(**inp, **outs)
    assert not np.isnan(np.asarray(out["O"], np.float32)).any()
    assert not np.isnan(out["LSE"]).any()
    ok, msg = compare_attention(cfg, out, inp)
    assert ok, msg
