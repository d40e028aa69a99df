"""The common MUBUF access's fast location (isa.emu.mem_buffer ``_fast_where``: raw V#, offen
without idxen, every dword in range and in one allocation; aligned whole dwords moved as uint32)
gives what the general path (isa.emu.buffer_addr + GlobalMemory.locate, byte gathers) gives:
loads and stores at every dword width, soffset an SGPR, a constant or ``off``, instruction offsets,
duplicate lane addresses (the later lane's store wins), partial EXEC, unaligned offsets (byte path)
and a range-checked tail (general path), each against a NumPy model of the ISA's raw-buffer
address (CDNA3 ISA guide, "Buffer Instructions": base + soffset + VGPR offset + inst_offset).
The fast path is proven taken (no general address computation) where it applies."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator, buffer_addr

L = np.arange(64)
OUT_SRD = 0x00020000


def _srd(addr, num_records):
    return [addr & 0xFFFFFFFF, addr >> 32, num_records, OUT_SRD]


def _general_calls(monkeypatch):
    calls = [0]
    real = buffer_addr.addresses

    def counted(*a):
        calls[0] += 1
        return real(*a)
    monkeypatch.setattr(buffer_addr, "addresses", counted)
    return calls


def _copy(ndw, offsets, soff_op, soff_val, inst_off, exec_mask=(1 << 64) - 1, src_words=512,
          num_records=None):
    """buffer_load_dword(xN) from src at ``offsets`` (+ soffset + inst_off), then
    buffer_store_dword(xN) of the loaded dwords to dst at the same lane offsets."""
    rng = np.random.default_rng(ndw)
    src = rng.integers(0, 1 << 32, src_words, dtype=np.uint64).astype(np.uint32)
    dst = np.zeros(src_words, np.uint32)
    emu = Emulator(arch="gfx942")
    ps, pd = emu.alloc(src), emu.alloc(dst)
    nr = src.nbytes if num_records is None else num_records
    vx = "dword" if ndw == 1 else f"dwordx{ndw}"
    off = f" offset:{inst_off}" if inst_off else ""
    body = f"""
      v_mov_b32 v10, 0
      v_mov_b32 v11, 0
      v_mov_b32 v12, 0
      v_mov_b32 v13, 0
      buffer_load_{vx} v[10:{9 + ndw}], v1, s[0:3], {soff_op} offen{off}
      s_waitcnt vmcnt(0)
      buffer_store_{vx} v[10:{9 + ndw}], v1, s[4:7], {soff_op} offen{off}
      s_endpgm"""
    if ndw == 1:
        body = body.replace("v[10:10]", "v10")
    run(body, emu=emu, exec_mask=exec_mask,
        sgprs={0: _srd(ps, nr), 4: _srd(pd, nr), 8: soff_val}, vgprs={1: offsets})
    # NumPy model: byte address = offset + soffset + inst_off; lanes in order (later ones win)
    sb, want = src.view(np.uint8), np.zeros(src.nbytes, np.uint8)
    for lane in range(64):
        if exec_mask >> lane & 1:
            a = int(offsets[lane]) + soff_val + inst_off
            for k in range(ndw):
                if a + 4 * k + 4 - soff_val <= nr:        # raw range check (soffset not part of it)
                    want[a + 4 * k:a + 4 * k + 4] = sb[a + 4 * k:a + 4 * k + 4]
    return dst.view(np.uint8), want


@pytest.mark.parametrize("ndw", [1, 2, 3, 4])
@pytest.mark.parametrize("soff", [("s8", 12), ("4", 4), ("0", 0)])
def test_aligned_in_range_takes_the_fast_path(monkeypatch, ndw, soff):
    calls = _general_calls(monkeypatch)
    offsets = (np.random.default_rng(1).permutation(64) * 16).astype(np.int64)
    offsets[5] = offsets[9]                       # two lanes at one address: lane 9's store wins
    soff_op, soff_val = soff
    got, want = _copy(ndw, offsets, soff_op, soff_val, 8)
    assert (got == want).all()
    assert calls[0] == 0                          # neither access took the general path


def test_partial_exec_on_the_fast_path(monkeypatch):
    calls = _general_calls(monkeypatch)
    got, want = _copy(4, L * 16, "s8", 32, 0, exec_mask=0x0F0F_0000_FFFF_00F1)
    assert (got == want).all() and calls[0] == 0


@pytest.mark.parametrize("ndw", [1, 2, 4])
def test_unaligned_offsets_move_bytes(ndw):
    # offsets 2 mod 4: the fast location, byte gathers and scatters
    got, want = _copy(ndw, L * 16 + 2, "s8", 0, 0)
    assert (got == want).all()


def test_range_checked_tail_takes_the_general_path(monkeypatch):
    calls = _general_calls(monkeypatch)
    # num_records ends inside lane 30's access: later dwords read 0 and are not stored
    got, want = _copy(4, L * 16, "0", 0, 0, num_records=30 * 16 + 8)
    assert (got == want).all()
    assert calls[0] == 2


@pytest.mark.parametrize("ndw", [1, 2, 4])
def test_masked_lanes_wholly_out_of_range_stay_on_the_fast_path(monkeypatch, ndw):
    # CK's masking: lanes with offset 0x80000000 are out of range as a whole (their first dword
    # at or past num_records): they read 0 and store nothing; the other lanes move as usual
    calls = _general_calls(monkeypatch)
    offsets = (L * 16).astype(np.int64)
    offsets[::3] = 0x80000000
    got, want = _copy(ndw, offsets, "s8", 4, 0)
    assert (got == want).all() and calls[0] == 0
    # every lane masked: nothing loaded, nothing stored
    got, want = _copy(ndw, np.full(64, 0x80000000, np.int64), "0", 0, 0)
    assert (got == want).all() and not got.any() and calls[0] == 0


def test_masked_load_zeroes_the_masked_lanes():
    src = np.arange(64 * 4, dtype=np.uint32) + 1
    out = np.full((64, 2), 0xDEAD, np.uint32)
    emu = Emulator(arch="gfx942")
    ps, po = emu.alloc(src), emu.alloc(out)
    offsets = (L * 8).astype(np.int64)
    offsets[1::2] = 0x80000000
    run("""
      v_mov_b32 v10, 7
      v_mov_b32 v11, 7
      buffer_load_dwordx2 v[10:11], v1, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      buffer_store_dwordx2 v[10:11], v5, s[4:7], 0 offen
      s_endpgm""", emu=emu, sgprs={0: _srd(ps, src.nbytes), 4: _srd(po, out.nbytes)},
        vgprs={1: offsets, 5: L * 8})
    want = src.reshape(-1, 2)[:64].copy()
    want[1::2] = 0
    assert (out == want).all()


def test_descriptor_base_below_the_allocation(monkeypatch):
    # a V# base 256 bytes below the allocation (base + soffset outside every allocation) with
    # every lane's offset >= 256: the lanes' bytes lie in the allocation, still the fast path
    calls = _general_calls(monkeypatch)
    src = np.arange(64, dtype=np.uint32) * 3 + 1
    out = np.zeros(64, np.uint32)
    emu = Emulator(arch="gfx942")
    ps, po = emu.alloc(src), emu.alloc(out)
    run("""
      buffer_load_dword v10, v1, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      buffer_store_dword v10, v5, s[4:7], 0 offen
      s_endpgm""", emu=emu, sgprs={0: _srd(ps - 256, src.nbytes + 256), 4: _srd(po, out.nbytes)},
        vgprs={1: 256 + L[::-1] * 4, 5: L * 4})
    assert (out == src[::-1]).all() and calls[0] == 0


@pytest.mark.parametrize("op,signed", [("ushort", False), ("sshort", True)])
@pytest.mark.parametrize("odd", [False, True])
def test_short_loads_and_stores(monkeypatch, op, signed, odd):
    # 2-byte lanes: 2-byte aligned ones move as uint16 halves (zero- or sign-extended into the
    # VGPR), odd offsets as bytes; a short store writes the register's low 16 bits
    calls = _general_calls(monkeypatch)
    rng = np.random.default_rng(5)
    src = rng.integers(0, 1 << 16, 300, dtype=np.uint64).astype(np.uint16)
    wide = np.zeros(64, np.uint32)
    dst = np.full(300, 0xBEEF, np.uint16)
    emu = Emulator(arch="gfx942")
    ps, pw, pd = emu.alloc(src), emu.alloc(wide), emu.alloc(dst)
    offsets = rng.permutation(140)[:64] * 2 + int(odd)
    run(f"""
      buffer_load_{op} v10, v1, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      buffer_store_dword v10, v5, s[4:7], 0 offen
      v_or_b32 v11, 0xABCD0000, v10
      buffer_store_short v11, v1, s[8:11], 0 offen offset:8
      s_endpgm""", emu=emu, sgprs={0: _srd(ps, src.nbytes), 4: _srd(pw, wide.nbytes),
                                   8: _srd(pd, dst.nbytes)},
        vgprs={1: offsets, 5: L * 4})
    halves = np.array([int.from_bytes(src.view(np.uint8)[o:o + 2].tobytes(), "little")
                       for o in offsets], np.int64)
    want = np.where(halves >= 1 << 15, halves - (1 << 16), halves) if signed else halves
    assert (wide == (want & 0xFFFFFFFF).astype(np.uint32)).all()
    want_dst = np.full(300, 0xBEEF, np.uint16).view(np.uint8)
    for lane, o in enumerate(offsets):
        want_dst[o + 8:o + 10] = np.frombuffer(int(halves[lane]).to_bytes(2, "little"), np.uint8)
    assert (dst.view(np.uint8) == want_dst).all()
    assert calls[0] == 0
