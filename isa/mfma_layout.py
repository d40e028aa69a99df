"""MFMA lane layouts: where each element of A, B, C and D lives in (VGPR, lane, sub-element).

Pure functions of the mnemonic (no emulator state). Three shape families cover every MFMA:

* A/B ("k-major per lane"): lane l holds row (A) / column (B) ``l % M``; the 64/M lane groups
  ``g = l // M`` split into ``blocks`` blocks of ``gpb = 64/M/blocks`` groups; within its block a
  lane holds the ``kpl`` consecutive k = ``(g % gpb) * kpl + e`` (e = element index in the lane).
  Element e sits at bit ``e * bits`` of the lane's registers concatenated little-endian
  (reg 0 bits 0..31, reg 1 bits 32..63, ...), i.e. for 16-bit types VGPR ``e // 2``, half ``e % 2``
  (lo = even k); for 8-bit types byte ``e % 4`` of VGPR ``e // 4``.
  Source: CALC (AMD matrix instruction calculator, ``-a CDNA3 -d``), which gives for every CDNA3
  MFMA "A i: lane % M, A k: kpl*floor(lane/M) + ..., A block: floor(lane/M)" (cdna-facts 2.2).
  gfx950 x16/x32 f16/bf16 and i8 forms: same family with kpl = 8 / 16 (CK k_per_blk, cdna-facts
  2.2) - derived, unverified on hardware. f8f6f4 (scaled or not), 32 K-elements per lane, the
  layout depending on the operand's format (AMD CDNA4 ISA guide section 7.1.5.1 "Dense Matrix
  Layouts: 8-bit and Smaller", its FP4/FP6/FP8 tables): fp4/fp6/bf6 hold the 32 consecutive
  k = 32 * g + e (g = l // M; 6-bit elements packed as a 192-bit little-endian string in 6 VGPRs,
  4-bit ones as nibbles, item 0 in bits 3-0: section 7.1.4); fp8/bf8 hold two runs of 16: VGPRs
  0-3 k = 16 * g + e, VGPRs 4-7 k = K/2 + 16 * g + e - 16 (16x16x128: lane group g takes k 16g..
  and 64 + 16g..; 32x32x64: lanes 0-31 k 0-15 and 32-47, lanes 32-63 k 16-31 and 48-63). rocRoller
  loads the same (LowerTile.cpp ``addLoadWaveTileViaNonContiguousVGPRBlocksCT``: two VGPR blocks
  for 8-bit F8F6F4 operands, one for F6/F4). ``ab_flat`` gives the map per format.
* C/D with M*N >= 64 (16x16, 32x32): lane group q = l // N (Q = 64/N groups), j = l % N; VGPR r of
  block ``r // R`` (R = M*N/64 VGPRs per block) holds row ``4*((r % R)//4 * Q + q) + r % 4``.
  CALC: 32x32 "i = 8*floor(GPR/4) % 32 + 4*floor(lane/32) + GPR % 4, block = floor(GPR/16)";
  16x16 "i = 4*floor(lane/16) + GPR % 4, block = floor(GPR/4)". Checked against CALC for every
  CDNA3 MFMA (f32/xf32 included); gfx950 forms reuse them (CK: same output parameters).
* C/D 4x4 (M*N < 64): VGPR r holds row r, lane l holds column l % 4 of block l // 4 (CALC).

Matrices with ``blocks > 1`` are passed as ``[blocks, M, K]`` (A), ``[blocks, K, N]`` (B),
``[blocks, M, N]`` (C/D); with one block both ``[M, K]`` and ``[1, M, K]`` are accepted.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import ml_dtypes
import numpy as np

from isa.mfma_shapes import MfmaInfo, MfmaOperandError, mfma_info

# dtypes accepted for each input type name; unsigned ints of the element width are raw codes.
_F8F6F4_DTYPES = {np.dtype(ml_dtypes.float8_e4m3fn): 8, np.dtype(ml_dtypes.float8_e5m2): 8,
                  np.dtype(ml_dtypes.float6_e2m3fn): 6, np.dtype(ml_dtypes.float6_e3m2fn): 6,
                  np.dtype(ml_dtypes.float4_e2m1fn): 4}
_DTYPES = {
    "f16": (np.dtype(np.float16),),
    "bf16": (np.dtype(ml_dtypes.bfloat16),),
    "fp8": (np.dtype(ml_dtypes.float8_e4m3fnuz), np.dtype(ml_dtypes.float8_e4m3fn)),
    "bf8": (np.dtype(ml_dtypes.float8_e5m2fnuz), np.dtype(ml_dtypes.float8_e5m2)),
    "i8": (np.dtype(np.int8),),
    "f32": (np.dtype(np.float32),),
    "xf32": (np.dtype(np.float32),),
    "f8f6f4": tuple(_F8F6F4_DTYPES),
}
_RAW = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32)}


@dataclass(frozen=True)
class Layout:
    """Precomputed gather maps of one MFMA (flat index = lane * kpl + element, reg * 64 + lane)."""

    info: MfmaInfo
    a_flat: np.ndarray   # int64[blocks, M, K]: where A[b, i, k] is in lane-elements [64, kpl]
    b_flat: np.ndarray   # int64[blocks, K, N]
    cd_flat: np.ndarray  # int64[blocks, M, N]: index into regs.ravel() of shape [cd_regs, 64]
    a_src: tuple         # (block, row, k) int arrays [64, kpl] of each lane element of A
    cd_src: tuple        # (block, row, col) int arrays [cd_regs, 64]


def _ab_maps(info: MfmaInfo, rows: int):
    """(block, row, k) of every (lane, element) of an A/B operand; rows = M for A, N for B."""
    kpl = info.k_per_lane
    groups = 64 // rows
    if groups % info.blocks or (groups // info.blocks) * kpl != info.k:
        raise AssertionError(f"{info.name}: layout family does not fit (groups {groups}, "
                             f"blocks {info.blocks}, kpl {kpl}, K {info.k})")
    gpb = groups // info.blocks
    lane = np.arange(64)[:, None]
    e = np.arange(kpl)[None, :]
    g = lane // rows
    block = np.broadcast_to(g // gpb, (64, kpl))
    row = np.broadcast_to(lane % rows, (64, kpl))
    k = (g % gpb) * kpl + e
    return block, row, k


def _cd_maps(info: MfmaInfo):
    """(block, row, col) of every (VGPR, lane) of C/D."""
    m, n = info.m, info.n
    reg = np.arange(info.cd_regs)[:, None]
    lane = np.arange(64)[None, :]
    if m * n >= 64:
        regs_per_block = m * n // 64
        q_groups = 64 // n
        rr = reg % regs_per_block
        block = np.broadcast_to(reg // regs_per_block, (info.cd_regs, 64))
        row = 4 * ((rr // 4) * q_groups + lane // n) + rr % 4
        col = np.broadcast_to(lane % n, (info.cd_regs, 64))
    else:
        block = np.broadcast_to(lane // n, (info.cd_regs, 64))
        row = np.broadcast_to(reg, (info.cd_regs, 64))
        col = np.broadcast_to(lane % n, (info.cd_regs, 64))
    return block, row, col


def _f8_k(info: MfmaInfo, k: np.ndarray) -> np.ndarray:
    """k of lane element e of an 8-bit f8f6f4 operand from its 32-consecutive k (CDNA4 ISA
    7.1.5.1 FP8 tables): element e < 16 of lane group g is k = 16 g + e, element e >= 16 is
    K/2 + 16 g + e - 16."""
    g, e = np.divmod(k, 32)
    return (e // 16) * (info.k // 2) + 16 * g + e % 16


@cache
def ab_flat(name: str, bits_a: int, bits_b: int) -> tuple[np.ndarray, np.ndarray]:
    """(a_flat, b_flat) of MFMA ``name`` for operands of ``bits_a``/``bits_b``-wide elements:
    ``layout(name)``'s except for 8-bit operands of the f8f6f4 forms (``_f8_k``)."""
    lay = layout(name)
    info = lay.info
    if info.a_type != "f8f6f4":
        return lay.a_flat, lay.b_flat
    kp = _f8_k(info, np.arange(info.k))     # the k each consecutive-layout slot holds
    out = []
    for flat, bits, axis in ((lay.a_flat, bits_a, 2), (lay.b_flat, bits_b, 1)):
        if bits == 8:
            moved = np.empty_like(flat)
            if axis == 2:
                moved[:, :, kp] = flat
            else:
                moved[:, kp, :] = flat
            moved.setflags(write=False)
            flat = moved
        out.append(flat)
    return out[0], out[1]


@cache
def layout(name: str) -> Layout:
    """The cached ``Layout`` of MFMA ``name`` (raises ``MfmaUnsupported`` for unknown names)."""
    info = mfma_info(name)
    kpl = info.k_per_lane
    flat_lane_elem = np.arange(64 * kpl).reshape(64, kpl)
    a_b, a_r, a_k = _ab_maps(info, info.m)
    a_flat = np.empty((info.blocks, info.m, info.k), np.int64)
    a_flat[a_b, a_r, a_k] = flat_lane_elem
    b_b, b_c, b_k = _ab_maps(info, info.n)
    b_flat = np.empty((info.blocks, info.k, info.n), np.int64)
    b_flat[b_b, b_k, b_c] = flat_lane_elem
    c_b, c_r, c_c = _cd_maps(info)
    cd_flat = np.empty((info.blocks, info.m, info.n), np.int64)
    cd_flat[c_b, c_r, c_c] = np.arange(info.cd_regs * 64).reshape(info.cd_regs, 64)
    for arr in (a_flat, b_flat, cd_flat):
        arr.setflags(write=False)
    return Layout(info, a_flat, b_flat, cd_flat, (a_b, a_r, a_k), (c_b, c_r, c_c))


# ---- register <-> lane elements (bit-string packing) -------------------------------------------

def regs_to_elems(regs: np.ndarray, bits: int, kpl: int) -> np.ndarray:
    """uint32[..., n_regs, 64] -> element codes [..., 64, kpl] (uint8/16/32, uint8 for 6/4 bits).

    Leading axes (e.g. waves) are kept."""
    regs = np.asarray(regs, dtype=np.uint32)
    lead = regs.shape[:-2]
    if bits in (8, 16, 32):
        lanes = np.ascontiguousarray(np.swapaxes(regs[..., : kpl * bits // 32, :], -1, -2))
        return lanes.view(_RAW[bits]).reshape(lead + (64, kpl))
    lanes = np.swapaxes(regs, -1, -2).astype(np.uint64)
    words = np.concatenate([lanes, np.zeros(lead + (64, 1), np.uint64)], axis=-1)
    pos = np.arange(kpl) * bits
    wi, sh = pos // 32, (pos % 32).astype(np.uint64)
    both = words[..., wi] | (words[..., wi + 1] << np.uint64(32))
    return ((both >> sh) & np.uint64((1 << bits) - 1)).astype(np.uint8)


def elems_to_regs(elems: np.ndarray, bits: int) -> np.ndarray:
    """Element codes [64, kpl] -> uint32[kpl * bits / 32, 64] (inverse of ``regs_to_elems``)."""
    kpl = elems.shape[1]
    n_regs = kpl * bits // 32
    if bits in (8, 16, 32):
        lanes = np.ascontiguousarray(elems.astype(_RAW[bits]))
        return np.ascontiguousarray(lanes.view(np.uint32).reshape(64, n_regs).T)
    words = np.zeros((64, n_regs + 1), np.uint64)
    codes = elems.astype(np.uint64) & np.uint64((1 << bits) - 1)
    for e in range(kpl):
        wi, sh = divmod(e * bits, 32)
        v = codes[:, e] << np.uint64(sh)
        words[:, wi] |= v & np.uint64(0xFFFFFFFF)
        words[:, wi + 1] |= v >> np.uint64(32)
    return np.ascontiguousarray(words[:, :n_regs].T.astype(np.uint32))


# ---- matrices <-> registers ----------------------------------------------------------------------

def _codes(name: str, info: MfmaInfo, x: np.ndarray, type_name: str, what: str):
    """Raw element codes of matrix ``x`` and their bit width, after a dtype check."""
    x = np.asarray(x)
    if type_name == "f8f6f4" and x.dtype in _F8F6F4_DTYPES:
        bits = _F8F6F4_DTYPES[x.dtype]
        return x.view(np.uint8) & np.uint8((1 << bits) - 1), bits
    bits = info.bits
    if x.dtype in _DTYPES[type_name]:
        return x.view(_RAW[bits]), bits
    if x.dtype == _RAW.get(bits):
        return x, bits
    raise MfmaOperandError(f"{name}: {what} dtype {x.dtype} does not match input type "
                           f"'{type_name}' (accepted: {[str(d) for d in _DTYPES[type_name]]} "
                           f"or raw {_RAW.get(bits)})")


def _blocked(name: str, x: np.ndarray, shape: tuple, what: str) -> np.ndarray:
    if x.shape == shape[1:] and shape[0] == 1:
        return x[None]
    if x.shape != shape:
        raise MfmaOperandError(f"{name}: {what} has shape {x.shape}, expected {shape}"
                               + (f" or {shape[1:]}" if shape[0] == 1 else ""))
    return x


def pack_a(name: str, a: np.ndarray) -> np.ndarray:
    """Matrix A [M, K] (or [blocks, M, K]) in its input dtype -> uint32[a_regs, 64]."""
    info = mfma_info(name)
    codes, bits = _codes(name, info, a, info.a_type, "A")
    codes = _blocked(name, codes, (info.blocks, info.m, info.k), "A")
    elems = np.empty(64 * info.k_per_lane, codes.dtype)
    elems[ab_flat(name, bits, bits)[0].ravel()] = codes.ravel()
    return elems_to_regs(elems.reshape(64, info.k_per_lane), bits)


def pack_b(name: str, b: np.ndarray) -> np.ndarray:
    """Matrix B [K, N] (or [blocks, K, N]) in its input dtype -> uint32[a_regs, 64]."""
    info = mfma_info(name)
    codes, bits = _codes(name, info, b, info.b_type, "B")
    codes = _blocked(name, codes, (info.blocks, info.k, info.n), "B")
    elems = np.empty(64 * info.k_per_lane, codes.dtype)
    elems[ab_flat(name, bits, bits)[1].ravel()] = codes.ravel()
    return elems_to_regs(elems.reshape(64, info.k_per_lane), bits)


def pack_c(name: str, c: np.ndarray) -> np.ndarray:
    """Matrix C [M, N] (or [blocks, M, N]) float32 (int32 for i8 MFMAs) -> uint32[cd_regs, 64]."""
    lay = layout(name)
    info = lay.info
    want = np.dtype(np.int32 if info.out_type == "i32" else np.float32)
    c = np.asarray(c)
    if c.dtype not in (want, np.dtype(np.uint32)):
        raise MfmaOperandError(f"{name}: C dtype {c.dtype}, expected {want} (or raw uint32)")
    c = _blocked(name, c, (info.blocks, info.m, info.n), "C")
    regs = np.empty(info.cd_regs * 64, np.uint32)
    regs[lay.cd_flat.ravel()] = c.view(np.uint32).ravel()
    return regs.reshape(info.cd_regs, 64)


def unpack_d(name: str, regs: np.ndarray) -> np.ndarray:
    """uint32[cd_regs, 64] -> D [M, N] (or [blocks, M, N] when blocks > 1), float32 or int32."""
    lay = layout(name)
    info = lay.info
    regs = np.asarray(regs, dtype=np.uint32)
    if regs.shape != (info.cd_regs, 64):
        raise MfmaOperandError(f"{name}: D registers have shape {regs.shape}, "
                               f"expected {(info.cd_regs, 64)}")
    d = regs.ravel()[lay.cd_flat].view(np.int32 if info.out_type == "i32" else np.float32)
    return d[0] if info.blocks == 1 else d


# ---- index maps for templates --------------------------------------------------------------------

def _reg_lane_sub(name: str, maps: tuple) -> tuple:
    info = layout(name).info
    epr = 32 // info.bits
    return tuple(np.ascontiguousarray(m.T.reshape(info.a_regs, epr, 64).transpose(0, 2, 1))
                 for m in maps)


def _coords_k(info: MfmaInfo, k: np.ndarray) -> np.ndarray:
    return _f8_k(info, k) if info.a_type == "f8f6f4" else k


def a_coords(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(block, row i, k) of A for every (VGPR, lane, sub-element): three int[a_regs, 64, 32/bits].

    Sub-element s of a VGPR is bits [s*bits, (s+1)*bits). f8f6f4 maps are for 8-bit formats."""
    lay = layout(name)
    blk, row, k = lay.a_src
    return _reg_lane_sub(name, (blk, row, _coords_k(lay.info, k)))


def b_coords(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(block, k, col j) of B for every (VGPR, lane, sub-element): int[a_regs, 64, 32/bits]."""
    info = layout(name).info
    blk, col, k = _ab_maps(info, info.n)
    return _reg_lane_sub(name, (blk, _coords_k(info, k), col))


def cd_coords(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(block, row i, col j) of C/D for every (VGPR, lane): three int[cd_regs, 64]."""
    return tuple(np.array(m) for m in layout(name).cd_src)


def a_index(name: str, reg: int, lane: int, elem: int) -> tuple[int, int, int]:
    """(block, i, k) of the A element in sub-element ``elem`` of VGPR ``reg`` at ``lane``."""
    b, i, k = a_coords(name)
    return int(b[reg, lane, elem]), int(i[reg, lane, elem]), int(k[reg, lane, elem])


def b_index(name: str, reg: int, lane: int, elem: int) -> tuple[int, int, int]:
    """(block, k, j) of the B element in sub-element ``elem`` of VGPR ``reg`` at ``lane``."""
    b, k, j = b_coords(name)
    return int(b[reg, lane, elem]), int(k[reg, lane, elem]), int(j[reg, lane, elem])


def cd_index(name: str, reg: int, lane: int) -> tuple[int, int, int]:
    """(block, i, j) of the C/D element in VGPR ``reg`` at ``lane``."""
    b, i, j = layout(name).cd_src
    return int(b[reg, lane]), int(i[reg, lane]), int(j[reg, lane])
