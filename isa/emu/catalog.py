"""The complete set of instruction semantics: imports every handler module (listed here, once) so
that each format's registry (isa.emu.registry) is filled, and binds decoded instructions.

Adding a handler module means adding it to the import list below; nothing is found by scanning
source text, and a mnemonic registered twice is an error at import (isa.emu.registry). Also
``execute``: run one instruction (an ``Instr`` or an assembly line) on one wave (tests, debugging).
"""
from __future__ import annotations

from collections.abc import Callable

from ..instr import Instr
from . import (  # noqa: F401  (imported for their registrations)
    branch,
    control,
    mem_buffer,
    mem_d16_extra,
    mem_ds_extra,
    mem_flat,
    mem_global,
    mem_lds,
    mem_lds_tr,
    mem_scratch,
    mem_smem,
    mem_smem_extra,
    mfma_sparse,
    salu,
    salu_extra,
    valu_cmp,
    valu_cvt,
    valu_dot,
    valu_float,
    valu_int,
    valu_lane,
    valu_misc,
    valu_scale_cvt,
)
from .errors import EmulatorError, UnknownInstructionError
from .operand_io import AluError, AluOperandError
from .registry import REGISTRIES, RW_SETS, HandlerFormatError, format_of

__all__ = ["REGISTRIES", "RW_SETS", "bind", "execute", "has_semantics"]


def has_semantics(mnemonic: str) -> bool:
    """Does some format's registry know ``mnemonic``?"""
    try:
        return mnemonic in REGISTRIES[format_of(mnemonic)]
    except HandlerFormatError:
        return False


def bind(ins: Instr, spec, arch: str) -> Callable[[object, object], None]:
    """The bound function ``(machine, wave) -> None`` of one decoded instruction. An instruction with
    no semantics, or one its binder rejects, gets a function raising UnknownInstructionError when it
    executes (a program may contain code that never runs)."""
    try:
        fn = REGISTRIES[format_of(ins.op)].bind(ins, spec, arch)
    except EmulatorError:
        raise
    except Exception as exc:  # noqa: BLE001 - a binder rejected this operand form: fail when executed
        return _raiser(UnknownInstructionError, f"cannot bind '{ins}': {type(exc).__name__}: {exc}")
    if fn is None:
        return _raiser(UnknownInstructionError, f"no emulator semantics for mnemonic {ins.op!r}")
    return fn


def _raiser(cls, what: str):
    def fn(m, w):
        raise m.error(cls, what, w)
    return fn


class _BareMachine:
    """What ALU binders need of a machine when one runs an instruction outside a program."""

    def __init__(self, arch: str):
        self.arch = arch


def execute(w, ins, m=None, arch: str = "gfx942") -> None:
    """Run one ALU instruction (an ``Instr`` or an LLVM assembly line) on wave ``w`` (tests, debugging).

    ``m`` defaults to a bare machine knowing only ``arch``; branches need a real machine. Text is
    parsed without the arch table check, so semantics can be tested ahead of the tables."""
    if isinstance(ins, str):
        from ..asm_parse import parse_line
        parsed = parse_line(ins)
        if parsed is None:
            raise AluOperandError(f"no instruction in {ins!r}")
        ins = parsed
    try:
        reg = REGISTRIES[format_of(ins.op)]
    except HandlerFormatError:
        reg = None
    if reg is None or ins.op not in reg or reg.fmt not in ("SOP", "VOP"):
        raise AluError(f"no ALU semantics for {ins.op!r}")
    reg.bind(ins, None, arch)(m if m is not None else _BareMachine(arch), w)
