"""Architectural state of one wave64: register files, EXEC, SCC, M0, PC and budgets.

This is the contract every emulator handler works on (handlers: the format registries of ``isa.emu.registry``).
Register files are NumPy arrays, one row per register and one column per lane, so a VALU
op is one vector operation over a row. Asynchronous memory bookkeeping (pending results,
counters) is kept here as plain fields but is owned by ``isa.emu.pending``.
"""
from __future__ import annotations

import numpy as np

# SGPR file layout (cdna-facts section 1/8; LLVM SIRegisterInfo): s0..s101 addressable,
# 102..105 are FLAT_SCRATCH/XNACK_MASK, 106:107 is VCC.
N_SGPR_SLOTS = 108
VCC_LO = 106
VCC_HI = 107
WAVE_SIZE = 64
N_VGPR = 256
N_AGPR = 256
MASK64 = (1 << 64) - 1
_LANES = np.arange(WAVE_SIZE, dtype=np.int64)
_BITS = np.uint64(1) << np.arange(WAVE_SIZE, dtype=np.uint64)
ALL_LANES = slice(None)
_HZ_EMPTY = (0, ())


def mask_to_bools(value: int) -> np.ndarray:
    """bool[64] lane mask of a 64-bit integer (bit i = lane i)."""
    return (np.uint64(value & MASK64) & _BITS) != 0


def bools_to_mask(bools: np.ndarray) -> int:
    """64-bit integer of a bool[64] lane mask."""
    return int(np.bitwise_or.reduce(np.where(bools, _BITS, np.uint64(0))))


class Wave:
    """One wavefront: registers, EXEC/SCC/M0/PC, its budgets and the machine's per-wave bookkeeping."""

    __slots__ = (
        "_em_row",
        "_exec",
        "_exec_lanes",
        "_exec_mask",
        "agpr",
        "agpr_budget",
        "at_barrier",
        "done",
        "ended_at",
        "epoch",
        "fp_mode",
        "hz",
        "lane_ids",
        "lds_dma_bytes",
        "lgkm_queue",
        "m0",
        "mach",
        "n_issued",
        "pc",
        "pending_regs",
        "prio",
        "scc",
        "sgpr",
        "sgpr_budget",
        "simd",
        "vgpr",
        "vgpr_budget",
        "vm_queue",
        "wave_id",
        "wg_slot",
    )

    def __init__(self, wave_id: int, sgpr_budget: int = 102, vgpr_budget: int = N_VGPR,
                 agpr_budget: int = N_AGPR) -> None:
        self.sgpr = np.zeros(N_SGPR_SLOTS, dtype=np.uint32)
        self.vgpr = np.zeros((N_VGPR, WAVE_SIZE), dtype=np.uint32)
        self.agpr = np.zeros((N_AGPR, WAVE_SIZE), dtype=np.uint32)
        self._exec = 0
        self._exec_mask = np.zeros(WAVE_SIZE, dtype=bool)
        self._exec_lanes = np.zeros(0, dtype=np.int64)
        self._em_row = None         # this wave's row of the workgroup's EXEC-lane array (isa.emu.group)
        self.scc = 0
        self.m0 = 0
        self.pc = 0
        self.wave_id = wave_id
        self.mach = None            # the Machine (workgroup) the wave runs in
        self.wg_slot = 0            # index in its workgroup's stacked files (isa.emu.group)
        self.lane_ids = _LANES
        # Budgets from the kernel descriptor (registers a kernel may touch); checked by the machine.
        self.sgpr_budget = sgpr_budget
        self.vgpr_budget = vgpr_budget
        self.agpr_budget = agpr_budget
        self.done = False
        self.at_barrier = False
        self.prio = 0
        self.simd = wave_id % 4
        self.epoch = 0              # barriers this wave has passed
        self.ended_at = -1
        # Owned by isa.emu.pending: register key ("v", 5) -> the async op that will write it
        # and has not been covered by an s_waitcnt yet.
        self.pending_regs: dict = {}
        self.lds_dma_bytes: dict = {}   # LDS byte ranges written by uncovered LDS-DMA ops
        self.vm_queue: list = []        # outstanding (uncovered) VMEM ops, issue order
        self.lgkm_queue: list = []      # outstanding (uncovered) LDS/SMEM ops, issue order
        # Owned by isa.emu.hazard_check: (wait-state clock, recent producers), an immutable state
        # that waves in lockstep share (isa.emu.hazard_check.issue).
        self.hz: tuple = _HZ_EMPTY
        self.n_issued = 0
        # Owned by isa.emu.denorm: the modelled MODE bits (FP_ROUND [3:0], FP_DENORM [7:4], IEEE
        # [9]); launch sets the denormal fields from the kernel descriptor, s_setreg may change them.
        self.fp_mode = 0x2F0

    # EXEC ---------------------------------------------------------------------------------
    @property
    def exec(self) -> int:
        return self._exec

    @exec.setter
    def exec(self, value: int) -> None:
        self.set_exec(value)

    def set_exec(self, value: int) -> None:
        value &= MASK64
        if value != self._exec:
            self._exec = value
            self._exec_mask = mask_to_bools(value)
            self._exec_lanes = ALL_LANES if value == MASK64 else np.flatnonzero(self._exec_mask)
            if self._em_row is not None:
                self._em_row[:] = self._exec_mask

    def exec_mask(self) -> np.ndarray:
        """bool[64] of active lanes (cached until EXEC changes). Do not modify it in place."""
        return self._exec_mask

    def exec_lanes(self):
        """Index of the active lanes for ``rows[:, lanes]``: ``slice(None)`` when all 64 are active
        (a view, no gather), else int64 lane numbers. Cached until EXEC changes."""
        return self._exec_lanes

    # VCC ----------------------------------------------------------------------------------
    @property
    def vcc(self) -> int:
        return int(self.sgpr[VCC_LO]) | (int(self.sgpr[VCC_HI]) << 32)

    @vcc.setter
    def vcc(self, value: int) -> None:
        value &= MASK64
        self.sgpr[VCC_LO] = value & 0xFFFFFFFF
        self.sgpr[VCC_HI] = value >> 32

    def __repr__(self) -> str:
        return f"Wave({self.wave_id}, pc={self.pc}, exec={self._exec:#x})"
