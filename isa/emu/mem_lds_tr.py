"""gfx950 LDS transpose reads: ds_read_b64_tr_b16, ds_read_b64_tr_b8, ds_read_b64_tr_b4 and
ds_read_b96_tr_b6 (cdna-facts section 6).

Each active lane supplies an LDS address (VGPR + 16-bit unsigned ``offset``, 32-bit wrap like every
DS read) of a chunk of 64 bits (96 for ``_b6``) holding ``n = 64/b`` (``96/6 = 16``) elements of
``b`` bits, packed little-endian (element ``e`` at bits ``b*e .. b*e+b-1`` of the chunk; the chunk's
first byte is the lowest byte of the first destination VGPR). The 64 lanes work in 4 independent
groups of 16; inside a group, with ``j`` the lane's index in it and ``q = 16 / n``::

    result(lane j, element r) = chunk(lane (j // n) + q * r, element j % n)

i.e. b16: a 4x16 tile (4 lanes' chunks per row) is transposed so lane j gets column j;
b8: two interleaved 8x8 byte transposes (even lanes' / odd lanes' chunks);
b4 and b6: a full 16x16 transpose of 4-bit / 6-bit elements (lane j gets element j of every lane).

Sources (read 2026-11-30 with the project's search tool; no code copied):
* ROCm rocRoller ``shared/rocroller/test/unit/TransposeLoadsTest.cpp`` (ROCm/rocm-libraries;
  ``executeTransposeLoad``): a GPU test for all four instructions (16x32, 32x16 b16; 16x64, 32x32 b8;
  16x128, 32x64 b6 and b4) with explicit per-lane addresses (``trLoadIdx``) and an element-exact
  expected result; the rocRoller gfx950 test-runner script lists all of them in TRANSPOSETESTS (run
  on gfx950, not skipped). Packing of 4/6-bit values: ``DataTypes_Utils.cpp`` (packFP4x8 / packF6x16,
  LSB-first bit stream). A NumPy replica of that test passes with this mapping for all eight
  configurations and fails for an untransposed or a differently interleaved mapping
  (tests/emu/test_mem_lds_tr.py replays it). The same file states that DS_READ_B96_TR_B6 needs
  128-bit aligned addresses (rocRoller pads each 12-byte chunk to 16 bytes).
* triton-lang/triton ``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp``,
  ``chooseLLDsReadB64TrLayout``: "ds_read_b64_tr works on 64 bits per lane and in groups of 16
  lanes"; the load layout is the result layout with its first log2(64/b) register bases and first 4
  lane bases rotated - for b16 and b8 this is exactly the formula above (independent of the rocRoller
  test; Triton's comment diagram: lane 4*k + m loads M rows 4m..4m+3 of column K=k, lane i receives
  row M=i, K 0..3).
* Modular Mojo docs ``ds_read_tr16_b64`` / ``ds_read_tr8_b64``: "each 16-lane row loads a 4x16 tile
  ... each lane gets a column"; "two interleaved 8x8 byte transposes" (consistent, not exact).
Confidence: high for b16 and b8 (two independent sources that agree), good for b4 and b6 (one
hardware test checking every element). The AMD CDNA4 ISA guide text was not available.

Not established by any source, so refused with ``UnverifiedTransposeError`` instead of guessed:
a 16-lane group that is only partly active under EXEC (its active lanes may need chunks of its
inactive lanes), and addresses not aligned to 8 bytes (16 bytes for ``_b6``). Fully inactive groups
read nothing and keep their registers. Everything else follows the other ds_reads (isa.emu.mem_lds):
lgkmcnt, LDS bytes taken when the result lands, bounds errors, LDS-DMA pending checks, race tracking.
"""
from __future__ import annotations

import numpy as np

from .errors import EmulatorError, UnknownInstructionError
from .lds import dwords_of
from .mem_common import mod_int, regfile
from .mem_lds import _out_of_range, _trace_banks
from .pending import LDS, AsyncOp
from .registry import binder
from .regkeys import reg_keys

# mnemonic -> (element bits, bytes per lane, required address alignment in bytes)
TR_READS = {"ds_read_b64_tr_b16": (16, 8, 8), "ds_read_b64_tr_b8": (8, 8, 8),
            "ds_read_b64_tr_b4": (4, 8, 8), "ds_read_b96_tr_b6": (6, 12, 16)}
GROUP = 16


class UnverifiedTransposeError(EmulatorError):
    """A transpose read in a case whose hardware behaviour no public source establishes."""


def source_of(bits: int, nbits: int) -> tuple[np.ndarray, np.ndarray]:
    """(lane, element) of the loaded chunk that feeds result element r of lane j, as two
    int64[16, n] arrays indexed [j, r], for one 16-lane group (module docstring)."""
    n = nbits // bits
    q = GROUP // n
    j = np.arange(GROUP)[:, None]
    r = np.arange(n)[None, :]
    return np.broadcast_to(j // n + q * r, (GROUP, n)).copy(), np.broadcast_to(j % n, (GROUP, n)).copy()


def _gather_table(bits: int, nbytes: int) -> tuple[np.ndarray, bool]:
    """Flat source index of every result unit of the 64 lanes, and whether units are bits (4/6-bit
    elements) or bytes (8/16-bit elements)."""
    nbits = 8 * nbytes
    src_lane, src_el = source_of(bits, nbits)
    in_bits = bits % 8 != 0
    ubits = 1 if in_bits else 8
    per_el, per_lane = bits // ubits, nbits // ubits
    k = np.arange(per_el)
    table = np.empty((64, per_lane), np.int64)
    for g in range(64 // GROUP):
        lanes = g * GROUP + src_lane                                   # [16, n] absolute lanes
        idx = (lanes * per_lane + src_el * per_el)[:, :, None] + k     # [16, n, per_el]
        table[g * GROUP:(g + 1) * GROUP] = idx.reshape(GROUP, per_lane)
    return table.ravel(), in_bits


def transpose_chunks(chunks: np.ndarray, bits: int) -> np.ndarray:
    """uint8[64, nbytes] chunks loaded by the 64 lanes -> uint8[64, nbytes] results."""
    table, in_bits = _TABLES[(bits, chunks.shape[1])]
    flat = np.ascontiguousarray(chunks).ravel()
    if in_bits:
        out = np.packbits(np.unpackbits(flat, bitorder="little")[table], bitorder="little")
    else:
        out = flat[table]
    return out.reshape(chunks.shape)


_TABLES = {(b, nb): _gather_table(b, nb) for b, nb, _ in TR_READS.values()}


@binder(*TR_READS)
def bind_read_tr(ins):
    vdst, vaddr = ins.operands[0], ins.operands[1]
    bits, nbytes, align = TR_READS[ins.op]
    off = np.uint32(mod_int(ins, "offset"))
    regs, r, d, ndw = reg_keys(vdst), vaddr.index, vdst.index, nbytes // 4
    span = np.arange(nbytes, dtype=np.int64)
    what = f"{ins.op} read of {nbytes} bytes"

    def fn(m, w):
        if m.arch != "gfx950":      # the emulator's decoder does not gate by arch (cdna-facts 6)
            raise m.error(UnknownInstructionError,
                          f"{ins.op} exists on gfx950 only; the machine is {m.arch}", w)
        act = w.exec_mask()
        grp = act.reshape(-1, GROUP)
        part = grp.any(1) & ~grp.all(1)
        if part.any():
            g = int(np.argmax(part))
            raise m.error(UnverifiedTransposeError,
                          f"{ins.op} with lanes {g * GROUP}..{g * GROUP + GROUP - 1} only partly active "
                          f"under EXEC: the lane mapping for partly active 16-lane groups is unverified "
                          f"(active lanes may need chunks addressed by inactive lanes)", w)
        lanes = w.exec_lanes()
        addr = w.vgpr[r][lanes] + off
        bad = (addr % np.uint32(align)) != 0
        if bad.any():
            raise m.error(UnverifiedTransposeError,
                          f"{ins.op} at LDS byte {int(addr[int(np.argmax(bad))])}, not aligned to "
                          f"{align} bytes: the lane mapping of unaligned transpose reads is unverified", w)
        idx = addr.astype(np.int64)[:, None] + span
        dw = dwords_of(idx)
        lds = m.lds
        if _out_of_range(m, addr, nbytes):      # chunks beyond the allocation read as 0 (ISA 3.6.1)
            mapped, ok = lds.clamp(m, w, idx, nbytes, what, False)
            idx, dw = mapped, idx[ok] >> 2
        data, f = lds.buf, regfile(w, vdst)

        def apply():
            chunks = np.zeros((64, nbytes), np.uint8)
            chunks[lanes] = data[idx]
            out = transpose_chunks(chunks, bits).view(np.uint32)
            f[d:d + ndw, lanes] = out[lanes].T
        if lds.dma_owner is not None:
            lds.check_dma_pending(m, w, dw)
        m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw))
        if m.trace is not None:
            _trace_banks(m, addr, nbytes)
    return fn
