"""Optional instruction trace: one record per issued wave-instruction.

Enabled with ``Emulator(trace=True)``; records land in ``emu.trace`` (a list of dicts):
``wg`` workgroup id, ``wave``, ``simd`` (wave id % 4), ``pc``, ``step`` (machine step in the
workgroup), ``instr`` (LLVM text), ``vmcnt`` / ``lgkmcnt`` (the wave's in-flight VMEM / LDS+SMEM
ops when it issued), and for DS instructions ``lds_bank_conflicts`` (extra cycles, from
isa.emu.mem_lds.bank_conflict_cycles). ``write_json`` saves them for tools.
"""
from __future__ import annotations

import json


def record(m, w, e) -> None:
    m.trace.append({"wg": m.wg_id, "wave": w.wave_id, "simd": w.simd, "pc": e.pc, "step": m.steps,
                    "instr": str(e.instr),
                    "vmcnt": sum(1 for op in w.vm_queue if not op.landed),
                    "lgkmcnt": sum(1 for op in w.lgkm_queue if not op.landed)})


def write_json(records: list, path: str) -> None:
    with open(path, "w") as f:
        json.dump(records, f)
