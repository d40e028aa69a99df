"""Helpers for EMU-CORE's tests: run assembly text on the emulator with an explicit initial state."""
from __future__ import annotations

import numpy as np

from isa.asm_parse import parse_program
from isa.emu import Emulator

FULL = (1 << 64) - 1


def srd(addr: int, num_records: int, stride: int = 0) -> list[int]:
    """A raw buffer resource (cdna-facts section 5: dword3 0x00020000)."""
    return [addr & 0xFFFFFFFF, (addr >> 32) | (stride << 16), num_records, 0x00020000]


def run(text: str, *, emu: Emulator | None = None, n_waves: int = 1, lds: int = 0, seed: int = 0,
        sgprs: dict | None = None, vgprs: dict | None = None, exec_mask: int = FULL,
        sgpr_budget: int = 102, vgpr_budget: int = 256, agpr_budget: int = 256, **kw):
    """Run ``text`` as one workgroup. ``sgprs``/``vgprs`` map register index to a value (int, list,
    or a function of the wave id). Returns the Machine."""
    emu = emu or Emulator(seed=seed, **kw)
    instrs, labels = parse_program(text)

    def setup(w):
        for i, val in (sgprs or {}).items():
            val = val(w.wave_id) if callable(val) else val
            vals = val if isinstance(val, (list, tuple)) else [val]
            for k, x in enumerate(vals):
                w.sgpr[i + k] = x & 0xFFFFFFFF
        for i, val in (vgprs or {}).items():
            val = val(w.wave_id) if callable(val) else val
            w.vgpr[i] = np.asarray(val, dtype=np.int64).astype(np.uint32)
    return emu.run_program(instrs, labels, n_waves=n_waves, lds_bytes=lds, setup=setup,
                           exec_mask=exec_mask, sgpr_budget=sgpr_budget, vgpr_budget=vgpr_budget,
                           agpr_budget=agpr_budget)
