"""The race detectors of a pool's workgroups as rows of one array (isa.emu.lds_pool): group steps
whose ds_write / ds_read members come from four workgroups record them in one test, with the
bytes and errors of one test per workgroup: an LDS exchange between the waves of each workgroup
gives the NumPy result in lockstep and per wave, with all workgroups at once or one at a time;
without its s_barrier the exchange is an LdsRaceError either way."""
from __future__ import annotations

import numpy as np
import pytest
from test_llvm_kernels_zoo_util import needs_llvm  # the suite's one clang-22/ld.lld-22 skip

from isa.emu import Emulator, lds_pool, program
from isa.emu.errors import LdsRaceError
from isa.emu.machine import Machine

BODY = """
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s12, s4
  s_and_b32 s13, s5, 0xffff
  s_mov_b32 s14, 4096
  s_mov_b32 s15, 0x20000
  s_lshl_b32 s6, s2, 10
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v5, s6, v1
  v_xor_b32 v3, 0x100, v1
  s_mov_b32 s7, 0
.Lloop:
  v_add_u32 v2, s2, v0
  v_add_u32 v2, s7, v2
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
{sync}
  ds_read_b32 v4, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_add_u32 s7, s7, 1
  s_cmp_lt_u32 s7, 4
  s_cbranch_scc1 .Lloop
  buffer_store_dword v4, v5, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
  s_endpgm"""
DIRS = ("  .amdhsa_next_free_vgpr 8\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 8\n"
        "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_group_segment_fixed_size 1024\n")


def _launch(monkeypatch, split, cap, sync="  s_barrier", seed=0):
    from hand_kernel import hand_kernel
    monkeypatch.setattr(program, "GROUP_BIND_AFTER", 1)
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    out = np.zeros(4 * 256, np.uint32)
    emu = Emulator(seed=seed, concurrent_workgroups=cap)
    blob = np.array([emu.alloc(out)], np.uint64).tobytes()
    emu.launch(hand_kernel(BODY.format(sync=sync), DIRS), "k", grid=(4, 1, 1), block=(256, 1, 1),
               kernargs=blob)
    return out


def _spy(monkeypatch):
    calls = {"batched": 0}
    real = lds_pool._batch

    def spy(runs):
        got = real(runs)
        calls["batched"] += got is not None
        return got
    monkeypatch.setattr(lds_pool, "_batch", spy)
    return calls


@needs_llvm
@pytest.mark.parametrize("seed", [0, 1])
def test_pooled_detector_exchange_matches(monkeypatch, seed):
    calls = _spy(monkeypatch)
    tid = np.arange(256)
    want = np.concatenate([wg + 3 + (tid ^ 64) for wg in range(4)]).astype(np.uint32)
    got = {}
    for split, cap in ((0.0, None), (1.0, None), (0.0, 1)):
        got[split, cap] = _launch(monkeypatch, split, cap, seed=seed)
        assert np.array_equal(got[split, cap], want)
        if (split, cap) == (0.0, None):
            assert calls["batched"] >= 4      # writes and reads of 4 workgroups in one test


@needs_llvm
@pytest.mark.parametrize("split", [0.0, 1.0])
def test_pooled_detector_finds_the_race(monkeypatch, split):
    """No s_barrier between a wave's ds_write and its partner's ds_read."""
    calls = _spy(monkeypatch)
    with pytest.raises(LdsRaceError, match="LDS race at byte"):
        _launch(monkeypatch, split, None, sync="")
    assert (calls["batched"] > 0) == (split == 0.0)
