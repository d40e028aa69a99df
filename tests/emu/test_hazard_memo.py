"""The hazard check of a group step's members (isa.emu.pool ``_group_step``): a member whose hazard
state (wait-state clock and producer history, isa.emu.hazard_check.issue) is the last walked
member's, or equal to it, shares its verdict and its next state; any difference (the clock, a
producer) is walked again, so the verdicts are those of ``check`` per wave, and allowed
violations are counted per wave. Both the group-bound path and the per-wave path of a group
step share this way."""
from __future__ import annotations

import random

import pytest

from isa.asm_parse import parse_program
from isa.emu import Emulator, hazard_check
from isa.emu.errors import HazardError
from isa.emu.machine import Machine
from isa.emu.memory import GlobalMemory
from isa.emu.pool import Pool
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
    for w in waves:
        w.set_exec((1 << 64) - 1)
    m = Machine(prog, waves, GlobalMemory(), 0, rng=random.Random(0))
    return m, waves, prog.entries


def _history(w, producer, at: int, now: int) -> None:
    w.hz = (now, ((at + producer.hz_max, at, producer),))


@pytest.fixture(params=["group", "per_wave"])
def step(request):
    """Step ``waves`` (members of one group step) over entry ``e``: with its group binding, or
    (its group binding withheld) one member after the other."""
    def run(m, waves, e):
        if request.param == "per_wave":
            e.group_ok = False
        else:
            e.gfn = m.program.group_fn(e, 99)
            assert e.gfn is not None
        for w in waves:
            w.pc = e.pc
        Pool.single(m)._group_step(list(waves), e, False, True, None)
    return run


@pytest.fixture
def walks(monkeypatch):
    n = [0]
    inner = hazard_check.check

    def spy(*a):
        n[0] += 1
        return inner(*a)
    monkeypatch.setattr(hazard_check, "check", spy)
    return n


def test_equal_histories_share_the_verdict(walks, step):
    m, (a, b, c), ents = _setup(3)
    for w in (a, b, c):
        _history(w, ents[0], 10, 13)          # 2 states since the producer: enough
    step(m, (a, b, c), ents[2])
    assert walks[0] == 1
    assert a.hz is b.hz is c.hz               # one next state, shared
    assert a.hz[0] == 14


def test_shared_states_are_not_walked_again(walks, step):
    m, (a, b, c), ents = _setup(3)
    _history(a, ents[0], 10, 13)
    b.hz = c.hz = a.hz
    step(m, (a, b, c), ents[2])
    assert walks[0] == 1


def test_same_history_with_a_later_clock_is_walked_and_raises(walks, step):
    m, (a, b), ents = _setup(2)
    _history(a, ents[0], 10, 13)
    _history(b, ents[0], 10, 11)              # the same producer entry, 0 states since: a hazard
    b.hz = (11, a.hz[1])                      # ... the very same history object
    with pytest.raises(HazardError, match="valu_sgpr_valu") as err:
        step(m, (a, b), ents[2])
    assert err.value.wave == b.wave_id


def test_another_producer_at_the_same_clock_is_walked(walks, step):
    m, (a, b), ents = _setup(2)
    _history(a, ents[1], 12, 13)              # s5's producer: v_add reads s4 only, no need
    _history(b, ents[0], 12, 13)              # s4's producer, 0 states before: a hazard
    with pytest.raises(HazardError, match="valu_sgpr_valu") as err:
        step(m, (a, b), ents[2])
    assert err.value.wave == b.wave_id


def test_expired_producers_are_dropped_for_shared_verdicts_too(step):
    m, (a, b), ents = _setup(2)
    for w in (a, b):
        _history(w, ents[0], 0, 50)           # long expired
    step(m, (a, b), ents[2])
    # v_add_u32 produces (VALU writes a VGPR): the history holds it alone, the expired one dropped
    assert a.hz == b.hz == (51, ((51 + ents[2].hz_max, 51, ents[2]),))


def test_allowed_violations_are_counted_per_wave(walks, step):
    m, waves, ents = _setup(3)
    m.allow_hazards = {"valu_sgpr_valu"}
    m.allowed_hazards = {}
    _history(waves[0], ents[0], 10, 11)
    for w in waves[1:]:
        w.hz = waves[0].hz                    # one shared state: still walked per wave
    step(m, waves, ents[2])
    assert walks[0] == 3
    assert m.allowed_hazards == {("valu_sgpr_valu", "hazard"): 3}
