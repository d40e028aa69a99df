"""The stepper pauses the cyclic garbage collector while it steps (isa.emu.pool ``Pool.run``, a
speed choice) and gives it back afterwards, also when the run stops on an error, and leaves it
off when the caller had it off."""
from __future__ import annotations

import gc

import pytest

from isa.asm_parse import parse_program
from isa.emu import Emulator
from isa.emu.errors import PendingReadError

OK = """
  s_mov_b32 s0, 3
L:
  s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 L
  s_endpgm"""

# a ds_read result read before its s_waitcnt: PendingReadError
BAD = """
  v_mov_b32 v1, 0
  ds_read_b32 v2, v1
  v_add_u32 v3, v2, v2
  s_endpgm"""


def _run(src: str, seen: list):
    emu = Emulator(seed=0)
    prog = emu.program(*parse_program(src))

    def setup(w):
        seen.append(gc.isenabled())
    return emu.run_program(prog, n_waves=2, setup=setup, lds_bytes=256)


def test_collector_paused_while_stepping_and_restored():
    assert gc.isenabled()
    seen: list = []
    m = _run(OK, seen)
    assert m.steps == 2 * (1 + 3 * 3 + 1)
    assert seen == [True, True]          # set-up runs before the stepper
    assert gc.isenabled()
    # the handler of the first instruction sees the collector paused
    hits = []
    prog = Emulator().program(*parse_program(OK))
    run_first = prog.entries[0].fn

    def first(m_, w):
        hits.append(gc.isenabled())
        run_first(m_, w)
    prog.entries[0].fn = first
    Emulator(seed=0).run_program(prog, n_waves=1)
    assert hits == [False]
    assert gc.isenabled()


def test_collector_restored_after_an_error():
    with pytest.raises(PendingReadError):
        _run(BAD, [])
    assert gc.isenabled()


def test_collector_left_off_when_the_caller_turned_it_off():
    gc.disable()
    try:
        _run(OK, [])
        assert not gc.isenabled()
    finally:
        gc.enable()
