"""Landed group records free their arrays by reference counting (isa.emu.pending._land_record).

The pool pauses Python's cyclic collector while it steps (isa.emu.pool.Pool.run), so anything a
landed ``Record`` kept in a reference cycle (its self reference, its parts pointing back at it)
stayed alive, with its LDS dword indices, buffer offsets and store data, until the next full
collection: a 4096^3 check's shard worker grew to ~4 GB. A run with the collector off must leave
no record behind once it has landed."""
from __future__ import annotations

import gc

from asmgen import api
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
from isa.emu.pending import AsyncOp, Record


def _alive(kind) -> int:
    # with the collector off nothing leaves generation 0, so what the run made and kept is there
    # (walking every generation of a long test session's heap took seconds)
    return sum(1 for o in gc.get_objects(generation=0) if type(o) is kind)


def test_a_run_leaves_no_landed_record_in_a_cycle():
    kern = api.gemm(128, 128, 256, dtype="f16", arch="gfx942", schedule="pgr2",
                    tile=(64, 64, 32), waves=(2, 2))
    inp = gemm_random_inputs(kern.config, 0)
    runner = api.load(kern, backend="emu", seed=0)
    gc.collect()
    before = _alive(Record), _alive(AsyncOp)
    gc.disable()
    try:
        out = runner(**inp)
        after = _alive(Record), _alive(AsyncOp)
    finally:
        gc.enable()
    assert compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])[0]
    # the run issued hundreds of group records (the ds_reads, ds_writes and buffer ops of 16
    # waves in lockstep) and thousands of parts; with the cycles kept every one was alive here.
    # What may stay: the few the finished pool's clock still holds in its heap.
    assert after[0] - before[0] <= 32, after
    assert after[1] - before[1] <= 32 * 16, after
