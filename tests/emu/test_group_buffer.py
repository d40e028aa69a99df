"""buffer_load_* / buffer_store_* bound for groups of waves (isa.emu.mem_buffer_group) give the
registers, memory bytes and errors of the per-wave handlers: loads and stores of every dword width
and shorts, per-wave soffsets, a masked tail (lanes wholly out of range read 0 and write nothing)
and a partly-in-range tail (the per-wave fallback), a V# with num_records 0 (no lane in range), an in-order VMEM write-after-write, run with
every step a group step and with every step a single wave; an address outside every allocation
raises alike; a group record (isa.emu.pending ``issue_group``) landed early by one member's wait
first lands every member's older VMEM ops; two workgroups in one pool storing the same bytes in
group steps are a global write race, and a group's write claims are recorded in one scatter
(isa.emu.global_sync ``write_plain_group``) only when member-by-member claims would check nothing."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd
from test_llvm_kernels_zoo_util import needs_llvm  # the suite's one clang-22/ld.lld-22 skip

from isa.emu import Emulator, mem_buffer_group, pending, program
from isa.emu.errors import GlobalOutOfBoundsError, GlobalRaceError, PendingReadError
from isa.emu.machine import Machine

TEXT = """
      v_lshlrev_b32 v1, 4, v0
      v_add_u32 v1, s12, v1
      s_mov_b32 s1, 0
    L:
      buffer_load_dwordx4 v[4:7], v1, s[4:7], s13 offen offset:16
      buffer_load_dword v8, v1, s[4:7], 0 offen
      buffer_load_ushort v9, v1, s[4:7], 4 offen offset:2
      buffer_load_sshort v10, v1, s[4:7], 0 offen offset:6
      buffer_load_dwordx2 v[12:13], v1, s[4:7], s13 offen offset:8
      buffer_load_dword v8, v1, s[4:7], 0 offen offset:4
      buffer_load_dword v14, v1, s[20:23], 0 offen
      s_waitcnt vmcnt(0)
      v_add_u32 v11, v4, v8
      buffer_store_dwordx4 v[4:7], v1, s[8:11], s13 offen
      buffer_store_dword v11, v1, s[8:11], 0 offen offset:8
      buffer_store_short v10, v1, s[8:11], 0 offen offset:14
      buffer_store_dwordx2 v[12:13], v1, s[16:19], 0 offen offset:4
      buffer_store_dword v8, v1, s[20:23], 0 offen
      s_waitcnt vmcnt(0)
      v_add_u32 v1, v1, 4
      s_add_u32 s1, s1, 1
      s_cmp_lt_u32 s1, 3
      s_cbranch_scc1 L
      s_endpgm"""
SRC_BYTES = 4352     # waves 1088 bytes apart: no two waves write one byte
DST_BYTES = 4352
MASKED = 3776        # wave 3's tail: 3264 + 512


def _run(monkeypatch, split, seed, nr_src, nr_dst, text=TEXT, src_bytes=SRC_BYTES):
    monkeypatch.setattr(program, "GROUP_BIND_AFTER", 1)
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    emu = Emulator(seed=seed)
    src = np.random.default_rng(7).integers(0, 256, src_bytes, dtype=np.uint8)
    dst = np.zeros(2 * DST_BYTES, np.uint8)
    a_src, a_dst = emu.alloc(src), emu.alloc(dst)
    m = run(text, emu=emu, n_waves=4, seed=seed,
            sgprs={4: srd(a_src, nr_src), 8: srd(a_dst, nr_dst), 12: lambda i: 1088 * i,
                   16: srd(a_dst + DST_BYTES, nr_dst), 20: srd(a_dst, 0),
                   13: lambda i: 4 * i},
            vgprs={0: np.arange(64), 14: 0xDEAD})
    return m, src, dst


def _spy(monkeypatch):
    calls = {"group": 0, "fallback": 0}
    where, per_wave = mem_buffer_group._where, mem_buffer_group._per_wave

    def count_where(*a):
        got = where(*a)
        calls["group"] += got is not None
        return got

    def count_fallback(fn, members):
        calls["fallback"] += 1
        return per_wave(fn, members)
    monkeypatch.setattr(mem_buffer_group, "_where", count_where)
    monkeypatch.setattr(mem_buffer_group, "_per_wave", count_fallback)
    return calls


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("nr", [SRC_BYTES, MASKED])
def test_group_buffer_ops_match_per_wave(monkeypatch, seed, nr):
    """nr MASKED: wave 3's last lanes are wholly out of range in the first iteration (group path,
    masked) and its dwordx4 lanes partly in range later (per-wave fallback)."""
    calls = _spy(monkeypatch)
    nr_dst = DST_BYTES if nr == SRC_BYTES else nr
    one, _, d_one = _run(monkeypatch, 1.0, seed, nr, nr_dst)
    assert calls == {"group": 0, "fallback": 0}
    grp, src, d_grp = _run(monkeypatch, 0.0, seed, nr, nr_dst)
    assert calls["group"] >= 3 * 12 - 12              # the loop's buffer ops ran as group operations
    assert (calls["fallback"] > 0) == (nr != SRC_BYTES)
    assert d_one.tobytes() == d_grp.tobytes()
    for a, b in zip(one.waves, grp.waves):
        assert np.array_equal(a.vgpr, b.vgpr)
    # the NumPy model of the last iteration (offset 8 more than the first): wave 0 lane l reads
    # at 16 l + 8 (+ inst_offset), the later load of v8 wins (VMEM loads write in issue order)
    lane = np.arange(64)
    words = src.view(np.uint32)
    w0 = grp.waves[0].vgpr
    assert np.array_equal(w0[8], words[(16 * lane + 8 + 4) // 4])
    halves = src.view(np.int16)
    assert np.array_equal(w0[10], halves[(16 * lane + 8 + 6) // 2].astype(np.int32).astype(np.uint32))
    assert not grp.waves[2].vgpr[14].any()          # num_records 0: every lane reads 0
    if nr != SRC_BYTES:      # wave 3, lane 63: its first access is out of range and reads 0
        assert (grp.waves[3].vgpr[4:8, 63] == 0).all() and grp.waves[3].vgpr[8, 63] == 0


@pytest.mark.parametrize("seed", [0, 1])
def test_group_buffer_out_of_bounds_raises_alike(monkeypatch, seed):
    """A V# whose num_records reaches past the allocation: the in-range address outside every
    allocation is the per-wave path's GlobalOutOfBoundsError, same wave, same message."""
    errs = []
    calls = _spy(monkeypatch)
    for split in (1.0, 0.0):
        with pytest.raises(GlobalOutOfBoundsError) as ei:
            _run(monkeypatch, split, seed, 1 << 20, DST_BYTES, src_bytes=2048)
        errs.append(str(ei.value))
    assert calls["fallback"] > 0 and calls["group"] == 0
    for e in errs:       # the first wave to get there differs with the interleaving
        assert "buffer load of 16 bytes at address" in e and "outside every allocation" in e and "pc 3," in e


class _W:
    """A wave as isa.emu.pending sees it."""

    def __init__(self):
        self.vm_queue, self.lgkm_queue, self.pending_regs = [], [], {}


class _M:
    def __init__(self):
        self.clock = pending.Clock()


def test_group_record_landed_early_lands_every_members_older_ops_first():
    """Wave b's own load, then a group record of a and b: a's s_waitcnt vmcnt(0) lands the record
    before its time, and b's older load lands before it (b's VMEM ops complete in issue order);
    the record's registers are pending in both waves until each one's own wait covers them."""
    m, a, b = _M(), _W(), _W()
    a.mach = b.mach = m
    log = []
    own = pending.AsyncOp(b, pending.VM, (1005,), lambda: log.append("b own"), 0, None)
    pending.issue(m, b, own, 50)
    rec = pending.Record(m, pending.VM, lambda: log.append("record"), 1)
    pa, pb = (pending.AsyncOp(w, pending.VM, (1005,), None, 1, None) for w in (a, b))
    rec.add(a, pa)
    rec.add(b, pb)
    rec.push()
    assert pa.land_time == pb.land_time >= own.land_time and pa.seq < pb.seq
    assert a.vm_queue == [pa] and b.vm_queue == [own, pb]
    assert a.pending_regs[1005] is pa and b.pending_regs[1005] is pb
    pending.waitcnt(m, a, 0, None)
    assert log == ["b own", "record"] and pa.landed and pb.landed
    assert 1005 not in a.pending_regs and b.pending_regs[1005] is pb
    pending.waitcnt(m, b, 0, None)
    assert log == ["b own", "record"] and not b.pending_regs and not b.vm_queue
    pending.land_due(m.clock)          # the heap's entries land once only
    assert log == ["b own", "record"]


RACE = """
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  s_mov_b32 s12, s4
  s_and_b32 s13, s5, 0xffff
  s_mov_b32 s14, 1024
  s_mov_b32 s15, 0x20000
  buffer_store_dword v0, v1, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
  s_endpgm"""
DIRS = ("  .amdhsa_next_free_vgpr 8\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 8\n"
        "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n")


@needs_llvm
@pytest.mark.parametrize("split", [1.0, 0.0])
def test_group_stores_of_two_workgroups_race(monkeypatch, split):
    """Two workgroups of 4 waves run side by side store the same bytes with no release ->
    acquire between them: a GlobalRaceError whether the stores step per wave or as group
    operations mixing both workgroups' waves."""
    from hand_kernel import hand_kernel
    monkeypatch.setattr(program, "GROUP_BIND_AFTER", 1)
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    calls = _spy(monkeypatch)
    data = np.zeros(256, np.uint32)
    emu = Emulator(concurrent_workgroups=2)
    blob = np.array([emu.alloc(data)], np.uint64).tobytes()
    with pytest.raises(GlobalRaceError, match="global write race"):
        emu.launch(hand_kernel(RACE, DIRS), "k", grid=(2, 1, 1), block=(256, 1, 1), kernargs=blob)
    assert (calls["group"] > 0) == (split == 0.0)


DMA = """
      v_lshlrev_b32 v1, {shift}, v0
      v_add_u32 v1, s12, v1
      v_lshlrev_b32 v3, {shift}, v0
      v_add_u32 v3, s15, v3
      s_mov_b32 m0, s14
      s_mov_b32 s1, 0
    L:
      buffer_load_{op} v1, s[4:7], s13 offen offset:4 lds
      s_waitcnt vmcnt(0)
      s_barrier
      ds_read_b32 v2, v3
      s_waitcnt lgkmcnt(0)
      v_add_u32 v10, v10, v2
      v_add_u32 v3, {step}, v3
      v_add_u32 v1, 4, v1
      s_barrier
      s_add_u32 m0, m0, {step}
      s_add_u32 s1, s1, 1
      s_cmp_lt_u32 s1, 3
      s_cbranch_scc1 L
      s_endpgm"""


def _dma(monkeypatch, split, seed, arch, op, nr=None, text=DMA):
    monkeypatch.setattr(program, "GROUP_BIND_AFTER", 1)
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    wide = op == "dwordx4"
    step, region = (1024, 4096) if wide else (256, 1024)
    emu = Emulator(seed=seed, arch=arch)
    src = np.random.default_rng(3).integers(0, 1 << 32, 4 * 1088 // 4 * (4 if wide else 1),
                                            dtype=np.uint64).astype(np.uint32)
    a_src = emu.alloc(src)
    m = run(text.format(op=op, shift=4 if wide else 2, step=step), emu=emu, n_waves=4, seed=seed,
            lds=4 * region, sgprs={4: srd(a_src, src.nbytes if nr is None else nr),
                                   12: lambda i: (1088 if not wide else 4352) * i,
                                   13: lambda i: 4 * i, 14: lambda i: region * i,
                                   15: lambda i: region * (i ^ 1)},
            vgprs={0: np.arange(64), 10: 0})
    return m, src


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("arch, op, nr", [("gfx942", "dword", None), ("gfx942", "dword", 3520),
                                          ("gfx950", "dwordx4", None)])
def test_group_lds_dma_matches_per_wave(monkeypatch, seed, arch, op, nr):
    """LDS-DMA loads (M0 per wave, lane stride 4, or 16 for gfx950's dwordx4) as group
    operations: the LDS bytes and registers of the per-wave run; nr 3520: wave 3's last lanes
    are out of range and land zeros in LDS."""
    calls = _spy(monkeypatch)
    one, _ = _dma(monkeypatch, 1.0, seed, arch, op, nr)
    assert calls == {"group": 0, "fallback": 0}
    grp, src = _dma(monkeypatch, 0.0, seed, arch, op, nr)
    assert calls["group"] >= 2 and calls["fallback"] == 0
    assert np.array_equal(one.lds.data, grp.lds.data)
    for a, b in zip(one.waves, grp.waves):
        assert np.array_equal(a.vgpr, b.vgpr)
    # NumPy model of the last DMA (iteration 2; CDNA3 ISA "Buffer to LDS": LDS byte M0 +
    # inst_offset + 4 * lane, global byte base + soffset + VGPR offset + inst_offset): wave 0 at
    # LDS dword 128 + 1 + lane reads global dword 3 + lane (v1 advanced 4 bytes per iteration)
    if op == "dword":
        lds = grp.lds.data.view(np.uint32)
        assert np.array_equal(lds[129:129 + 64], src[np.arange(64) + 3])
        if nr is not None:      # wave 3 (base 3264, soffset 12): lanes past num_records landed 0
            assert lds[768 + 129 + 63] == 0 and lds[768 + 129] == src[(3264 + 12 + 12) // 4]


def test_group_lds_dma_then_ds_read_without_vmcnt_is_found(monkeypatch):
    """A ds_read of bytes the wave's own LDS-DMA still writes (no s_waitcnt vmcnt) is a
    PendingReadError whether the DMA ran as a group operation or per wave."""
    bad = DMA.replace("      s_waitcnt vmcnt(0)\n      s_barrier\n      ds_read_b32 v2, v3",
                      "      ds_read_b32 v2, v4\n      s_waitcnt vmcnt(0)\n      s_barrier")
    bad = bad.replace("      s_mov_b32 m0, s14\n", "      s_mov_b32 m0, s14\n      v_lshlrev_b32 v4, 2, v0\n"
                      "      v_add_u32 v4, s14, v4\n")
    for split in (1.0, 0.0):
        with pytest.raises(PendingReadError, match="LDS-DMA write has not been waited for"):
            _dma(monkeypatch, split, 0, "gfx942", "dword", text=bad)


TILES = """
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  s_mul_i32 s6, s2, {stride}
  v_add_u32 v1, s6, v1
  v_add_u32 v2, s2, v0
  s_mov_b32 s12, s4
  s_and_b32 s13, s5, 0xffff
  s_mov_b32 s14, 2048
  s_mov_b32 s15, 0x20000
  buffer_store_dword v2, v1, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
  s_endpgm"""


def _tiles(monkeypatch, stride, cap, split):
    from hand_kernel import hand_kernel

    from isa.emu import global_sync
    monkeypatch.setattr(program, "GROUP_BIND_AFTER", 1)
    monkeypatch.setitem(Machine.__init__.__kwdefaults__, "split", split)
    seen = []
    real = global_sync.GlobalSync.write_plain_group

    def spy(self, *a):
        seen.append(real(self, *a))
        return seen[-1]
    monkeypatch.setattr(global_sync.GlobalSync, "write_plain_group", spy)
    out = np.zeros(512, np.uint32)
    emu = Emulator(concurrent_workgroups=cap, shuffle_workgroups=False)
    blob = np.array([emu.alloc(out)], np.uint64).tobytes()
    emu.launch(hand_kernel(TILES.format(stride=stride), DIRS), "k", grid=(2, 1, 1), block=(256, 1, 1),
               kernargs=blob)
    return out, seen


@needs_llvm
@pytest.mark.parametrize("cap, split", [(None, 0.0), (1, 0.0), (None, 1.0)])
def test_group_store_claims_recorded_at_once(monkeypatch, cap, split):
    """Each workgroup's waves store their own bytes (workgroup w at 1024 w): the group's write
    claims are recorded in one scatter (GlobalSync.write_plain_group) and the bytes are NumPy's."""
    out, seen = _tiles(monkeypatch, 1024, cap, split)
    tid = np.arange(256)
    assert np.array_equal(out, np.concatenate([tid, tid + 1]))
    assert (True in seen) == (split == 0.0)


@needs_llvm
@pytest.mark.parametrize("cap", [None, 1])
def test_group_store_claims_find_the_race(monkeypatch, cap):
    """Both workgroups store the same 1024 bytes: a GlobalRaceError whether they are in one
    group (two members write one byte: member by member) or one after the other (the second
    group's bytes were written before: member by member, which checks them)."""
    calls = _spy(monkeypatch)
    with pytest.raises(GlobalRaceError, match="global write race"):
        _tiles(monkeypatch, 0, cap, 0.0)
    assert calls["group"] > 0 and calls["fallback"] == 0      # the stores were group operations


def test_group_record_landing_at_its_time_follows_every_members_older_ops():
    """From the heap a record lands after every member's older op (their times are at most its
    time and their heap keys come first), so it needs no walk of the members' queues."""
    m, a, b = _M(), _W(), _W()
    a.mach = b.mach = m
    log = []
    own = pending.AsyncOp(b, pending.VM, (), lambda: log.append("b own"), 0, None)
    pending.issue(m, b, own, 5)
    rec = pending.Record(m, pending.VM, lambda: log.append("record"), 1)
    for w in (a, b):
        rec.add(w, pending.AsyncOp(w, pending.VM, (), None, 1, None))
    rec.push()
    assert rec.land_time == own.land_time
    m.clock.now = rec.land_time
    pending.land_due(m.clock)
    assert log == ["b own", "record"] and not m.clock.heap
