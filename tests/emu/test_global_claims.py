"""Global write claims (isa.emu.memory ``claim_writes``): a workgroup may write its own bytes
again; a byte another workgroup of the launch wrote is reported (offset, allocation, workgroup)."""
from __future__ import annotations

import numpy as np

from isa.emu.memory import GlobalMemory


def test_own_bytes_again_pass_and_another_workgroup_is_named():
    mem = GlobalMemory()
    mem.alloc(np.zeros(16, np.uint8), "x")
    base = mem.alloc(np.zeros(256, np.uint8), "out")
    mem.begin_launch()
    loc = mem.locate(np.array([base + 8, base + 64], np.uint64), 4, "store")
    assert mem.claim_writes(loc, 4, 3) is None
    assert mem.claim_writes(loc, 4, 3) is None                  # the same workgroup again
    near = mem.locate(np.array([base + 100, base + 10], np.uint64), 4, "store")
    assert mem.claim_writes(near, 4, 5) == (10, 1, 3)           # byte 10 of "out", by workgroup 3
    mem.begin_launch()                                          # a new launch forgets the claims
    assert mem.claim_writes(near, 4, 5) is None
