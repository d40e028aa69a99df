"""Waves in different float modes at one pc (isa.emu.pool): once a wave changes MODE with s_setreg
the pool compares its members' modes, and a float VALU op whose members disagree steps wave by
wave, each under its own denormal mode (isa.emu.denorm); while every wave runs in one mode a group
step need not compare them."""
from __future__ import annotations

import random

import pytest
from core_util import run

from isa.emu.machine import Machine
from isa.emu.pool import Pool

# wave 0 flushes f32 denormals (MODE FP_DENORM f32 [5:4] := 0); then v_mul_f32 of the smallest
# f32 denormal by 1.0, four times in a loop, so the instruction is bound for groups
TEXT = """
      s_mov_b32 s1, 4
      s_cmp_eq_u32 s12, 0
      s_cbranch_scc0 L_loop
      s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
    L_loop:
      s_nop 1
      v_mul_f32 v1, v0, 1.0
      s_sub_u32 s1, s1, 1
      s_cmp_lg_u32 s1, 0
      s_cbranch_scc1 L_loop
      s_endpgm"""


@pytest.mark.parametrize("seed", [0, 1])
def test_members_in_different_modes_step_each_in_its_own(seed, monkeypatch):
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", 0.0)
    seen = []
    inner = Pool._group_step

    def spy(self, members, e, *a):
        out = inner(self, members, e, *a)
        seen.append((e.instr.op, self.modes_may_differ))
        return out
    monkeypatch.setattr(Pool, "_group_step", spy)
    m = run(TEXT, n_waves=4, seed=seed, sgprs={12: lambda i: i}, vgprs={0: 1})
    assert m.waves[0].vgpr[1].tolist() == [0] * 64            # flushed
    for w in m.waves[1:]:
        assert w.vgpr[1].tolist() == [1] * 64                 # denormal kept
    assert ("s_mov_b32", False) in seen                        # one mode: not compared
    assert ("v_mul_f32", True) in seen


def test_a_uniform_launch_never_compares_modes(monkeypatch):
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", 0.0)
    text = TEXT.replace("      s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\n", "")
    pools = []
    inner = Pool._run

    def spy(self):
        pools.append(self)
        return inner(self)
    monkeypatch.setattr(Pool, "_run", spy)
    m = run(text, n_waves=4, sgprs={12: lambda i: i}, vgprs={0: 1})
    assert all(w.vgpr[1].tolist() == [1] * 64 for w in m.waves)
    assert pools and not pools[0].modes_may_differ
    assert m.group_steps > 0


def test_waves_admitted_in_different_modes_are_compared():
    from isa.asm_parse import parse_program
    from isa.emu import Emulator
    from isa.emu.state import Wave
    prog = Emulator().program(*parse_program(TEXT))
    waves = [Wave(i) for i in range(2)]
    waves[1].fp_mode = 0x200
    m = Machine(prog, waves, None, 0, rng=random.Random(0))
    assert Pool.single(m).modes_may_differ
    waves[1].fp_mode = waves[0].fp_mode
    assert not Pool.single(Machine(prog, waves, None, 0, rng=random.Random(0))).modes_may_differ
