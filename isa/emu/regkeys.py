"""Register keys of the emulator's pending and budget checks (a leaf module).

Keys are ints: SGPR i (incl. vcc_lo 106 / vcc_hi 107) -> i, VGPR i -> 1000 + i, AGPR i -> 2000 + i.
"""
from __future__ import annotations

from ..operands import Reg, Special

V_BASE = 1000
A_BASE = 2000
_SPECIAL_KEYS = {"vcc": (106, 107), "vcc_lo": (106,), "vcc_hi": (107,)}


def reg_keys(op) -> tuple[int, ...]:
    """The keys of the registers operand ``op`` names (empty for immediates, labels, exec, m0)."""
    if isinstance(op, Reg):
        base = 0 if op.file == "s" else (V_BASE if op.file == "v" else A_BASE)
        return tuple(range(base + op.index, base + op.index + op.count))
    if isinstance(op, Special):
        return _SPECIAL_KEYS.get(op.name, ())
    return ()


def key_name(k: int) -> str:
    """``s5`` / ``v12`` / ``a3`` / ``vcc_lo`` of a key."""
    if k >= A_BASE:
        return f"a{k - A_BASE}"
    if k >= V_BASE:
        return f"v{k - V_BASE}"
    if k == 106:
        return "vcc_lo"
    if k == 107:
        return "vcc_hi"
    return f"s{k}"
