"""Control flow of the scalar unit: s_branch, s_cbranch_*, and the PC-as-address ops s_getpc_b64,
s_setpc_b64, s_swappc_b64, s_call_b64.

Branches set ``w.pc`` to the label's instruction index via ``m.label_index(w, label)``; a branch
not taken leaves ``w.pc`` alone and the machine advances it. For a group of waves at one pc
(isa.emu.group) a branch takes each member's own outcome and sets every member's pc.

PC values as data (documented choice): the address of instruction ``pc`` is
``code_base + byte_offset(pc)``, where ``byte_offset`` is ``m.program.offsets[pc]`` when the program
came from a code object (real encodings, so ``s_getpc_b64`` + ``s_add_u32 ..., sym@rel32@lo+4`` style
arithmetic sees true distances) and ``4 * pc`` otherwise; ``code_base`` is ``m.program.code_base``
when the loader sets it, else ``CODE_BASE``. ``s_getpc_b64`` returns the address of the next
instruction (ISA guide: "D = PC + 4", the PC of the following instruction); ``s_setpc_b64`` /
``s_swappc_b64`` map an address back to an instruction index and fail on any other address.
"""
from __future__ import annotations

from .errors import EmulatorError
from .operand_io import AluError, alu, group_mode, ops, scalar_getter, scalar_setter

CODE_BASE = 0x0000_7F00_0000_0000


def _cond(name: str):
    if name == "s_cbranch_scc0":
        return lambda w: w.scc == 0
    if name == "s_cbranch_scc1":
        return lambda w: w.scc != 0
    if name == "s_cbranch_vccz":
        return lambda w: w.vcc == 0
    if name == "s_cbranch_vccnz":
        return lambda w: w.vcc != 0
    if name == "s_cbranch_execz":
        return lambda w: w.exec == 0
    if name == "s_cbranch_execnz":
        return lambda w: w.exec != 0
    raise AluError(f"unknown conditional branch {name}")


def _bind_branch(name: str):
    cond = None if name == "s_branch" else _cond(name)

    def bind(ins):
        (label,) = ops(ins, 1)
        if group_mode():
            return _group_branch(cond, label)
        if cond is None:
            def run(m, w):
                w.pc = m.label_index(w, label)
        else:
            def run(m, w):
                if cond(w):
                    w.pc = m.label_index(w, label)
        return run
    return bind


def _group_branch(cond, label):
    """The branch for a group of waves at one pc (isa.emu.group): each member's own outcome (its
    SCC, VCC or EXEC), so members whose outcomes differ go on at different pcs and step in
    different groups from then on. Sets every member's pc; returns True to tell the stepper so."""
    def run(m, g):
        target = None
        for w in g.members:
            if cond is None or cond(w):
                if target is None:
                    target = _label_pc(m, w, label)
                w.pc = target
            else:
                w.pc += 1
        return True
    return run


def _label_pc(m, w, label) -> int:
    """``label``'s instruction index, an error located at ``w`` for an unknown label (as
    ``Machine.label_index``, without its per-wave jump flag)."""
    try:
        return m.program.label_index(label)
    except EmulatorError as e:
        raise m.error(EmulatorError, e.what, w) from None


for _n in ("s_branch", "s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
           "s_cbranch_execz", "s_cbranch_execnz"):
    alu(_n, group=True)(_bind_branch(_n))


def code_base(m) -> int:
    return getattr(m.program, "code_base", CODE_BASE)


def pc_address(m, pc: int) -> int:
    """Byte address of instruction index ``pc`` (one past the end allowed)."""
    offs = m.program.offsets
    if offs is None:
        return code_base(m) + 4 * pc
    if pc < len(offs):
        return code_base(m) + offs[pc]
    raise AluError(f"pc {pc} has no address: the program has {len(offs)} instructions")


def address_pc(m, w, addr: int) -> int:
    """Instruction index at byte address ``addr``; an AluError for an address inside no instruction."""
    off = addr - code_base(m)
    offs = m.program.offsets
    if offs is None:
        if off % 4 == 0 and 0 <= off // 4 < len(m.entries):
            return off // 4
    else:
        pc = m.program.offset_to_pc.get(off)
        if pc is not None:
            return pc
    msg = f"jump to address {addr:#x} (code offset {off:#x}) that starts no instruction"
    if hasattr(m, "error"):     # the machine locates the error (pc, instruction, wave, workgroup)
        raise m.error(EmulatorError, msg, w)
    raise AluError(f"{msg} (wave {w.wave_id}, pc {w.pc})")


def _next_address(m, w) -> int:
    nxt = w.pc + 1
    offs = m.program.offsets
    if offs is not None and nxt == len(offs):
        return code_base(m) + offs[-1] + 4  # past the last instruction (size unknown here)
    return pc_address(m, nxt)


@alu("s_getpc_b64")
def _getpc(ins):
    (d,) = ops(ins, 1)
    put = scalar_setter(d, 2)
    return lambda m, w: put(w, _next_address(m, w))


@alu("s_setpc_b64")
def _setpc(ins):
    (s,) = ops(ins, 1)
    get = scalar_getter(s, 2)

    def run(m, w):
        w.pc = address_pc(m, w, get(w))
    return run


@alu("s_swappc_b64")
def _swappc(ins):
    d, s = ops(ins, 2)
    get, put = scalar_getter(s, 2), scalar_setter(d, 2)

    def run(m, w):
        target = address_pc(m, w, get(w))
        put(w, _next_address(m, w))
        w.pc = target
    return run


@alu("s_call_b64")
def _call(ins):
    d, label = ops(ins, 2)
    put = scalar_setter(d, 2)

    def run(m, w):
        put(w, _next_address(m, w))
        w.pc = m.label_index(w, label)
    return run
