"""What the decoder's operand and modifier helpers (isa.decode_mem, isa.decode_vector) know about
the instruction being decoded (a leaf, so the helpers need not import isa.decode).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Ctx:
    """What the operand/modifier helpers need to know about the instruction being decoded."""

    fmt: str
    bits: int
    entry: dict
    offset: int
    literal: int | None = None
    ext: str = ""          # "dpp" | "sdwa" | "" for VOP1/VOP2/VOPC
    name: str = ""
