"""Typed run-time errors of the emulator; every message names pc, instruction, wave and the culprit.

Each error keeps its fields as attributes (``pc``, ``instr``, ``wave``, plus what went wrong)
so tests and tools can inspect them without parsing the message.
"""
from __future__ import annotations


class EmulatorError(Exception):
    """Base of every emulator run-time error."""

    def __init__(self, what: str, pc: int | None = None, instr: object = None,
                 wave: int | None = None, workgroup: tuple | None = None) -> None:
        self.what = what
        self.pc = pc
        self.instr = instr
        self.wave = wave
        self.workgroup = workgroup
        where = []
        if workgroup is not None:
            where.append(f"workgroup {tuple(workgroup)}")
        if wave is not None:
            where.append(f"wave {wave}")
        if pc is not None:
            where.append(f"pc {pc}")
        if instr is not None:
            where.append(f"'{instr}'")
        super().__init__(f"{what} (at {', '.join(where)})" if where else what)


class UnknownInstructionError(EmulatorError):
    """A mnemonic with no handler (or not in the arch's spec table)."""


class PendingReadError(EmulatorError):
    """A read of a register or LDS byte whose pending write has not been waited for."""


class PendingOverwriteError(EmulatorError):
    """A write to a register that a pending (not waited for) load still targets."""


class HazardError(EmulatorError):
    """Required wait states between two instructions are not met (``rules``: the rule names)."""

    rules: tuple = ()


class MfmaShadowHazardError(HazardError):
    """Too few wait states counted as instructions, enough if each MFMA between the two counts its
    passes: a case AMD's documents leave open (isa.emu.hazard_check); allowed per rule only."""


class LdsRaceError(EmulatorError):
    """Two waves touch the same LDS byte (at least one writes) with no s_barrier between."""


class LdsOutOfBoundsError(EmulatorError):
    """An LDS access outside the workgroup's LDS allocation."""


class ScratchOutOfBoundsError(EmulatorError):
    """A scratch (private segment) access outside the kernel's private_segment_fixed_size."""


class GlobalOutOfBoundsError(EmulatorError):
    """A global/flat/SMEM access outside every registered allocation."""


class GlobalRaceError(EmulatorError):
    """Two workgroups of one launch write the same global byte (no ordering between workgroups)."""


class RegisterBudgetError(EmulatorError):
    """An instruction touches a register beyond the kernel descriptor's budget."""


class BarrierDeadlockError(EmulatorError):
    """Waves wait at s_barrier while some live wave can never arrive."""


class StepLimitError(EmulatorError):
    """The run exceeded the step limit (likely an endless loop)."""


class LaunchError(EmulatorError):
    """Bad launch arguments (grid, block, kernargs, LDS size) or code object contents."""
