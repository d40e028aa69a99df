"""Waves stepping together: the register files of a workgroup, or of every workgroup a pool runs
(isa.emu.pool), as one array each, and the ``WaveGroup`` an instruction bound for a group runs on.

``WorkgroupFiles(waves, capacity)`` gives [slots, 256, 64] VGPR and AGPR files, [slots, 108] SGPRs
and [slots, 64] EXEC lanes, and makes every wave's own files views of its slot (a wave's ``vgpr``
stays a C-contiguous [256, 64] array, so per-wave handlers are unchanged); ``place`` puts the
next workgroup's waves into freed slots. When the stepper picks a wave whose instruction has a
group binding (isa.emu.program ``Entry.group_ok``), every runnable wave at the same pc, of any
workgroup of the pool, steps with it as one NumPy operation over [n_members, ..., 64]
(docs/design.md "Correctness without hardware"). Which instructions may: lane-wise VALU ops whose
operands are VGPRs, AGPRs, SGPR or constant sources (isa.emu.operand_io ``group_binding``), the
dense MFMAs (isa.emu.control) and dword ds_read/ds_write (isa.emu.mem_lds_group, which issues each
member's own async op on its own workgroup's LDS). Every generic check (budget, pending
registers, hazards, trace) still runs per member wave, before the group executes, exactly as if
the members had stepped one after the other; VALU and MFMA touch only their own wave's registers,
so the group's result is the result of any order of those single steps.
"""
from __future__ import annotations

import numpy as np

from .state import N_AGPR, N_SGPR_SLOTS, N_VGPR, WAVE_SIZE


class WorkgroupFiles:
    """The stacked register files of one workgroup (owned by the machine), or of every workgroup a
    pool runs at once (isa.emu.pool: ``capacity`` wave slots, filled by ``place``)."""

    __slots__ = ("A", "EM", "S", "V", "full", "n")

    def __init__(self, waves: list, capacity: int | None = None) -> None:
        n = self.n = len(waves) if capacity is None else capacity
        self.V = np.empty((n, N_VGPR, WAVE_SIZE), np.uint32)
        self.A = np.empty((n, N_AGPR, WAVE_SIZE), np.uint32)
        self.S = np.empty((n, N_SGPR_SLOTS), np.uint32)
        self.EM = np.empty((n, WAVE_SIZE), bool)
        self.place(waves, 0)
        self.full = slice(None)

    def place(self, waves: list, first: int) -> None:
        """Copy ``waves``' registers into slots ``first``.. and make the waves' files views of them."""
        for k, w in enumerate(waves, first):
            self.V[k] = w.vgpr
            self.A[k] = w.agpr
            self.S[k] = w.sgpr
            self.EM[k] = w.exec_mask()
            w.vgpr = self.V[k]
            w.agpr = self.A[k]
            w.sgpr = self.S[k]
            w._em_row = self.EM[k]
            w.wg_slot = k


def _slot(w) -> int:
    return w.wg_slot


class WaveGroup:
    """What a group-bound instruction runs on: the member waves at one pc (of one workgroup, or of
    several in a pool).

    ``V``/``A``/``S`` are the workgroup's files, ``sel`` the members (a slice when they are a
    contiguous run of waves, else an index array; ``is_slice`` says which), ``n`` their number,
    ``ordered`` the members in the order of ``sel``'s rows."""

    __slots__ = ("A", "S", "V", "_em", "is_slice", "members", "n", "ordered", "sel")

    def __init__(self, files: WorkgroupFiles, members: list) -> None:
        self.V, self.A, self.S = files.V, files.A, files.S
        self.members = members
        self.n = len(members)
        slots = [w.wg_slot for w in members]
        ids = sorted(slots)
        # the members in slot order: row k of ``X[sel]`` is ``ordered[k]``'s (isa.emu.salu_group)
        self.ordered = members if ids == slots else sorted(members, key=_slot)
        lo = ids[0]
        if ids[-1] - lo == self.n - 1:        # distinct slots (one per wave): a contiguous run
            self.sel = slice(lo, lo + self.n)
            self.is_slice = True
        else:
            self.sel = np.array(ids, np.intp)
            self.is_slice = False
        self._em = files.EM

    # read from the first member when asked: a group is kept while its members stay the runnable
    # waves of the pool (isa.emu.pool), whose pcs and modes move on
    @property
    def wave_id(self) -> int:
        return self.members[0].wave_id

    @property
    def pc(self) -> int:
        return self.members[0].pc

    @property
    def fp_mode(self) -> int:
        """The MODE register's float fields (isa.emu.denorm); the stepper groups only waves that
        agree on them for an instruction that reads them."""
        return self.members[0].fp_mode

    def exec_mask(self) -> np.ndarray:
        """bool [n_members, 64]: each member's EXEC lanes."""
        return self._em[self.sel]

    def full_exec(self) -> bool:
        return all(w._exec == 0xFFFFFFFFFFFFFFFF for w in self.members)
