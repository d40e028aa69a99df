"""ds_read_b* / ds_write_b* and ds_read2* / ds_write2* bound for groups of waves (isa.emu.mem_lds_group) give the registers,
LDS bytes and errors of the per-wave handlers: a barrier-separated exchange through LDS run with
every step a group step and with every step a single wave; an LDS race, a wave out of range and
unaligned addresses raise or run alike."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import mem_lds_group, program
from isa.emu.errors import LdsRaceError
from isa.emu.machine import Machine

TEXT = """
      v_lshlrev_b32 v4, 4, v0
      v_add_u32 v4, s2, v4
      v_lshlrev_b32 v6, 4, v0
      v_add_u32 v6, s3, v6
      s_mov_b32 s1, 0
    L:
      v_add_u32 v10, v10, v0
      v_add_u32 v11, v10, 1
      v_add_u32 v12, v10, 2
      v_add_u32 v13, v10, 3
      ds_write_b128 v4, v[10:13]
      ds_write_b32 v4, v12 offset:4
      ds_write_b64 v4, v[12:13] offset:4160
      ds_write2_b32 v4, v12, v13 offset0:2 offset1:3
      ds_write2_b64 v4, v[10:11], v[12:13] offset0:1 offset1:0
      s_waitcnt lgkmcnt(0)
      s_barrier
      ds_read_b64 v[20:21], v6
      ds_read_b128 v[24:27], v6 offset:4160
      ds_read_b32 v28, v6 offset:12
      ds_read2_b32 v[34:35], v6 offset0:1 offset1:3
      ds_read2st64_b64 v[36:39], v6 offset0:0 offset1:1
      s_waitcnt lgkmcnt(0)
      v_add_u32 v30, v30, v21
      v_add_u32 v31, v31, v24
      v_xor_b32 v32, v32, v28
      s_barrier
      s_add_u32 s1, s1, 1
      s_cmp_lt_u32 s1, 6
      s_cbranch_scc1 L
      s_endpgm"""


def _run(monkeypatch, text, split, seed, shift=0, bases=None):
    monkeypatch.setattr(program, "GROUP_BIND_AFTER", 1)
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    bases = bases or (lambda i: 1040 * i + shift)
    return run(text, n_waves=4, seed=seed, lds=8320,
               sgprs={2: bases, 3: lambda i: bases(i ^ 1)}, vgprs={0: np.arange(64), 10: 0, 30: 0, 31: 0, 32: 0})


@pytest.mark.parametrize("shift", [0, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_group_ds_ops_match_per_wave(monkeypatch, seed, shift):
    """Aligned addresses take the group path; unaligned ones (shift 2) its per-wave fallback."""
    calls = {"group": 0, "fallback": 0}
    ordered, per_wave = mem_lds_group._ordered, mem_lds_group._per_wave

    def count_ordered(g):
        calls["group"] += 1
        return ordered(g)

    def count_fallback(fn, members):
        calls["fallback"] += 1
        return per_wave(fn, members)
    monkeypatch.setattr(mem_lds_group, "_ordered", count_ordered)
    monkeypatch.setattr(mem_lds_group, "_per_wave", count_fallback)
    one = _run(monkeypatch, TEXT, 1.0, seed, shift)
    assert calls == {"group": 0, "fallback": 0}
    grp = _run(monkeypatch, TEXT, 0.0, seed, shift)
    assert calls["group"] >= 6 * 10 - 12         # ds ops of the loop ran as group operations
    assert (calls["fallback"] > 0) == bool(shift)
    assert np.array_equal(one.lds.data, grp.lds.data)
    for a, b in zip(one.waves, grp.waves):
        assert np.array_equal(a.vgpr, b.vgpr)
    # the exchange itself: wave w read its partner's last ds_write_b128 dword 0 (v10 = 6 * lane)
    lane = np.arange(64, dtype=np.uint32)
    assert np.array_equal(grp.waves[0].vgpr[24], 6 * lane + 2)   # offset 4160: the b64 of v12
    # the partner's lane dwords after b128, b32 @4, write2_b32 @8/@12, write2_b64 @8/@0:
    # v12 v13 v10 v11; read2_b32 at byte offsets 4 and 12 (offset0/offset1 in dwords) -> v13, v11
    assert np.array_equal(grp.waves[0].vgpr[34], 6 * lane + 3)
    assert np.array_equal(grp.waves[0].vgpr[35], 6 * lane + 1)


@pytest.mark.parametrize("seed", [0, 1])
def test_group_ds_race_is_found(monkeypatch, seed):
    text = TEXT.replace("s_waitcnt lgkmcnt(0)\n      s_barrier\n      ds_read_b64",
                        "s_waitcnt lgkmcnt(0)\n      ds_read_b64", 1)
    with pytest.raises(LdsRaceError, match="LDS race") as info:
        _run(monkeypatch, text, 0.0, seed)
    assert any(entry.name == "gfn" for entry in info.traceback)
    with pytest.raises(LdsRaceError, match="LDS race"):
        _run(monkeypatch, text, 1.0, seed)


@pytest.mark.parametrize("seed", [0, 1])
def test_group_ds_out_of_range_wave_is_clamped_alike(monkeypatch, seed):
    """One wave's addresses past the allocation (reads give 0, writes are dropped, isa.emu.lds):
    the group goes through the per-wave handler and ends as the per-wave run does."""
    def bases(i):
        return 8320 if i == 2 else 1040 * i
    calls = {"fallback": 0}
    per_wave = mem_lds_group._per_wave

    def count_fallback(fn, members):
        calls["fallback"] += 1
        return per_wave(fn, members)
    monkeypatch.setattr(mem_lds_group, "_per_wave", count_fallback)
    one = _run(monkeypatch, TEXT, 1.0, seed, bases=bases)
    grp = _run(monkeypatch, TEXT, 0.0, seed, bases=bases)
    assert calls["fallback"] > 0
    assert np.array_equal(one.lds.data, grp.lds.data)
    for a, b in zip(one.waves, grp.waves):
        assert np.array_equal(a.vgpr, b.vgpr)
    assert not grp.waves[3].vgpr[24].any()        # wave 3 read wave 2's dropped writes: zeros
