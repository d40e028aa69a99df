"""The project's CDNA3/CDNA4 wave64 emulator: runs code objects and checks them strictly.

``Emulator`` (isa.emu.launch) is the public entry; see docs/design.md "Correctness without
hardware". Imported lazily so that handler modules can import ``isa.emu.*`` freely.
"""
from __future__ import annotations

__all__ = ["Emulator"]


def __getattr__(name: str):
    if name == "Emulator":
        from .launch import Emulator
        return Emulator
    raise AttributeError(f"module 'isa.emu' has no attribute {name!r}")
