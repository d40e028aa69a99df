"""The hazard check of a group step's members (isa.emu.hazard_check.check_memo): a member whose
wait-state history and clock equal the last walked member's shares its verdict; any difference
(the clock, a producer) is walked again, so the verdicts are those of ``check`` per wave, and
allowed violations are counted per wave."""
from __future__ import annotations

import random

import pytest

from isa.asm_parse import parse_program
from isa.emu import Emulator, hazard_check
from isa.emu.errors import HazardError
from isa.emu.machine import Machine
from isa.emu.memory import GlobalMemory
from isa.emu.state import Wave

# v_readfirstlane writes an SGPR a VALU then reads: rule valu_sgpr_valu, 2 wait states (CDNA3 ISA
# guide section 4.5, "VALU writes SGPR -> VALU reads that SGPR")
TEXT = """
      v_readfirstlane_b32 s4, v0
      v_readfirstlane_b32 s5, v0
      v_add_u32 v1, s4, v0
      s_endpgm"""


def _setup(n: int):
    prog = Emulator().program(*parse_program(TEXT))
    waves = [Wave(i) for i in range(n)]
    m = Machine(prog, waves, GlobalMemory(), 0, rng=random.Random(0))
    return m, waves, prog.entries


def _history(w, producer, at: int, now: int) -> None:
    w.hazard_hist = [(at + producer.hz_max, at, producer)]
    w.ws_clock = now


@pytest.fixture
def walks(monkeypatch):
    n = [0]
    inner = hazard_check.check

    def spy(*a):
        n[0] += 1
        return inner(*a)
    monkeypatch.setattr(hazard_check, "check", spy)
    return n


def test_equal_histories_share_the_verdict(walks):
    m, (a, b, c), ents = _setup(3)
    for w in (a, b, c):
        _history(w, ents[0], 10, 13)          # 2 states since the producer: enough
    memo = [None, -1, None]
    for w in (a, b, c):
        hazard_check.check_memo(m, w, ents[2], memo)
    assert walks[0] == 1


def test_same_history_with_a_later_clock_is_walked_and_raises(walks):
    m, (a, b), ents = _setup(2)
    _history(a, ents[0], 10, 13)
    _history(b, ents[0], 10, 11)              # the same producer entry, 0 states since: a hazard
    memo = [None, -1, None]
    hazard_check.check_memo(m, a, ents[2], memo)
    with pytest.raises(HazardError, match="valu_sgpr_valu"):
        hazard_check.check_memo(m, b, ents[2], memo)
    assert walks[0] == 2


def test_another_producer_at_the_same_clock_is_walked(walks):
    m, (a, b), ents = _setup(2)
    _history(a, ents[1], 12, 13)              # s5's producer: v_add reads s4 only, no need
    _history(b, ents[0], 12, 13)              # s4's producer, 0 states before: a hazard
    memo = [None, -1, None]
    hazard_check.check_memo(m, a, ents[2], memo)
    with pytest.raises(HazardError, match="valu_sgpr_valu"):
        hazard_check.check_memo(m, b, ents[2], memo)


def test_expired_producers_are_dropped_for_shared_verdicts_too():
    m, (a, b), ents = _setup(2)
    for w in (a, b):
        _history(w, ents[0], 0, 50)           # long expired
    memo = [None, -1, None]
    for w in (a, b):
        hazard_check.check_memo(m, w, ents[2], memo)
    assert a.hazard_hist == [] and b.hazard_hist == []


def test_allowed_violations_are_counted_per_wave(walks):
    m, waves, ents = _setup(3)
    m.allow_hazards = {"valu_sgpr_valu"}
    m.allowed_hazards = {}
    for w in waves:
        _history(w, ents[0], 10, 11)
    memo = [None, -1, None]
    for w in waves:
        hazard_check.check_memo(m, w, ents[2], memo)
    assert walks[0] == 3
    assert m.allowed_hazards == {("valu_sgpr_valu", "hazard"): 3}
