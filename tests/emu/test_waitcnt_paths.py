"""s_waitcnt's lgkmcnt fast path for queues of LDS ops only (isa.emu.pending ``_wait_lds``) does
what the general path (``_wait_lgkm``: SMEM ops may complete in any order) does on such a queue:
the same ops land in the same order, the same ops are covered in the same order, the same queue
is left and no random number is drawn."""
from __future__ import annotations

import random

import pytest

from isa.emu import pending
from isa.emu.pending import LDS, SMEM, AsyncOp
from isa.emu.state import Wave


class _M:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)


def _run(path, kinds, landed, lgkm, seed, log):
    w = Wave(0)
    ops = []
    for i, (k, done) in enumerate(zip(kinds, landed)):
        op = AsyncOp(w, k, (1000 + i,), (lambda i=i: log.append(("land", i))), i, None)
        op.landed = done
        w.pending_regs[1000 + i] = op
        ops.append(op)
    w.lgkm_queue = list(ops)
    m = _M(seed)
    cover = pending._cover

    def spy(m_, w_, op):
        log.append(("cover", op.pc))
        cover(m_, w_, op)
    pending._cover = spy
    try:
        path(m, w, w.lgkm_queue, lgkm)
    finally:
        pending._cover = cover
    return ([op.pc for op in w.lgkm_queue], sorted(w.pending_regs), m.rng.random())


@pytest.mark.parametrize("seed", range(30))
def test_lds_only_fast_path_equals_general(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 8)
    kinds = [LDS] * n
    landed = [rng.random() < 0.3 for _ in range(n)]
    lgkm = rng.randint(0, 9)
    logs = [], []
    outs = [_run(p, kinds, landed, lgkm, seed, log)
            for p, log in zip((pending._wait_lgkm, pending._wait_lds), logs)]
    assert outs[0] == outs[1]
    assert logs[0] == logs[1]


def test_general_path_draws_with_smem():
    """The comparison above is about a path that matters: with SMEM queued the general path makes
    seeded choices (a random draw), which is why the fast path is for LDS-only queues."""
    log: list = []
    base = random.Random(5)
    base.random()
    out = _run(pending._wait_lgkm, [SMEM, LDS, SMEM, LDS], [False] * 4, 0, 5, log)
    assert out[2] != base.random()
    assert sorted(i for what, i in log if what == "land") == [0, 1, 2, 3]
