"""Every hard error of the emulator's machine: a minimal kernel triggers it with the exact message,
and the corrected kernel runs."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import Emulator
from isa.emu.errors import (
    BarrierDeadlockError,
    GlobalOutOfBoundsError,
    HazardError,
    LdsOutOfBoundsError,
    LdsRaceError,
    PendingOverwriteError,
    PendingReadError,
    RegisterBudgetError,
    StepLimitError,
    UnknownInstructionError,
)

LANE4 = {0: np.arange(64) * 4}


def _buffer():
    emu = Emulator(seed=1)
    buf = np.arange(64, dtype=np.uint32)
    return emu, {0: srd(emu.alloc(buf), 256)}


def test_pending_read_and_fix():
    emu, s = _buffer()
    bad = """
      buffer_load_dword v1, v0, s[0:3], 0 offen
      v_add_u32 v2, v1, v1
      s_endpgm"""
    with pytest.raises(PendingReadError) as e:
        run(bad, emu=emu, sgprs=s, vgprs=LANE4)
    assert str(e.value) == (
        "read of v1 whose pending vmem result from pc 0 'buffer_load_dword v1, v0, s[0:3], 0 offen' "
        "has not been waited for (s_waitcnt vmcnt) (at workgroup (0, 0, 0), wave 0, pc 1, "
        "'v_add_u32 v2, v1, v1')")
    assert (e.value.pc, e.value.wave) == (1, 0)
    good = bad.replace("v_add_u32", "s_waitcnt vmcnt(0)\n      v_add_u32")
    m = run(good, emu=emu, sgprs=s, vgprs=LANE4)
    assert np.array_equal(m.waves[0].vgpr[2], 2 * np.arange(64))


def test_pending_read_even_when_landed_by_chance():
    # Many instructions between load and use: the load has surely landed, still an error.
    emu, s = _buffer()
    filler = "\n".join("      s_nop 0" for _ in range(300))
    with pytest.raises(PendingReadError):
        run(f"""
      buffer_load_dword v1, v0, s[0:3], 0 offen
{filler}
      v_mov_b32 v2, v1
      s_endpgm""", emu=emu, sgprs=s, vgprs=LANE4)


def test_pending_overwrite_and_fix():
    emu, s = _buffer()
    bad = """
      buffer_load_dword v1, v0, s[0:3], 0 offen
      v_mov_b32 v1, 0
      s_endpgm"""
    with pytest.raises(PendingOverwriteError) as e:
        run(bad, emu=emu, sgprs=s, vgprs=LANE4)
    assert str(e.value).startswith("overwrite of v1 whose pending vmem result from pc 0")
    assert "pc 1, 'v_mov_b32 v1, 0'" in str(e.value)
    m = run(bad.replace("v_mov_b32", "s_waitcnt vmcnt(0)\n      v_mov_b32"), emu=emu, sgprs=s,
            vgprs=LANE4)
    assert not m.waves[0].vgpr[1].any()


def test_vmcnt_partial_covers_older_only():
    emu, s = _buffer()
    text = """
      buffer_load_dword v1, v0, s[0:3], 0 offen
      buffer_load_dword v2, v0, s[0:3], 0 offen offset:4
      s_waitcnt vmcnt(1)
      v_mov_b32 v3, v1
      v_mov_b32 v4, {}
      s_endpgm"""
    with pytest.raises(PendingReadError, match="read of v2"):
        run(text.format("v2"), emu=emu, sgprs=s, vgprs=LANE4)
    m = run(text.format("0"), emu=emu, sgprs=s, vgprs=LANE4)
    assert np.array_equal(m.waves[0].vgpr[3], np.arange(64))


def test_smem_out_of_order_needs_lgkmcnt0():
    emu = Emulator(seed=2)
    buf = np.array([7, 9], np.uint32)
    p = emu.alloc(buf)
    text = """
      s_load_dword s4, s[0:1], 0
      s_load_dword s5, s[0:1], 4
      s_waitcnt lgkmcnt({})
      s_add_u32 s6, s4, 1
      s_endpgm"""
    with pytest.raises(PendingReadError) as e:
        run(text.format(1), emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32]})
    assert "SMEM returns out of order" in str(e.value)
    m = run(text.format(0), emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32]})
    assert m.waves[0].sgpr[6] == 8


def test_lds_in_order_lgkmcnt_partial_is_fine():
    text = """
      ds_write_b32 v0, v0
      ds_read_b32 v1, v0
      ds_read_b32 v2, v0
      s_waitcnt lgkmcnt(1)
      v_mov_b32 v3, v1
      s_endpgm"""
    m = run(text, lds=256, vgprs=LANE4)
    assert np.array_equal(m.waves[0].vgpr[3], np.arange(64) * 4)


def test_lds_race_and_fix():
    # wave 0 writes word 0, wave 1 reads it
    bad = """
      s_cmp_eq_u32 s0, 0
      s_cbranch_scc0 READER
      v_mov_b32 v1, 42
      ds_write_b32 v0, v1
      s_waitcnt lgkmcnt(0)
      s_endpgm
    READER:
      ds_read_b32 v2, v0
      s_waitcnt lgkmcnt(0)
      s_endpgm"""
    for seed in range(4):
        with pytest.raises(LdsRaceError) as e:
            run(bad, n_waves=2, lds=64, seed=seed, sgprs={0: lambda i: i}, vgprs={0: 0})
        assert "LDS race at byte 0" in str(e.value)
        assert "no s_barrier between" in str(e.value)
    good = """
      s_cmp_eq_u32 s0, 0
      s_cbranch_scc0 READER
      v_mov_b32 v1, 42
      ds_write_b32 v0, v1
      s_waitcnt lgkmcnt(0)
      s_barrier
      s_endpgm
    READER:
      s_barrier
      ds_read_b32 v2, v0
      s_waitcnt lgkmcnt(0)
      s_endpgm"""
    for seed in range(4):
        m = run(good, n_waves=2, lds=64, seed=seed, sgprs={0: lambda i: i}, vgprs={0: 0})
        assert (m.waves[1].vgpr[2] == 42).all()


def test_lds_race_when_write_not_waited_before_barrier():
    # the write is not covered by lgkmcnt before the barrier: it may still be in flight
    text = """
      s_cmp_eq_u32 s0, 0
      s_cbranch_scc0 READER
      v_mov_b32 v1, 42
      ds_write_b32 v0, v1
      s_barrier
      s_waitcnt lgkmcnt(0)
      s_endpgm
    READER:
      s_barrier
      ds_read_b32 v2, v0
      s_waitcnt lgkmcnt(0)
      s_endpgm"""
    for seed in range(6):
        with pytest.raises(LdsRaceError):
            run(text, n_waves=2, lds=64, seed=seed, sgprs={0: lambda i: i}, vgprs={0: 0})


def test_lds_out_of_bounds():
    """An element partly past the allocation (256 bytes asked, 512 allocated) is undefined in the ISA
    guide (section 3.6.1) and refused; wholly out-of-range accesses are tests/emu/test_lds_range.py."""
    with pytest.raises(LdsOutOfBoundsError) as e:
        run("ds_write_b64 v0, v[2:3] offset:4\n s_endpgm", lds=256, vgprs={0: np.full(64, 504)})
    assert str(e.value) == ("LDS write of 8 bytes at byte 508 runs past the end of the workgroup's LDS "
                            "allocation of 512 bytes (0..511; 256 requested, rounded up to whole "
                            "blocks): an element partly out of range is undefined in the ISA guide "
                            "(section 3.6.1) (at workgroup (0, 0, 0), wave 0, pc 0, "
                            "'ds_write_b64 v0, v[2:3] offset:4')")
    run("ds_write_b64 v0, v[2:3]\n s_endpgm", lds=256, vgprs={0: np.full(64, 504)})


def test_global_out_of_bounds():
    emu = Emulator()
    arr = np.zeros(16, np.uint32)
    p = emu.alloc(arr)
    text = """
      v_lshlrev_b32 v2, 2, v0
      global_store_dword v2, v0, s[0:1]
      s_endpgm"""
    with pytest.raises(GlobalOutOfBoundsError) as e:
        run(text, emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32]}, vgprs={0: np.arange(64)})
    assert f"global global_store_dword of 4 bytes at address {p + 64:#x} is outside every allocation" \
        in str(e.value)
    assert "pc 1" in str(e.value)
    run(text, emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32]}, vgprs={0: np.arange(64)},
        exec_mask=0xFFFF)
    assert np.array_equal(arr, np.arange(16))


def test_register_budget():
    with pytest.raises(RegisterBudgetError) as e:
        run("v_mov_b32 v40, 0\n s_endpgm", vgpr_budget=32)
    assert str(e.value) == ("register v40 is beyond the kernel descriptor's budget of 32 VGPRs (v0..v31) "
                            "(at workgroup (0, 0, 0), wave 0, pc 0, 'v_mov_b32 v40, 0')")
    with pytest.raises(RegisterBudgetError, match="register s[0-9]+ is beyond .* 16 SGPRs"):
        run("s_mov_b32 s20, 0\n s_endpgm", sgpr_budget=16)
    run("v_mov_b32 v31, 0\n s_endpgm", vgpr_budget=32)


def test_barrier_deadlock_and_fix():
    text = """
      s_cmp_eq_u32 s0, 0
      s_cbranch_scc1 BAR
    LOOP:
      s_branch LOOP
    BAR:
      s_barrier
      s_endpgm"""
    with pytest.raises(BarrierDeadlockError) as e:
        run(text, n_waves=2, sgprs={0: lambda i: i})
    assert "wave 0 waits at s_barrier but wave 1 (at pc 2) can reach neither s_barrier nor s_endpgm" \
        in str(e.value)
    run(text.replace("s_branch LOOP", "s_endpgm"), n_waves=2, sgprs={0: lambda i: i})


def test_barrier_counts_live_waves():
    # wave 1 ends before the barrier: wave 0's barrier releases (cdna-facts section 4)
    m = run("""
      s_cmp_eq_u32 s0, 0
      s_cbranch_scc0 END
      s_barrier
      v_mov_b32 v1, 5
    END:
      s_endpgm""", n_waves=2, sgprs={0: lambda i: i})
    assert (m.waves[0].vgpr[1] == 5).all() and not m.waves[1].vgpr[1].any()


def test_step_limit_and_fix():
    with pytest.raises(StepLimitError) as e:
        run("L:\n s_add_u32 s1, s1, 1\n s_branch L", step_limit=1000)
    assert str(e.value) == ("step limit 1000 exceeded (at workgroup (0, 0, 0), wave 0, pc 0, "
                            "'s_add_u32 s1, s1, 1')")
    m = run("L:\n s_add_u32 s1, s1, 1\n s_cmp_lt_u32 s1, 100\n s_cbranch_scc1 L\n s_endpgm",
            step_limit=1000)
    assert m.waves[0].sgpr[1] == 100


def test_unknown_instruction():
    with pytest.raises(UnknownInstructionError) as e:
        run("ds_append v0\n s_endpgm")
    assert str(e.value) == ("no emulator semantics for mnemonic 'ds_append' (at workgroup "
                            "(0, 0, 0), wave 0, pc 0, 'ds_append v0')")
    # a DS load with semantics runs
    m = run("v_mov_b32 v1, 0\n ds_read_b32 v0, v1\n s_waitcnt lgkmcnt(0)\n s_endpgm", lds=4)
    assert not m.waves[0].vgpr[0].any()


def test_hazard_m0_lds_dma_and_fix():
    emu, s = _buffer()
    bad = """
      s_mov_b32 m0, 0
      buffer_load_dword v0, s[0:3], 0 offen lds
      s_waitcnt vmcnt(0)
      s_endpgm"""
    with pytest.raises(HazardError) as e:
        run(bad, emu=emu, sgprs=s, vgprs=LANE4, lds=256)
    msg = str(e.value)
    assert "needs 1 wait states after pc 0 's_mov_b32 m0, 0', got 0" in msg
    assert "pc 1" in msg
    run(bad.replace("s_mov_b32 m0, 0", "s_mov_b32 m0, 0\n      s_nop 0"), emu=emu, sgprs=s,
        vgprs=LANE4, lds=256)


def test_hazard_valu_sgpr_to_vmem_and_fix():
    emu, s = _buffer()
    bad = """
      v_readfirstlane_b32 s4, v9
      buffer_load_dword v1, v0, s[0:3], s4 offen
      s_waitcnt vmcnt(0)
      s_endpgm"""
    with pytest.raises(HazardError, match="needs 5 wait states .* got 0"):
        run(bad, emu=emu, sgprs=s, vgprs={**LANE4, 9: 0})
    run(bad.replace("buffer_load", "s_nop 4\n      buffer_load"), emu=emu, sgprs=s, vgprs={**LANE4, 9: 0})
