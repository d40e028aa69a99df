"""The complete set of instruction semantics: imports every handler module (listed here, once) so
that each format's registry (isa.emu.registry) is filled, and binds decoded instructions.

Adding a handler module means adding it to the import list below; nothing is found by scanning
source text, and a mnemonic registered twice is an error at import (isa.emu.registry). Also
``execute``: run one instruction (an ``Instr`` or an assembly line) on one wave (tests, debugging).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache

from ..instr import Instr
from ..spec import ARCHES
from ..tables import spec_table
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
from .operand_io import AluError, AluOperandError, group_binding
from .registry import REGISTRIES, RW_SETS, HandlerFormatError, format_of

__all__ = ["REGISTRIES", "RW_SETS", "bind", "bind_group", "execute", "groupable", "has_semantics"]


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


def groupable(mnemonic: str) -> bool:
    """May ``mnemonic`` step for a group of waves at once (isa.emu.group)?"""
    try:
        return (REGISTRIES[format_of(mnemonic)].groupable(mnemonic) and mnemonic not in PER_WAVE
                and mnemonic in _spec_names())
    except HandlerFormatError:
        return False


@cache
def _spec_names() -> frozenset:
    """Mnemonics of the spec tables: the group forms tests/emu/test_group_step.py compares."""
    return frozenset(sp.name for a in ARCHES for sp in spec_table(a).values())


def bind_group(ins: Instr, spec, arch: str) -> Callable[[object, object], None] | None:
    """The group-bound function ``(machine, WaveGroup) -> None`` of ``ins``, or None when its operand
    form steps per wave (GroupUnsupported) or its binder rejects it (the per-wave binding reports)."""
    mods_ok = (not ins.mods or (ins.op.startswith("ds_")
                                    and all(k in ("offset", "offset0", "offset1") for k, _ in ins.mods))
               or ins.op.startswith("buffer_"))     # isa.emu.mem_buffer_group refuses what it cannot do
    if not groupable(ins.op) or not mods_ok or ins.encoding in ("dpp", "sdwa"):
        return None      # only the forms tests/emu/test_group_step.py compares step per group
    try:
        with group_binding():
            return REGISTRIES[format_of(ins.op)].bind(ins, spec, arch)
    except Exception:  # noqa: BLE001 - GroupUnsupported, or an operand form the per-wave path rejects
        return None


# VALU binders built on operand_io's factories whose own code is per wave (lane permutes, 64-lane
# reshapes, per-lane Python): they step wave by wave. tests/emu/test_group_step.py runs every other
# VALU mnemonic of the spec tables both ways and requires the same bits.
PER_WAVE = frozenset((
    "v_bfrev_b32", "v_ceil_f64", "v_cvt_f64_f32", "v_cvt_f64_i32", "v_cvt_f64_u32",
    "v_cvt_pk_f32_bf8", "v_cvt_pk_f32_fp8", "v_div_fmas_f32", "v_div_fmas_f64", "v_dot2_f32_bf16",
    "v_dot2_f32_f16", "v_floor_f64", "v_fma_f64", "v_fma_legacy_f16", "v_fmac_f64", "v_fract_f64",
    "v_frexp_mant_f64", "v_mov_b64", "v_msad_u8", "v_permlane16_swap_b32", "v_permlane32_swap_b32",
    "v_rcp_f64", "v_rndne_f64", "v_rsq_f64", "v_sad_hi_u8", "v_sad_u16", "v_sad_u8",
    "v_sat_pk_u8_i16", "v_sqrt_f64", "v_trig_preop_f64", "v_trunc_f64",
))


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
