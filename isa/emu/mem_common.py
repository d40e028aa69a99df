"""Helpers shared by the memory instruction modules: register rows <-> per-lane bytes, offsets,
sub-dword extension, and the async-op constructor for register-writing loads.
"""
from __future__ import annotations

import numpy as np

from ..operands import Imm, Reg, Special
from .errors import EmulatorError

# FLAT apertures (isa.emu.mem_flat has the sources): ROCm KFD's gfx9 bases for 64-bit processes.
SHARED_APERTURE_BASE = 1 << 48
SHARED_APERTURE_LIMIT = SHARED_APERTURE_BASE + (1 << 32) - 1
PRIVATE_APERTURE_BASE = 2 << 48
PRIVATE_APERTURE_LIMIT = PRIVATE_APERTURE_BASE + (1 << 32) - 1
# 64-bit values of the aperture source operands (src_shared_base ... src_private_limit)
APERTURE_OPERANDS = {"src_shared_base": SHARED_APERTURE_BASE, "src_shared_limit": SHARED_APERTURE_LIMIT,
                     "src_private_base": PRIVATE_APERTURE_BASE, "src_private_limit": PRIVATE_APERTURE_LIMIT}

_BYTES = {n: np.arange(n, dtype=np.int64) for n in range(1, 65)}


def byte_range(n: int) -> np.ndarray:
    return _BYTES[n]


def regfile(w, reg: Reg) -> np.ndarray:
    if reg.file == "v":
        return w.vgpr
    if reg.file == "a":
        return w.agpr
    raise EmulatorError(f"{reg} is not a VGPR/AGPR")


def lanes_to_bytes(rows: np.ndarray, lanes, nbytes: int) -> np.ndarray:
    """uint32[n_regs, 64] rows -> uint8[n_lanes, nbytes] (little-endian, first register first).
    Always a copy: store data is read at issue and must not follow later register writes (with
    ``lanes = slice(None)`` a one-row transpose is already contiguous, so ascontiguousarray
    would return a view of the register file)."""
    data = np.array(rows[:, lanes].T, dtype=np.uint32, order="C", copy=True).view(np.uint8)
    return data[:, :nbytes]


def bytes_to_dwords(data: np.ndarray, signed: bool = False) -> np.ndarray:
    """uint8[n, nbytes] -> uint32[n, ceil(nbytes/4)]; 1- and 2-byte values zero/sign-extended."""
    nb = data.shape[1]
    if nb >= 4:
        return np.ascontiguousarray(data).view(np.uint32)
    if nb == 1:
        v = data[:, 0].astype(np.int8 if signed else np.uint8)
    else:
        v = np.ascontiguousarray(data).view(np.int16 if signed else np.uint16)[:, 0]
    return v.astype(np.int32).astype(np.uint32)[:, None] if signed else v.astype(np.uint32)[:, None]


def mod_int(ins, name: str, default: int = 0) -> int:
    val = ins.mod(name, default)
    return int(val) if val is not None and val is not True else default


def scalar_operand_value(w, op) -> int:
    """Value of an SGPR / inline constant / m0 / off operand used as soffset or saddr."""
    if isinstance(op, Reg) and op.file == "s":
        return int(w.sgpr[op.index])
    if isinstance(op, Imm):
        return op.bits32()
    if isinstance(op, Special):
        if op.name == "off":
            return 0
        if op.name == "m0":
            return w.m0 & 0xFFFFFFFF
        if op.name == "vcc_lo":
            return int(w.sgpr[106])
        if op.name == "vcc_hi":
            return int(w.sgpr[107])
    raise EmulatorError(f"operand {op} cannot be a scalar offset")


def is_off(op) -> bool:
    return isinstance(op, Special) and op.name == "off"
