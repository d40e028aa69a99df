"""Buffer resource (V#) decoding, addressing and range checking for every descriptor form.

V# (cdna-facts section 5; LLVM SIInstrInfo::getScratchRsrcWords23 for the dword3 fields):
dword0 = base[31:0]; dword1 = base[47:32] (15:0) | stride (29:16) | cache_swizzle (30, gfx942) |
swizzle_en (31); dword2 = num_records; dword3: data_format (18:15), element_size (20:19, 2 << n
bytes), index_stride (22:21, 8 << n), add_tid_enable (23). With add_tid_enable, data_format holds
stride bits 17:14 (LLVM: "If TID_ENABLE is set, DATA_FORMAT specifies stride bits [14:17]").

Address (CDNA3 ISA guide, "Buffer Instructions" / "Buffer addressing" and "Swizzled buffer
addressing"): index = (idxen ? VGPR index : 0) + (add_tid ? lane id : 0); offset = (offen ? VGPR
offset : 0) + inst_offset. Linear: base + soffset + offset + index * stride. Swizzled:
base + soffset + (index / index_stride * stride + offset / element_size * element_size) *
index_stride + index % index_stride * element_size + offset % element_size.

Range checking (CDNA3 ISA guide, "Range Checking"; soffset is never part of the check):
* raw buffer (add_tid 0, swizzle 0, idxen 0; any stride): out of range when offset >= num_records
  (bytes);
* structured buffer (add_tid 0, idxen 1, stride != 0; linear or swizzled): out of range when
  index >= num_records;
* private (scratch) buffer (add_tid 1, idxen 0): no range checking.
The guide's notes: out-of-range reads return 0, out-of-range writes write nothing, and
"Load/store-Dword-x{2,3,4} range-check per component": each dword of a multi-dword access is
checked on its own (offset + 4k), so the in-range dwords of a lane move and the rest read 0 / are
dropped (isa.emu.mem_buffer touches memory with the in-range dwords only). A dword counts as in
range when all its bytes are below num_records: LLVM (llvm-project PR #132981, "the hardware will
mask off the entire word" of an 8-byte buffer's load at offset 6; AMDGPUUsage "Relaxed Buffer OOB
Mode", PR #134734) documents the hardware masking a word that straddles num_records; for the
dword-aligned offsets and num_records of every kernel here it is the guide's offset >= num_records.
A byte/short access is checked with its own size. Structured and private accesses are in or out
as a whole lane (one index per lane).
Forms the guide does not cover are refused with a typed error: swizzle without idxen or add_tid,
add_tid together with idxen, the gfx942 cache-swizzle bit, and a swizzled access that straddles an
element (offset % element_size + size > element_size: the guide's swizzle formula places whole
elements, LLVM splits private accesses to the descriptor's element size, max-private-element-size).
idxen with stride 0 (the index adds nothing) is checked as a raw buffer.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import EmulatorError
from .mem_common import scalar_operand_value

LANES64 = np.arange(64, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Srd:
    base: int
    stride: int
    num_records: int
    swizzle: bool
    add_tid: bool
    element_size: int
    index_stride: int


def decode_srd(w, srsrc) -> Srd:
    """The V# in s[srsrc:srsrc+3] (decoded once per distinct 4 dwords: ``_SRDS``)."""
    raw = w.sgpr[srsrc.index:srsrc.index + 4]
    key = raw.tobytes()
    srd = _SRDS.get(key)
    if srd is None:
        srd = _decode(srsrc, *raw.tolist())
        if len(_SRDS) >= 4096:
            _SRDS.clear()
        _SRDS[key] = srd
    return srd


_SRDS: dict = {}     # bytes of dword0..3 -> Srd; a V# the guide does not cover raises and is not kept


def _decode(srsrc, d0: int, d1: int, d2: int, d3: int) -> Srd:
    if (d1 >> 30) & 1:
        raise EmulatorError(f"buffer resource {srsrc} has the cache-swizzle bit (dword1 bit 30) set "
                            f"(dword1 {d1:#x}); its addressing is not documented in the ISA guide")
    add_tid = bool((d3 >> 23) & 1)
    stride = (d1 >> 16) & 0x3FFF
    if add_tid:
        stride |= ((d3 >> 15) & 0xF) << 14
    return Srd(d0 | ((d1 & 0xFFFF) << 32), stride, d2, bool(d1 >> 31), add_tid,
               2 << ((d3 >> 19) & 3), 8 << ((d3 >> 21) & 3))


def form(srd: Srd, idxen: bool) -> str:
    """'raw', 'structured' or 'private' (the ISA's range-checking cases), or a typed error."""
    if srd.add_tid:
        if idxen:
            raise EmulatorError("buffer access with idxen through a V# with add_tid_enable: the ISA "
                                "guide's range checking does not cover it; not modelled")
        return "private"
    if idxen and srd.stride:
        return "structured"
    if srd.swizzle:
        raise EmulatorError("swizzled V# (swizzle_en) used without idxen or add_tid: the ISA guide's "
                            "range checking does not cover it; not modelled")
    return "raw"


def addresses(w, sh, lanes):
    """(uint64 addresses, bool[n, n_dwords] in-range or None when every dword is in range) of a
    MUBUF access shaped by ``sh`` (isa.emu.mem_buffer._Shape) for the lanes ``lanes``."""
    srd = decode_srd(w, sh.srsrc)
    kind = form(srd, sh.idxen)
    soff = scalar_operand_value(w, sh.soffset)
    n = len(range(64)[lanes]) if isinstance(lanes, slice) else len(lanes)
    r = sh.vaddr.index if sh.vaddr is not None and hasattr(sh.vaddr, "index") else 0
    index = None
    if sh.idxen:
        index = w.vgpr[r][lanes].astype(np.int64)
        r += 1
    if srd.add_tid:
        index = LANES64[lanes].copy()
    if sh.offen:
        offset = w.vgpr[r][lanes].astype(np.int64) + sh.inst_off
    else:
        offset = np.full(n, sh.inst_off, np.int64)
    in_range = None
    if kind == "raw":
        if offset.size and int(offset.max()) + sh.nbytes > srd.num_records:
            in_range = (offset[:, None] + sh.dw_end) <= srd.num_records
    elif kind == "structured":
        ok = index < srd.num_records
        if not ok.all():
            in_range = np.repeat(ok[:, None], len(sh.dw_end), axis=1)
    if index is None or (kind == "raw" and not srd.stride):
        rel = offset
    elif srd.swizzle:
        es, ist = srd.element_size, srd.index_stride
        if offset.size and int((offset % es).max()) + sh.nbytes > es:
            raise EmulatorError(f"a {sh.nbytes}-byte access through a swizzled V# straddles an "
                                f"element (element_size {es} bytes, offset "
                                f"{int(offset[np.argmax(offset % es + sh.nbytes > es)])}); the ISA "
                                "guide's swizzled addressing does not cover it; not modelled")
        rel = ((index // ist) * srd.stride + (offset // es) * es) * ist + (index % ist) * es + offset % es
    else:
        rel = offset + index * srd.stride
    return (rel + (srd.base + soff)).astype(np.uint64), in_range
