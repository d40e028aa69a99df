"""Waves at one pc whose instruction has no group binding (SMEM, hardware-register access; SALU,
s_waitcnt and buffer ops too until the program binds them for groups, isa.emu.program
``group_fn``) step one after the other inside the pool's group step (isa.emu.pool ``_group_step``): the same bits and
step count as waves stepping alone, and every per-wave check still on there (pending registers,
hazard wait states, the register budget)."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd

from isa.emu.errors import HazardError, PendingReadError, RegisterBudgetError
from isa.emu.machine import Machine
from isa.emu.pool import Pool


@pytest.fixture
def per_wave_groups(monkeypatch):
    """Mnemonics of the group steps whose instruction ran member by member (no group binding)."""
    seen: list = []
    inner = Pool._group_step

    def spy(self, members, e, *a):
        if not e.group_ok:
            seen.append(e.instr.op)
        return inner(self, members, e, *a)
    monkeypatch.setattr(Pool, "_group_step", spy)
    return seen

# SALU address arithmetic, an SMEM load, waits and a buffer load/store per wave: each runs once,
# too few times to be bound for groups (SMEM never is), so a lockstep pool runs them in group
# steps member by member
PROG = """
      s_load_dword s20, s[0:1], 0x0
      s_mov_b32 s21, 7
      s_waitcnt lgkmcnt(0)
      s_mul_i32 s22, s20, s21
      s_add_u32 s23, s22, s12
      s_addc_u32 s24, 0, 0
      s_max_i32 s25, s23, 100
      s_lshl_b32 s26, s12, 8
      v_lshlrev_b32 v1, 2, v0
      v_add_u32 v1, s26, v1
      buffer_load_dword v2, v1, s[4:7], 0 offen
      s_waitcnt vmcnt(0)
      v_add_u32 v3, v2, s25
      buffer_store_dword v3, v1, s[8:11], 0 offen
      s_waitcnt vmcnt(0)
      s_endpgm"""


def _run(split: float, seed: int, monkeypatch, text: str = PROG, n_waves: int = 4):
    from isa.emu import Emulator
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    emu = Emulator(seed=seed)
    src = np.arange(4 * 64 * n_waves, dtype=np.uint32).view(np.uint8)
    dst = np.zeros(4 * 64 * n_waves, np.uint8)
    a_src, a_dst = emu.alloc(src), emu.alloc(dst)
    word = np.array([5], np.uint32)
    a_word = emu.alloc(word)
    m = run(text, emu=emu, n_waves=n_waves, seed=seed,
            sgprs={0: [a_word & 0xFFFFFFFF, a_word >> 32], 4: srd(a_src, src.size),
                   8: srd(a_dst, dst.size), 12: lambda i: i},
            vgprs={0: np.arange(64)})
    return m, dst.view(np.uint32).copy()


@pytest.mark.parametrize("seed", [0, 1])
def test_per_wave_members_of_group_steps_match_waves_stepping_alone(seed, monkeypatch, per_wave_groups):
    alone, out_alone = _run(1.0, seed, monkeypatch)   # split 1: every wave steps alone
    assert not per_wave_groups
    lock, out_lock = _run(0.0, seed, monkeypatch)     # split 0: every runnable wave at the pc steps
    assert {"s_load_dword"} <= set(per_wave_groups)
    assert lock.steps == alone.steps
    assert out_lock.tobytes() == out_alone.tobytes()
    lane = np.arange(64, dtype=np.uint32)
    for w in range(4):
        want = (64 * w + lane) + np.uint32(max(35 + w, 100))
        assert np.array_equal(out_lock[64 * w:64 * (w + 1)], want)
    for a, b in zip(alone.waves, lock.waves):
        assert np.array_equal(a.sgpr[20:27], b.sgpr[20:27])


def test_pending_read_is_found_in_a_per_wave_group_step(monkeypatch):
    """An SALU op reading an SMEM result before s_waitcnt: PendingReadError, raised inside the
    group step, for every seed (waves in lockstep)."""
    text = PROG.replace("      s_waitcnt lgkmcnt(0)\n      s_mul_i32", "      s_mul_i32")
    assert text != PROG
    for seed in range(3):
        with pytest.raises(PendingReadError, match="s20") as info:
            _run(0.0, seed, monkeypatch, text)
        assert any(entry.name == "_group_step" for entry in info.traceback)


def test_hazard_is_found_in_a_per_wave_group_step(monkeypatch, per_wave_groups):
    """s_setreg then s_getreg of the same hardware register needs 2 wait states (rule
    setreg_getreg, CDNA3 ISA guide section 4.5): missing, it is a HazardError inside the group
    step; with s_nop 1 between, the same waves run."""
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", 0.0)
    body = """
      s_mov_b32 s2, 0
      s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s2
      {nop}
      s_getreg_b32 s3, hwreg(HW_REG_MODE, 0, 4)
      s_endpgm"""
    for seed in range(3):
        with pytest.raises(HazardError, match="setreg_getreg") as info:
            run(body.format(nop=""), n_waves=4, seed=seed)
        assert any(entry.name == "_group_step" for entry in info.traceback)
        per_wave_groups.clear()
        run(body.format(nop="s_nop 1"), n_waves=4, seed=seed)
        assert "s_getreg_b32" in per_wave_groups


def test_register_budget_is_checked_in_a_per_wave_group_step(monkeypatch):
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", 0.0)
    with pytest.raises(RegisterBudgetError, match="s40") as info:
        run("s_mov_b32 s1, 0\ns_mov_b32 s40, s1\ns_endpgm", n_waves=4, sgpr_budget=32)
    assert any(entry.name == "_group_step" for entry in info.traceback)
