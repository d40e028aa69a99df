"""Every operand form of the isa.emu.mem_ds_extra / mem_d16_extra instructions, one lane each with
hand-computed values (the behaviour tests with edge cases are in test_mem_extra.py)."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd
from test_mem_extra import M32, _bf, _fmt_srd, _pk

from isa.emu import Emulator


# ------------------------------------------------------------------------------------------------
# every form, one lane each: (mnemonic, 64-bit?, memory before, data0, data1, memory after)
# ------------------------------------------------------------------------------------------------
def _f64(x):
    return int(np.array([x], np.float64).view(np.uint64)[0])


def _f32i(x):
    return int(np.array([x], np.float32).view(np.uint32)[0])


RMW_CASES = [
    ("rsub_u32", False, 7, 3, None, (3 - 7) & M32),
    ("rsub_u64", True, 1 << 33, 1, None, (1 - (1 << 33)) & ((1 << 64) - 1)),
    ("mskor_b32", False, 0xFFFF0000, 0x0F0F0F0F, 0x1, 0xF0F00001),
    ("mskor_b64", True, (1 << 64) - 1, 0xFF << 32, 0x5 << 32, 0xFFFFFF05FFFFFFFF),
    ("min_f32", False, _f32i(2.0), _f32i(-1.5), None, _f32i(-1.5)),
    ("max_f32", False, _f32i(2.0), _f32i(-1.5), None, _f32i(2.0)),
    ("min_f64", True, _f64(2.0), _f64(3.0), None, _f64(2.0)),
    ("max_f64", True, _f64(2.0), _f64(3.0), None, _f64(3.0)),
    ("cmpst_f32", False, _f32i(2.0), _f32i(2.0), _f32i(8.0), _f32i(8.0)),
    ("cmpst_f64", True, _f64(2.0), _f64(2.5), _f64(8.0), _f64(2.0)),
    ("pk_add_f16", False, _pk(1.0, 2.0, np.float16), _pk(1.0, 0.25, np.float16), None,
     _pk(2.0, 2.25, np.float16)),
    ("pk_add_bf16", False, _bf(3.0) | _bf(1.0) << 16, _bf(1.0) | _bf(-3.0) << 16, None,
     _bf(4.0) | _bf(-2.0) << 16),
]


@pytest.mark.parametrize("rtn", [False, True])
@pytest.mark.parametrize("name,wide,before,d0,d1,after", RMW_CASES, ids=[c[0] for c in RMW_CASES])
def test_ds_rmw_every_form(name, wide, before, d0, d1, after, rtn):
    k = name.rfind("_")
    mn = "ds_" + (name[:k] + "_rtn" + name[k:] if rtn else name)
    d = "v[2:3]" if wide else "v2"
    e = "v[6:7]" if wide else "v6"
    dst = ("v[4:5], " if wide else "v4, ") if rtn else ""
    ops = f"{dst}v1, {d}" + (f", {e}" if d1 is not None else "")
    vg = {1: 8, 2: d0 & M32, 3: d0 >> 32, 6: (d1 or 0) & M32, 7: (d1 or 0) >> 32,
          10: before & M32, 11: before >> 32, 4: 0xAAAA, 5: 0xBBBB}
    m = run(f"""
      ds_write_b64 v1, v[10:11]
      s_waitcnt lgkmcnt(0)
      {mn} {ops}
      s_waitcnt lgkmcnt(0)
      s_endpgm""", vgprs=vg, lds=64, exec_mask=1)
    q = int(m.lds.data[8:16].view(np.uint64)[0])
    assert (q if wide else q & M32) == after
    w = m.waves[0]
    if rtn:
        got = int(w.vgpr[4][0]) | (int(w.vgpr[5][0]) << 32 if wide else 0)
        assert got == (before if wide else before & M32)
    else:
        assert w.vgpr[4][0] == 0xAAAA
    assert w.vgpr[4][1] == 0xAAAA                       # lane 1 inactive


@pytest.mark.parametrize("st64", [False, True])
@pytest.mark.parametrize("wide", [False, True])
def test_ds_wrxchg2_every_form(wide, st64):
    size = 8 if wide else 4
    mn = f"ds_wrxchg2{'st64' if st64 else ''}_rtn_{'b64' if wide else 'b32'}"
    o0, o1 = [x * size * (64 if st64 else 1) for x in (1, 2)]
    dst, d0, d1 = ("v[4:7]", "v[8:9]", "v[12:13]") if wide else ("v[4:5]", "v8", "v12")
    m = run(f"""
      v_mov_b32 v20, 0x11
      ds_write_b32 v1, v20 offset:{o0}
      v_mov_b32 v20, 0x22
      ds_write_b32 v1, v20 offset:{o1}
      s_waitcnt lgkmcnt(0)
      {mn} {dst}, v1, {d0}, {d1} offset0:1 offset1:2
      s_waitcnt lgkmcnt(0)
      s_endpgm""", vgprs={1: 0, 8: 0x80, 9: 0x81, 12: 0x90, 13: 0x91}, lds=2048, exec_mask=1)
    lds = m.lds.data.view(np.uint32)
    w = m.waves[0]
    if wide:
        assert list(lds[[o0 // 4, o0 // 4 + 1, o1 // 4, o1 // 4 + 1]]) == [0x80, 0x81, 0x90, 0x91]
        assert [int(w.vgpr[r][0]) for r in range(4, 8)] == [0x11, 0, 0x22, 0]
    else:
        assert [lds[o0 // 4], lds[o1 // 4]] == [0x80, 0x90]
        assert [int(w.vgpr[4][0]), int(w.vgpr[5][0])] == [0x11, 0x22]


D16_EXPECT = {"ubyte_d16": 0x12340085, "ubyte_d16_hi": 0x00855678, "sbyte_d16": 0x1234FF85,
              "sbyte_d16_hi": 0xFF855678, "short_d16": 0x12349385, "short_d16_hi": 0x93855678}


@pytest.mark.parametrize("sfx", list(D16_EXPECT))
@pytest.mark.parametrize("fam", ["buffer", "flat", "scratch"])
def test_d16_load_every_form(fam, sfx):
    emu = Emulator()
    mem = np.array([0x85, 0x93, 0, 0], np.uint8)
    p = emu.alloc(mem)
    load = {"buffer": f"buffer_load_{sfx} v3, v1, s[4:7], 0 offen",
            "flat": f"flat_load_{sfx} v3, v[4:5]",
            "scratch": f"scratch_store_dword off, v6, off\ns_waitcnt vmcnt(0)\n"
                       f"scratch_load_{sfx} v3, off, off"}[fam]
    m = emu.run_program(f"{load}\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_endpgm", scratch_bytes=16,
                        setup=lambda w: _set(w, {1: 0, 3: 0x12345678, 6: 0x9385}, {4: srd(p, 4)},
                                             {4: p & M32, 5: p >> 32}), exec_mask=1)
    assert m.waves[0].vgpr[3][0] == D16_EXPECT[sfx] and m.waves[0].vgpr[3][1] == 0x12345678


def _set(w, vg, sg, vg2):
    for i, x in {**vg, **vg2}.items():
        w.vgpr[i] = x
    for i, xs in sg.items():
        w.sgpr[i:i + 4] = xs


@pytest.mark.parametrize("nb,sfx", [(1, "byte_d16_hi"), (2, "short_d16_hi")])
@pytest.mark.parametrize("fam", ["buffer", "flat", "scratch"])
def test_d16_hi_store_every_form(fam, nb, sfx):
    emu = Emulator()
    mem = np.zeros(4, np.uint8)
    p = emu.alloc(mem)
    store = {"buffer": f"buffer_store_{sfx} v2, v1, s[4:7], 0 offen",
             "flat": f"flat_store_{sfx} v[4:5], v2",
             "scratch": f"scratch_store_dword off, v1, off\nscratch_store_{sfx} off, v2, off\n"
                        "s_waitcnt vmcnt(0)\nscratch_load_dword v7, off, off"}[fam]
    m = emu.run_program(f"{store}\ns_waitcnt vmcnt(0)\ns_endpgm", scratch_bytes=16, exec_mask=1,
                        setup=lambda w: _set(w, {1: 0, 2: 0xA1B2C3D4}, {4: srd(p, 4)},
                                             {4: p & M32, 5: p >> 32}))
    want = [0xB2] if nb == 1 else [0xB2, 0xA1]
    if fam == "scratch":
        got = int(m.waves[0].vgpr[7][0]).to_bytes(4, "little")
        assert list(got[:nb]) == want and not any(got[nb:])
    else:
        assert list(mem[:nb]) == want and not mem[nb:].any()


@pytest.mark.parametrize("sfx,nb", [("ubyte", 1), ("sbyte", 1), ("ushort", 2), ("sshort", 2)])
def test_scratch_load_lds_sub_dword(sfx, nb):
    def setup(w):
        w.vgpr[2] = np.full(64, 0x8384F5F6, np.uint32)
    m = Emulator().run_program(f"""
      scratch_store_dword off, v2, off
      s_waitcnt vmcnt(0)
      s_mov_b32 m0, 8
      s_nop 0
      scratch_load_lds_{sfx} off, off
      s_waitcnt vmcnt(0)
      s_endpgm""", setup=setup, scratch_bytes=16, lds_bytes=64, exec_mask=0b11)
    lds = m.lds.data
    for lane in (0, 1):      # raw bytes at M0 + lane*4, the rest untouched
        assert list(lds[8 + 4 * lane:8 + 4 * lane + nb]) == [0xF6, 0xF5][:nb]
        assert not lds[8 + 4 * lane + nb:12 + 4 * lane].any()


def test_flat_atomic_pk_add_bf16():
    emu = Emulator()
    mem = np.array([_bf(1.0) | _bf(2.0) << 16], np.uint32)
    p = emu.alloc(mem)
    m = run("flat_atomic_pk_add_bf16 v3, v[4:5], v2 sc0\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_endpgm",
            emu=emu, vgprs={4: p & M32, 5: p >> 32, 2: _bf(1.0) | _bf(0.5) << 16}, exec_mask=1)
    assert mem[0] == _bf(2.0) | _bf(2.5) << 16 and m.waves[0].vgpr[3][0] == _bf(1.0) | _bf(2.0) << 16


@pytest.mark.parametrize("n,sfx", [(1, "x"), (2, "xy"), (3, "xyz"), (4, "xyzw")])
def test_buffer_format_every_width(n, sfx):
    emu = Emulator()
    src = np.arange(8, dtype=np.uint32) + 100
    dst = np.zeros(8, np.uint32)
    ps, pd = emu.alloc(src), emu.alloc(dst)
    dfmt = {1: 4, 2: 11, 3: 13, 4: 14}[n]
    regs = "v4" if n == 1 else f"v[4:{3 + n}]"
    run(f"""
      buffer_load_format_{sfx} {regs}, v1, s[4:7], 0 offen
      s_waitcnt vmcnt(0)
      buffer_store_format_{sfx} {regs}, v1, s[8:11], 0 offen offset:4
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={4: _fmt_srd(ps, 32, dfmt, 5), 8: _fmt_srd(pd, 32, dfmt, 4)},
        vgprs={1: 0}, exec_mask=1)
    assert list(dst[1:1 + n]) == list(src[:n]) and not dst[1 + n:].any() and dst[0] == 0
