"""Cross-workgroup ordering of global writes (isa.emu.global_sync): LLVM-compiled release/acquire
hand-offs between workgroups run (AMDGPUUsage "Memory Model GFX942": buffer_wbl2 sc1; s_waitcnt
vmcnt(0); store sc1 -> load sc1; s_waitcnt vmcnt(0); buffer_inv sc1), the same code with a relaxed
store or without the wait is a GlobalRaceError, atomics of many workgroups on one word do not race
but an atomic and another workgroup's plain store do, unless ordered."""
from __future__ import annotations

import numpy as np
import pytest
from test_llvm_kernels_zoo_util import SEEDS, build, launch, mnemonics, needs_llvm

from isa.emu.errors import GlobalRaceError

SOURCE = r"""
#define ID __builtin_amdgcn_workitem_id_x()
#define WG __builtin_amdgcn_workgroup_id_x()
#define SYNC __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
             __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup")
#define POLL(LD) if (ID == 0) \
    while (__scoped_atomic_load_n(flag, LD, __MEMORY_SCOPE_DEVICE) == 0) __builtin_amdgcn_s_sleep(1);
/* workgroup 0 writes data and raises the flag; workgroup 1 waits for it, then rewrites data */
#define HANDOFF(name, ST, WAIT, BODY1) \
__kernel void name(__global uint *data, __global uint *flag) { \
  uint i = ID; \
  if (WG == 0) { \
    data[i] = 100 + i; SYNC; \
    if (i == 0) __scoped_atomic_store_n(flag, 1u, ST, __MEMORY_SCOPE_DEVICE); \
  } else { \
    if (WAIT) { POLL(__ATOMIC_ACQUIRE) } SYNC; BODY1; \
  } \
}
HANDOFF(handoff, __ATOMIC_RELEASE, 1, data[i] += 1)
HANDOFF(handoff_relaxed, __ATOMIC_RELAXED, 1, data[i] += 1)
HANDOFF(handoff_nowait, __ATOMIC_RELEASE, 0, data[i] += 1)
HANDOFF(handoff_atomic, __ATOMIC_RELEASE, 1, __scoped_atomic_fetch_add(&data[i], 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE))
HANDOFF(handoff_atomic_nowait, __ATOMIC_RELEASE, 0, __scoped_atomic_fetch_add(&data[i], 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE))
/* workgroup 1 copies what workgroup 0 wrote: after the flag (handoff_read) or not (read_nowait) */
__kernel void handoff_read(__global uint *data, __global uint *flag, __global uint *out) {
  uint i = ID;
  if (WG == 0) {
    data[i] = 100 + i; SYNC;
    if (i == 0) __scoped_atomic_store_n(flag, 1u, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
  } else { POLL(__ATOMIC_ACQUIRE) SYNC; out[i] = data[i]; }
}
__kernel void read_nowait(__global uint *data, __global uint *flag, __global uint *out) {
  uint i = ID;
  if (WG == 0) data[i] = 100 + i; else out[i] = data[i];
}
__kernel void count(__global uint *data) {
  __scoped_atomic_fetch_add(&data[ID], WG + 1, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}
"""
N = 256      # lanes per workgroup: 4 waves, so the workgroup barrier matters


def _run(kernel: str, seed: int, grid: int = 2):
    data, flag = np.zeros(N, np.uint32), np.zeros(1, np.uint32)
    launch(build(SOURCE, "gfx942"), "gfx942", kernel, data, flag, grid=(grid, 1, 1), block=(N, 1, 1),
           seed=seed)
    return data, flag


@needs_llvm
def test_llvm_emits_the_gfx942_release_and_acquire_sequences():
    ops = mnemonics(build(SOURCE, "gfx942"), "gfx942", "handoff")
    assert {"buffer_wbl2", "buffer_inv", "s_sleep", "global_store_dword", "global_load_dword"} <= ops


@needs_llvm
@pytest.mark.parametrize("seed", SEEDS)
def test_release_acquire_handoff_between_workgroups_runs(seed):
    data, flag = _run("handoff", seed)
    assert (data == 101 + np.arange(N)).all() and flag[0] == 1
    data, _ = _run("handoff_atomic", seed)
    assert (data == 101 + np.arange(N)).all()


@needs_llvm
@pytest.mark.parametrize("kernel", ["handoff_relaxed", "handoff_nowait", "handoff_atomic_nowait"])
def test_unsynchronised_handoff_is_a_race(kernel):
    # relaxed: no buffer_wbl2 / s_waitcnt before the flag store, the data store is not published;
    # nowait: workgroup 1 does not poll at all; atomic_nowait: an atomic and a plain store race
    with pytest.raises(GlobalRaceError, match="no release -> acquire"):
        _run(kernel, 0)


@needs_llvm
@pytest.mark.parametrize("seed", SEEDS)
def test_atomics_of_many_workgroups_on_one_word_do_not_race(seed):
    data = np.zeros(N, np.uint32)
    launch(build(SOURCE, "gfx942"), "gfx942", "count", data, grid=(4, 1, 1), block=(N, 1, 1), seed=seed)
    assert (data == 1 + 2 + 3 + 4).all()


# aiter's split-K protocol in miniature (scalar memory; docs/production-kernels.md): workgroup 0
# stores data and raises a flag with s_store_dword glc; workgroup 1 polls it with s_load_dword glc,
# then adds into the data with an atomic.
SCALAR = """
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc0 .Lwait
  v_mov_b32 v2, 7
  {store}
  {fence}
  s_mov_b32 s8, 1
  s_store_dword s8, s[6:7], 0x0 glc
  s_waitcnt lgkmcnt(0)
  s_endpgm
.Lwait:
  s_load_dword s8, s[6:7], 0x0 glc
  s_waitcnt lgkmcnt(0)
  s_cmp_eq_u32 s8, 0
  s_cbranch_scc1 .Lwait
  v_mov_b32 v2, 1
  global_atomic_add v1, v2, s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm"""
DIRS = ("  .amdhsa_next_free_vgpr 8\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 8\n"
        "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n")
COHERENT = "global_store_dword v1, v2, s[4:5] sc0 sc1"
PLAIN = "global_store_dword v1, v2, s[4:5]"


def _scalar(store: str, fence: str, seed: int = 0):
    from hand_kernel import hand_kernel

    from isa.emu import Emulator
    data, flag = np.zeros(64, np.uint32), np.zeros(1, np.uint32)
    emu = Emulator(seed=seed)
    blob = np.array([emu.alloc(data), emu.alloc(flag)], np.uint64).tobytes()
    emu.launch(hand_kernel(SCALAR.format(store=store, fence=fence), DIRS), "k", grid=(2, 1, 1),
               block=(64, 1, 1), kernargs=blob)
    return data


@needs_llvm
@pytest.mark.parametrize("seed", SEEDS)
def test_scalar_flag_handoff_orders_completed_coherent_or_written_back_stores(seed):
    assert (_scalar(COHERENT, "s_waitcnt vmcnt(0)", seed) == 8).all()
    assert (_scalar(PLAIN, "buffer_wbl2 sc1\n  s_waitcnt vmcnt(0)", seed) == 8).all()


@needs_llvm
@pytest.mark.parametrize("store, fence", [(COHERENT, ""), (PLAIN, "s_waitcnt vmcnt(0)")],
                         ids=["store-not-waited", "not-written-back"])
def test_scalar_flag_handoff_without_the_wait_or_writeback_is_a_race(store, fence):
    with pytest.raises(GlobalRaceError, match="no release -> acquire"):
        _scalar(store, fence)


def _copy(kernel: str, seed: int = 0):
    from isa.emu import Emulator
    data, flag, out = np.zeros(N, np.uint32), np.zeros(1, np.uint32), np.zeros(N, np.uint32)
    # workgroup 0 first, then workgroup 1: the order that hides a missing wait from a value check
    emu = Emulator(seed=seed, concurrent_workgroups=1, shuffle_workgroups=False)
    blob = np.array([emu.alloc(data), emu.alloc(flag), emu.alloc(out)], np.uint64).tobytes()
    emu.launch(build(SOURCE, "gfx942"), kernel, grid=(2, 1, 1), block=(N, 1, 1), kernargs=blob)
    return out


@needs_llvm
def test_reading_another_workgroups_write_needs_the_handoff():
    assert (_copy("handoff_read") == 100 + np.arange(N)).all()
    with pytest.raises(GlobalRaceError, match="global read race: .* read by workgroup .* after workgroup"):
        _copy("read_nowait")


# the same copy through a raw buffer load (the MUBUF fast path) is checked as well
BUF_COPY = """
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dwordx2 s[10:11], s[0:1], 0x10
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc0 .Lcopy
  global_store_dword v1, v0, s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm
.Lcopy:
  s_mov_b32 s12, s4
  s_and_b32 s13, s5, 0xffff
  s_mov_b32 s14, 256
  s_mov_b32 s15, 0x20000
  buffer_load_dword v2, v1, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm"""


@needs_llvm
def test_buffer_load_of_another_workgroups_store_is_a_read_race():
    from hand_kernel import hand_kernel

    from isa.emu import Emulator
    data, flag, out = np.zeros(64, np.uint32), np.zeros(1, np.uint32), np.zeros(64, np.uint32)
    emu = Emulator(concurrent_workgroups=1, shuffle_workgroups=False)
    blob = np.array([emu.alloc(data), emu.alloc(flag), emu.alloc(out)], np.uint64).tobytes()
    with pytest.raises(GlobalRaceError, match="global read race"):
        emu.launch(hand_kernel(BUF_COPY, DIRS), "k", grid=(2, 1, 1), block=(64, 1, 1), kernargs=blob)
