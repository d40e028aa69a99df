"""gfx950 LDS transpose reads (isa.emu.mem_lds_tr) vs NumPy models written from the sources:
Triton's linear-layout rotation (chooseLLDsReadB64TrLayout), a replay of rocRoller's GPU test
(TransposeLoadsTest.cpp, executeTransposeLoad), EXEC, bounds, alignment and pending results."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator
from isa.emu.errors import (
    LdsRaceError,
    PendingOverwriteError,
    PendingReadError,
    UnknownInstructionError,
)
from isa.emu.mem_lds_tr import UnverifiedTransposeError

LANES = np.arange(64)
# op -> (element bits, bytes per lane)
OPS = {"ds_read_b64_tr_b16": (16, 8), "ds_read_b64_tr_b8": (8, 8), "ds_read_b64_tr_b4": (4, 8),
       "ds_read_b96_tr_b6": (6, 12)}


def gfx950(text, **kw):
    return run(text, emu=Emulator(arch="gfx950", seed=kw.pop("seed", 0)), **kw)


def vrange(first, nbytes):
    return f"v[{first}:{first + nbytes // 4 - 1}]"


# --- reference model: Triton's register/lane basis rotation ---------------------------------------
def model(chunks: list[bytes], bits: int) -> list[bytes]:
    """Result chunk of each of the 64 lanes. Triton (LinearLayoutConversions.cpp): the load layout
    is the result layout with the first nr = log2(elements per lane) register bases and the first 4
    lane bases rotated, i.e. the bits (lane bits 0..3, element bits 0..nr-1) of a result element,
    concatenated, read as (element bits of the source, lane bits 0..3 of the source)."""
    nbytes = len(chunks[0])
    n = 8 * nbytes // bits
    nr = n.bit_length() - 1
    mask = (1 << bits) - 1
    vals = [int.from_bytes(c, "little") for c in chunks]
    out = []
    for lane in range(64):
        acc = 0
        for r in range(n):
            c = (lane & 15) | (r << 4)                   # concatenated (lane bits, element bits)
            src_el, src_lane = c & (n - 1), (lane & 48) | (c >> nr)
            acc |= ((vals[src_lane] >> (bits * src_el)) & mask) << (bits * r)
        out.append(acc.to_bytes(nbytes, "little"))
    return out


def regs_to_chunks(w, first: int, nbytes: int) -> list[bytes]:
    rows = np.stack([w.vgpr[first + k] for k in range(nbytes // 4)], axis=1).astype(np.uint32)
    return [rows[lane].tobytes() for lane in range(64)]


def chunk_regs(chunks: list[bytes], first: int) -> dict:
    arr = np.frombuffer(b"".join(chunks), np.uint32).reshape(64, -1)
    return {first + k: arr[:, k] for k in range(arr.shape[1])}


def test_model_matches_triton_diagram_b16():
    """Triton's comment: lane 4k+m loads M rows 4m..4m+3 of column K=k; lane i receives row M=i,
    K=0..3 (a 16x4 MxK unit)."""
    x = np.arange(16 * 4, dtype=np.uint16).reshape(16, 4) + 1000      # x[M, K]
    chunks = [x[4 * (i % 4):4 * (i % 4) + 4, i // 4].tobytes() for i in range(16)] * 4
    got = model(chunks, 16)
    for i in range(16):
        assert np.frombuffer(got[i], np.uint16).tolist() == x[i].tolist()


@pytest.mark.parametrize("op", OPS)
def test_random_addresses_match_model(op):
    bits, nb = OPS[op]
    stride, offset = (16 if nb == 12 else 8), 16 * 3
    rng = np.random.default_rng(7)
    slots = 96
    lds_bytes = rng.integers(0, 256, slots * stride + offset, dtype=np.uint8)
    pick = rng.permutation(slots)[:64]
    pick[5] = pick[9]                                       # two lanes on one address is fine
    addr = pick * stride
    wr = "ds_write_b128" if nb == 12 else "ds_write_b64"
    # fill LDS: lane l writes slot l, l + 64 (b128 covers the 12-byte chunk and its padding)
    fill = lds_bytes[offset:].reshape(slots, stride)
    fill_chunks = np.zeros((2, 64, 16 if nb == 12 else 8), np.uint8)
    fill_chunks[0] = fill[:64]
    fill_chunks[1, :slots - 64] = fill[64:]
    fw = {}
    for h in range(2):
        fw.update(chunk_regs([c.tobytes() for c in fill_chunks[h]], 20 + 4 * h))
    wrange = (lambda f: f"v[{f}:{f + 3}]") if nb == 12 else (lambda f: f"v[{f}:{f + 1}]")
    m = gfx950(f"""
      v_mul_u32_u24 v1, {stride}, v0
      {wr} v1, {wrange(20)} offset:{offset}
      {wr} v1, {wrange(24)} offset:{offset + 64 * stride}
      s_waitcnt lgkmcnt(0)
      {op} {vrange(8, nb)}, v2 offset:{offset}
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=offset + 128 * stride, vgprs={0: LANES, 2: addr, **fw})
    lds = m.lds.data
    chunks = [bytes(lds[offset + a: offset + a + nb]) for a in addr]
    assert chunks[0] == fill[pick[0]][:nb].tobytes()       # the setup wrote what we think
    got = regs_to_chunks(m.waves[0], 8, nb)
    want = model(chunks, bits)
    assert got == want
    assert got != chunks                                    # it really moved data across lanes


# --- replay of rocRoller's GPU test -----------------------------------------------------------------
def _pack(vals, bits):
    """LSB-first bit stream (rocRoller packFP4x8 / packF6x16; plain little-endian for 8/16)."""
    v = np.asarray(vals, np.int64)
    bitsarr = ((v[:, None] >> np.arange(bits)) & 1).astype(np.uint8).ravel()
    return np.packbits(bitsarr, bitorder="little")


def _unpack(byts, bits):
    b = np.unpackbits(np.asarray(byts, np.uint8), bitorder="little").reshape(-1, bits)
    return (b.astype(np.int64) << np.arange(bits)).sum(1)


@pytest.mark.parametrize("op,mn,k", [("ds_read_b64_tr_b16", 16, 32), ("ds_read_b64_tr_b16", 32, 16),
                                     ("ds_read_b64_tr_b8", 16, 64), ("ds_read_b64_tr_b8", 32, 32),
                                     ("ds_read_b96_tr_b6", 16, 128), ("ds_read_b96_tr_b6", 32, 64),
                                     ("ds_read_b64_tr_b4", 16, 128), ("ds_read_b64_tr_b4", 32, 64)])
def test_rocroller_gpu_test_replay(op, mn, k):
    """rocRoller TransposeLoadsTest: workitem x stores 2 chunks at LDS x*2*stride (stride = chunk
    bytes, 16 for b6), loads at trLoadIdx[x]*stride and + MN*stride; expected element indexing as
    in the test's ASSERT_EQ loop."""
    bits, nb = OPS[op]
    stride = 16 if bits == 6 else nb
    rng = np.random.default_rng(mn * k + bits)
    data = rng.integers(0, 1 << bits, mn * k)
    packed = _pack(data, bits).reshape(128, nb)             # 2 chunks per workitem
    chunks = np.zeros((128, stride), np.uint8)
    chunks[:, :nb] = packed
    ny0 = 96 // bits if bits == 6 else 64 // bits
    nx1, ny1 = mn // 16, 16 // ny0
    nx0 = 4 // nx1
    idx = np.zeros(64, np.int64)
    for x0 in range(nx0):
        for x1 in range(nx1):
            for y0 in range(ny0):
                for y1 in range(ny1):
                    idx[nx1 * ny0 * ny1 * x0 + ny0 * ny1 * x1 + ny1 * y0 + y1] = \
                        2 * nx1 * ny0 * ny1 * x0 + nx1 * ny1 * y0 + ny1 * x1 + y1
    wr = "ds_write_b128" if stride == 16 else "ds_write_b64"
    wn = stride // 4
    regs = {}
    for h in range(2):
        regs.update(chunk_regs([chunks[2 * x + h].tobytes() for x in range(64)], 20 + 4 * h))
    m = gfx950(f"""
      v_mul_u32_u24 v1, {2 * stride}, v0
      {wr} v1, v[20:{19 + wn}]
      {wr} v1, v[24:{23 + wn}] offset:{stride}
      s_waitcnt lgkmcnt(0)
      {op} {vrange(8, nb)}, v2
      {op} {vrange(12, nb)}, v2 offset:{mn * stride}
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=128 * stride, vgprs={0: LANES, 2: idx * stride, **regs})
    w = m.waves[0]
    if bits == 6:     # result: lane x's 12 bytes at 12x, second load after 64*12 bytes
        res = b"".join(regs_to_chunks(w, 8, 12)) + b"".join(regs_to_chunks(w, 12, 12))
    else:             # register r of lane x at dword 64*r + x, second load's registers after
        res = b"".join(w.vgpr[i].astype(np.uint32).tobytes() for i in (8, 9, 12, 13))
    ru = _unpack(np.frombuffer(res, np.uint8), bits)
    ny0, ny2 = (2, 16) if bits == 6 else (4, 32 // bits)
    ny1, nx0 = k // ny2 // ny0, mn // 16
    checked = 0
    for y0 in range(ny0):
        for y1 in range(ny1):
            for x0 in range(nx0):
                for x1 in range(4):
                    for x2 in range(4):
                        for y2 in range(ny2):
                            a = data[y1 * ny0 * ny2 * nx0 * 16 + y0 * ny2 * nx0 * 16 + y2 * nx0 * 16
                                     + x0 * 16 + x1 * 4 + x2]
                            b = ru[y0 * ny1 * nx0 * ny2 * 16 + y1 * nx0 * ny2 * 16 + x0 * 16 * ny2
                                   + x1 * 4 * ny2 + x2 * ny2 + y2]
                            assert a == b, (y0, y1, x0, x1, x2, y2)
                            checked += 1
    assert checked == mn * k


# --- EXEC, bounds, alignment, pending results, arch --------------------------------------------------
def _tr16_setup():
    vals = (LANES[:, None] * 4 + np.arange(4)).astype(np.uint16)    # lane l stores l*4 .. l*4+3
    arr = vals.view(np.uint32).reshape(64, 2)
    return {0: LANES * 8, 4: arr[:, 0], 5: arr[:, 1], 8: np.full(64, 0xDEAD), 9: np.full(64, 0xBEEF)}


def test_exec_inactive_groups_keep_registers():
    m = gfx950("""
      ds_write_b64 v0, v[4:5]
      s_waitcnt lgkmcnt(0)
      s_mov_b64 exec, s[0:1]
      ds_read_b64_tr_b16 v[8:9], v0
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=512, vgprs=_tr16_setup(), sgprs={0: [0xFFFF0000, 0x0000FFFF]})
    w = m.waves[0]
    lds = m.lds.data[:512].view(np.uint16).reshape(64, 4)
    chunks = [lds[lane].tobytes() for lane in range(64)]
    want = model(chunks, 16)
    got = regs_to_chunks(w, 8, 8)
    for lane in range(64):
        if 16 <= lane < 48:
            assert got[lane] == want[lane]
        else:
            assert w.vgpr[8][lane] == 0xDEAD and w.vgpr[9][lane] == 0xBEEF
    assert np.frombuffer(got[16], np.uint16).tolist() == [64, 80, 96, 112]  # lane 16: lanes 16,20,24,28 el 0


def test_exec_partial_group_is_refused():
    with pytest.raises(UnverifiedTransposeError, match=r"ds_read_b64_tr_b16 with lanes 0\.\.15 only partly"):
        gfx950("""
          s_mov_b64 exec, s[0:1]
          ds_read_b64_tr_b16 v[8:9], v0
          s_endpgm""", lds=512, vgprs=_tr16_setup(), sgprs={0: [0xFFFFFFFE, 0xFFFFFFFF]})


def test_exec_zero_reads_nothing():
    m = gfx950("""
      s_mov_b64 exec, 0
      ds_read_b64_tr_b8 v[8:9], v0 offset:60000
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=512, vgprs=_tr16_setup())
    assert (m.waves[0].vgpr[8] == 0xDEAD).all()


@pytest.mark.parametrize("op", ["ds_read_b64_tr_b16", "ds_read_b96_tr_b6"])
def test_out_of_range_chunk_reads_zero(op):
    """Lane 63's chunk lies past the 1280-byte gfx950 allocation (CDNA4 ISA 3.6.5): it reads as 0
    (ISA 3.6.1), exactly as if those LDS bytes were in range and zero."""
    nb = OPS[op][1]
    stride = 16 if nb == 12 else 8
    text = f"""
      {op} {vrange(8, nb)}, v1 offset:{1280 - stride}
      s_waitcnt lgkmcnt(0)
      s_endpgm"""
    vg = {1: np.where(LANES == 63, stride, 0), 0: LANES}
    fill = "v_mov_b32 v2, 0x5a5a5a5a\n ds_write_b32 v3, v2\n s_waitcnt lgkmcnt(0)\n"
    vg3 = {3: 1024 + LANES * 4}           # fills bytes 1024..1279 with 0x5a
    out = gfx950(fill + text, lds=256, vgprs={**vg, **vg3})
    ref = gfx950(fill + text, lds=2560, vgprs={**vg, **vg3})
    assert out.lds.limit == 1280
    got, want = out.waves[0].vgpr[8:8 + nb // 4], ref.waves[0].vgpr[8:8 + nb // 4]
    assert np.array_equal(got, want) and got.any()


@pytest.mark.parametrize("op,addr", [("ds_read_b64_tr_b8", 4), ("ds_read_b96_tr_b6", 8),
                                     ("ds_read_b64_tr_b4", 1)])
def test_unaligned_is_refused(op, addr):
    nb = OPS[op][1]
    with pytest.raises(UnverifiedTransposeError, match=f"{op} at LDS byte {addr}, not aligned"):
        gfx950(f"""
          {op} {vrange(8, nb)}, v1
          s_endpgm""", lds=1024, vgprs={1: np.where(LANES == 3, addr, 0)})


def test_pending_read_and_overwrite():
    with pytest.raises(PendingReadError, match="v9"):
        gfx950("""
          ds_read_b64_tr_b16 v[8:9], v0
          v_mov_b32 v1, v9
          s_endpgm""", lds=512, vgprs=_tr16_setup())
    with pytest.raises(PendingOverwriteError, match="v8"):
        gfx950("""
          ds_read_b96_tr_b6 v[7:9], v1
          v_mov_b32 v8, 0
          s_endpgm""", lds=512, vgprs={1: np.zeros(64)})


def test_lgkmcnt_counts_and_lds_bytes_taken_at_landing():
    """The result lands in order with other LDS ops: a later ds_write of the same wave cannot
    change it, an earlier one is seen (issue order, cdna-facts section 4)."""
    m = gfx950("""
      ds_write_b64 v0, v[4:5]
      ds_read_b64_tr_b16 v[8:9], v0
      ds_write_b64 v0, v[10:11]
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=512, vgprs={**_tr16_setup(), 10: np.zeros(64), 11: np.zeros(64)})
    got = regs_to_chunks(m.waves[0], 8, 8)
    assert np.frombuffer(got[1], np.uint16).tolist() == [4 * 0 + 1, 4 * 4 + 1, 4 * 8 + 1, 4 * 12 + 1]


def test_race_with_other_wave():
    with pytest.raises(LdsRaceError):
        gfx950("""
          s_cmp_eq_u32 s0, 0
          s_cbranch_scc1 L_read
          ds_write_b64 v0, v[4:5]
          s_branch L_end
        L_read:
          ds_read_b64_tr_b16 v[8:9], v0
        L_end:
          s_waitcnt lgkmcnt(0)
          s_endpgm""", n_waves=2, lds=512, vgprs=_tr16_setup(), sgprs={0: lambda wid: wid})


def test_gfx942_refuses():
    with pytest.raises(UnknownInstructionError, match="ds_read_b64_tr_b16 does not exist on gfx942"):
        run("""
          ds_read_b64_tr_b16 v[8:9], v0
          s_endpgm""", emu=Emulator(arch="gfx942"), lds=512, vgprs=_tr16_setup())


def test_agpr_destination_matches_vgpr_destination():
    """llvm-mc-22 accepts AGPR destinations for the transpose reads (spec: VGPR or AGPR); the data
    landing in a[0:1] is what v[8:9] gets from the same read."""
    text = """
      ds_write_b64 v0, v[4:5]
      s_waitcnt lgkmcnt(0)
      ds_read_b64_tr_b16 v[8:9], v0
      ds_read_b64_tr_b16 a[0:1], v0
      s_waitcnt lgkmcnt(0)
      s_endpgm"""
    w = gfx950(text, lds=512, vgprs=_tr16_setup()).waves[0]
    np.testing.assert_array_equal(w.agpr[0:2], w.vgpr[8:10])
