"""Less common scalar ALU / program-control instructions: hardware-register access (s_getreg_b32,
s_setreg_b32, s_setreg_imm32_b32), lane-mask shaping (s_quadmask_*, s_wqm_*,
s_bitreplicate_b64_b32), M0-relative SGPR moves (s_movrels_*, s_movreld_*), and the SOPP ops
s_trap, s_sendmsg(halt), s_setkill, s_sethalt, s_incperflevel, s_decperflevel, s_ttracedata,
s_wakeup.

Sources: AMD "Instinct MI300 (CDNA3) ISA" guide, SOP1/SOPK/SOPP opcode tables (the CDNA4 guide
repeats them unchanged for these opcodes; the wording matches the GCN5/Vega ISA descriptions, e.g.
S_MOVRELD_B64 "The index in M0.u must be even", S_QUADMASK "SCC = 1 if result is non-zero", S_SETHALT
"1 = halt, 0 = resume", S_SETKILL "used primarily for debugging kill wave host command behavior");
LLVM AMDGPU ``SIDefines.h`` (hwreg ids, MODE field layout), ``SOPInstructions.td`` (S_QUADMASK and
S_WQM define SCC, S_BITREPLICATE does not) and ``AMDGPUUsage`` (MODE fields in the kernel
descriptor). Anything whose hardware value an emulator cannot know (MODE bits other than
round/denorm/IEEE, HW_ID, STATUS, TRAPSTS, ...) or whose effect is outside a single compute kernel
(messages, halt, trap handler) is refused with a typed error rather than guessed.
"""
from __future__ import annotations

from .errors import EmulatorError, PendingOverwriteError, PendingReadError, RegisterBudgetError
from .operand_io import M32, M64, scalar_getter, scalar_setter
from .registry import RW_SETS, handler


class TrapError(EmulatorError):
    """The kernel executed s_trap: on hardware control goes to the trap handler (a fault)."""


class UnmodelledStateError(EmulatorError):
    """An instruction reads or changes machine state the emulator does not model faithfully."""


# --------------------------------------------------------------------------------------------------
# s_quadmask / s_wqm / s_bitreplicate (CDNA3 ISA SOP1):
#   S_QUADMASK_B32/B64: D[i] = OR of S0[4i+3:4i] (8 / 16 result bits), SCC = D != 0.
#   S_WQM_B32/B64: every 4-bit group of D is all ones when any bit of S0's group is set, SCC = D != 0.
#   S_BITREPLICATE_B64_B32: D[2i] = D[2i+1] = S0[i] (the s_quadmask inverse shaping), no SCC.
# --------------------------------------------------------------------------------------------------
def quadmask(x: int, bits: int) -> int:
    """One result bit per 4-bit group of the ``bits``-wide ``x``: set when any bit of the group is."""
    return sum(1 << i for i in range(bits // 4) if (x >> (4 * i)) & 0xF)


def wqm(x: int, bits: int) -> int:
    """Whole-quad mask: each 4-bit group of the result is 0xF when the group of ``x`` is non-zero."""
    return sum(0xF << (4 * i) for i in range(bits // 4) if (x >> (4 * i)) & 0xF)


def bitreplicate(x: int) -> int:
    """Each bit i of the 32-bit ``x`` becomes bits 2i and 2i+1 of the 64-bit result."""
    return sum(3 << (2 * i) for i in range(32) if (x >> i) & 1)


def _mask_op(fn, width: int, sets_scc: bool, src_width: int | None = None):
    def run(m, w, ins):
        d, s0 = ins.operands[:2]
        val = fn(scalar_getter(s0, src_width or width)(w))
        scalar_setter(d, 2 if fn is bitreplicate else width)(w, val)
        if sets_scc:
            w.scc = int(val != 0)
    return run


handler("s_quadmask_b32")(_mask_op(lambda x: quadmask(x & M32, 32), 1, True))
handler("s_quadmask_b64")(_mask_op(lambda x: quadmask(x & M64, 64), 2, True))
handler("s_wqm_b32")(_mask_op(lambda x: wqm(x & M32, 32), 1, True))
handler("s_wqm_b64")(_mask_op(lambda x: wqm(x & M64, 64), 2, True))
handler("s_bitreplicate_b64_b32")(_mask_op(bitreplicate, 2, False, src_width=1))


# --------------------------------------------------------------------------------------------------
# s_movrels / s_movreld (CDNA3 ISA SOP1): S_MOVRELS_B32: D = SGPR[addr(S0) + M0];
# S_MOVRELD_B32: SGPR[addr(D) + M0] = S0; the _B64 forms move an aligned SGPR pair. The register
# actually touched is known only at run time, so the pending/budget checks the machine does from
# static operands are done here on the real index (RW_SETS below keeps the static check off the
# nominal register, which the instruction may not touch at all).
# --------------------------------------------------------------------------------------------------
N_ADDRESSABLE_SGPR = 102     # s0..s101 (cdna-facts section 1; LLVM SIRegisterInfo)


def _rel_index(m, w, ins, op, n: int, writing: bool) -> int:
    from ..operands import Reg
    if not (isinstance(op, Reg) and op.file == "s"):
        raise m.error(UnmodelledStateError, f"{ins.op}: M0-relative operand {op} is not an SGPR "
                      "(relative addressing of special registers is not modelled)", w)
    idx = op.index + (w.m0 & M32)
    if n == 2 and idx % 2:
        raise m.error(UnmodelledStateError, f"{ins.op}: s{op.index} + M0 ({w.m0 & M32}) = s{idx} is "
                      "odd; a 64-bit SGPR pair must be even-aligned", w)
    limit = min(w.sgpr_budget, N_ADDRESSABLE_SGPR)
    if idx + n > limit:
        raise m.error(RegisterBudgetError, f"{ins.op}: s{op.index} + M0 ({w.m0 & M32}) = s{idx}"
                      f"{'' if n == 1 else f':s{idx + 1}'} is beyond the {limit} SGPRs the wave has", w)
    for k in range(idx, idx + n):
        if k in w.pending_regs:
            cls = PendingOverwriteError if writing else PendingReadError
            raise m.error(cls, f"{ins.op}: s{k} (s{op.index} + M0) still has a load pending "
                          "(no s_waitcnt covers it)", w)
    return idx


def _movrels(n: int):
    def run(m, w, ins):
        d, s0 = ins.operands[:2]
        i = _rel_index(m, w, ins, s0, n, False)
        val = sum(int(w.sgpr[i + k]) << (32 * k) for k in range(n))
        scalar_setter(d, n)(w, val)
    return run


def _movreld(n: int):
    def run(m, w, ins):
        d, s0 = ins.operands[:2]
        val = scalar_getter(s0, n)(w)
        i = _rel_index(m, w, ins, d, n, True)
        for k in range(n):
            w.sgpr[i + k] = (val >> (32 * k)) & M32
    return run


def _movrels_rw(ins):
    from .regkeys import reg_keys
    return [], list(reg_keys(ins.operands[0]))


def _movreld_rw(ins):
    from .regkeys import reg_keys
    return list(reg_keys(ins.operands[1])), []


handler("s_movrels_b32")(_movrels(1))
handler("s_movrels_b64")(_movrels(2))
handler("s_movreld_b32")(_movreld(1))
handler("s_movreld_b64")(_movreld(2))
RW_SETS["s_movrels_b32"] = RW_SETS["s_movrels_b64"] = _movrels_rw
RW_SETS["s_movreld_b32"] = RW_SETS["s_movreld_b64"] = _movreld_rw


# --------------------------------------------------------------------------------------------------
# s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 (CDNA3 ISA SOPK): simm16 = hwreg id [5:0],
# offset [10:6], size-1 [15:11]. S_GETREG: D = (HW_REG >> offset) & mask(size) (zero-extended);
# S_SETREG: HW_REG[offset+size-1:offset] = S0[size-1:0] (S_SETREG_IMM32: the literal).
# Only HW_REG_MODE (id 1) is modelled, and only the fields the emulator's float semantics are fixed
# to (isa.emu.valu_float docstring): MODE layout per LLVM SIDefines.h / AMDGPUUsage kernel
# descriptor: [1:0] FP_ROUND f32, [3:2] FP_ROUND f16/f64 (0 = round to nearest even), [5:4]
# FP_DENORM f32, [7:6] FP_DENORM f16/f64, [9] IEEE (1), [23] FP16_OVFL. The FP_DENORM fields and
# FP16_OVFL are the wave's (``w.fp_mode``, set from the kernel descriptor at launch; isa.emu.denorm
# and the fp8/bf8 converts of isa.emu.valu_cvt apply them): they read back and any value can be
# written. The emulator always rounds to nearest even with IEEE mode on,
# so FP_ROUND reads 0 and IEEE 1, and a write of those same values is accepted; another value would
# need float semantics the emulator does not have: refused. Every other MODE bit (DX10_CLAMP
# [8], exception enables, GPR_IDX_EN, ...) and every other hwreg (HW_ID, STATUS, TRAPSTS, ...) holds
# hardware state with no defined value in an emulator: refused.
# --------------------------------------------------------------------------------------------------
HW_REG_MODE = 1
HWREG_NAMES = {1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 4: "HW_REG_HW_ID",
               5: "HW_REG_GPR_ALLOC", 6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS", 20: "HW_REG_XCC_ID"}
MODE_MODELLED_BITS = 0x8002FF   # FP_ROUND [3:0], FP_DENORM [7:4], IEEE [9], FP16_OVFL [23]
MODE_VALUE = 0x2F0              # RNE, denormals kept (f32 and f16/f64), IEEE mode on


def decode_hwreg(simm16: int) -> tuple[int, int, int]:
    """(id, offset, size) of a hwreg simm16."""
    return simm16 & 0x3F, (simm16 >> 6) & 0x1F, ((simm16 >> 11) & 0x1F) + 1


def _hwreg(m, w, ins, op) -> tuple[int, int]:
    """(offset, bit mask in MODE) of a hwreg operand naming modelled MODE bits, else refused."""
    val = getattr(op, "value", None)
    if not isinstance(val, int):
        raise m.error(UnmodelledStateError, f"{ins.op}: hwreg operand {op} is not an immediate", w)
    hid, off, size = decode_hwreg(val)
    if hid != HW_REG_MODE:
        name = HWREG_NAMES.get(hid, f"hwreg id {hid}")
        raise m.error(UnmodelledStateError, f"{ins.op}: {name} holds hardware state with no defined "
                      "value in the emulator (only HW_REG_MODE round/denorm/IEEE bits are modelled)", w)
    mask = (((1 << size) - 1) << off) & M32
    if mask & ~MODE_MODELLED_BITS:
        raise m.error(UnmodelledStateError, f"{ins.op}: MODE bits {mask & ~MODE_MODELLED_BITS:#x} "
                      f"(offset {off}, size {size}) are not modelled; only FP_ROUND [3:0], "
                      "FP_DENORM [7:4], IEEE [9] and FP16_OVFL [23] are", w)
    return off, mask


FP_DENORM_BITS = 0xF0
FREE_BITS = FP_DENORM_BITS | 1 << 23      # any value can be written: FP_DENORM, FP16_OVFL


@handler("s_getreg_b32")
def _getreg(m, w, ins):
    d, hw = ins.operands[:2]
    off, mask = _hwreg(m, w, ins, hw)
    scalar_setter(d)(w, (w.fp_mode & mask) >> off)


def _setreg(m, w, ins, value: int):
    off, mask = _hwreg(m, w, ins, ins.operands[0])
    new_bits = (value << off) & mask
    fixed = mask & ~FREE_BITS
    if new_bits & fixed != MODE_VALUE & fixed:
        raise m.error(UnmodelledStateError, f"{ins.op}: MODE bits {mask:#x} := {new_bits >> off:#x} "
                      f"(modelled value {(w.fp_mode & mask) >> off:#x}): the emulator's float ops "
                      "always round to nearest even and use IEEE mode (FP_DENORM [7:4] and FP16_OVFL [23] may "
                      "change)", w)
    w.fp_mode = (w.fp_mode & ~mask) | new_bits
    sched = getattr(m, "sched", None)
    if sched is not None:
        sched.modes_may_differ = True   # group steps of MODE readers compare the members' modes


@handler("s_setreg_b32")
def _setreg_b32(m, w, ins):
    _setreg(m, w, ins, scalar_getter(ins.operands[1])(w))


@handler("s_setreg_imm32_b32")
def _setreg_imm32(m, w, ins):
    imm = ins.operands[1]
    val = getattr(imm, "value", None)
    if not isinstance(val, int):
        raise m.error(UnmodelledStateError, f"s_setreg_imm32_b32: {imm} is not an integer literal", w)
    _setreg(m, w, ins, val & M32)


RW_SETS["s_setreg_imm32_b32"] = lambda ins: ([], [])


# --------------------------------------------------------------------------------------------------
# SOPP (CDNA3 ISA SOPP table)
# --------------------------------------------------------------------------------------------------
def _simm(ins) -> int:
    if not ins.operands:
        return 0
    val = getattr(ins.operands[0], "value", None)
    return int(val) & 0xFFFF if isinstance(val, int) else 0


@handler("s_trap")
def _trap(m, w, ins):
    """S_TRAP: enter the trap handler with TrapID = SIMM16[7:0]. A compute kernel has no handler of
    its own here; LLVM emits s_trap for llvm.trap / llvm.debugtrap, i.e. a fault."""
    raise m.error(TrapError, f"s_trap {_simm(ins) & 0xFF}: the kernel trapped (trap handler entry is "
                  "a fault for the emulator)", w)


@handler("s_sendmsg", "s_sendmsghalt")
def _sendmsg(m, w, ins):
    """S_SENDMSG(HALT): messages (interrupt, GS, save-wave, stall/halt waves, doorbell, sysmsg) all
    go to agents outside the kernel (SPI, host); none has an effect a compute kernel's result can
    be checked against, so every message is refused."""
    code = _simm(ins)
    raise m.error(UnmodelledStateError, f"{ins.op} message id {code & 0xF} (simm16 {code:#x}): the "
                  "message goes to an agent outside the kernel and its effect is not modelled", w)


@handler("s_setkill")
def _setkill(m, w, ins):
    """S_SETKILL: KILL bit = SIMM16[0] (the host kill-wave mechanism). 0 is a no-op; 1 ends the wave
    by an external-agent path the emulator does not model, so it is refused."""
    if _simm(ins) & 1:
        raise m.error(UnmodelledStateError, "s_setkill 1: killing the wave is not modelled", w)


@handler("s_sethalt")
def _sethalt(m, w, ins):
    """S_SETHALT: HALT bit = SIMM16[0]. 0 (resume) is a no-op for a running wave; 1 halts the wave
    until a host agent resumes it, which is never in the emulator: refused."""
    if _simm(ins) & 1:
        raise m.error(UnmodelledStateError, "s_sethalt 1: a halted wave waits for the host, which "
                      "the emulator does not model", w)


@handler("s_incperflevel", "s_decperflevel", "s_ttracedata", "s_wakeup")
def _no_op(m, w, ins):
    """No architectural effect: s_incperflevel / s_decperflevel step the performance counter
    named by SIMM16[3:0] (not readable by the kernel); s_ttracedata sends M0 to the thread-trace
    unit (not modelled); s_wakeup wakes waves in s_sleep, and the emulator's s_sleep never blocks
    (isa.emu.control)."""
