"""Helpers for the pass tests: tiny hand-ordered streams (no scheduler) and readable results."""
from __future__ import annotations

from asmgen.ir import KernelIR, Node, Stream
from asmgen.kinds.gemm.tags import GEMM_TAGS
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm
from isa.waitcnt_enc import format_waitcnt


def new_kernel(arch: str = "gfx942") -> KernelIR:
    return KernelIR(target_of(arch), "t", tags=GEMM_TAGS)


def node(k: KernelIR, instr: Instr, **kw) -> Node:
    n = k.new_node(instr, kw.pop("tags", ()))
    for key, val in kw.items():
        setattr(n, key, val)
    return n


def as_nodes(k: KernelIR, items) -> list[Node]:
    """Items are Instr or (Instr, {attrs}) pairs."""
    out = []
    for it in items:
        if isinstance(it, tuple):
            out.append(node(k, it[0], **it[1]))
        else:
            out.append(node(k, it))
    return out


def make_stream(k: KernelIR, prologue, body=None, epilogue=(), label: str = "L", counter=None) -> Stream:
    b = None
    if body is not None:
        counter = counter if counter is not None else k.vreg("s", 1, name="cnt")
        k.make_loop(counter, label)
        b = as_nodes(k, body) + [k.new_node(i, {"loop_ctrl"}) for i in k.loop.control_instrs()]
    epi = as_nodes(k, epilogue) + [k.new_node(Instr("s_endpgm"), {"end"})]
    return Stream(k, as_nodes(k, prologue), b, epi)


def text(nodes) -> list[str]:
    """Instruction texts with s_waitcnt printed as LLVM does."""
    out = []
    for n in nodes:
        i = n.instr
        if i.op == "s_waitcnt":
            out.append("s_waitcnt " + format_waitcnt(i.operands[0].value))
        else:
            out.append(str(i))
    return out


def waits_before(nodes, op_text: str) -> str:
    """The s_waitcnt text right before the first instruction whose text starts with op_text, or ''."""
    t = text(nodes)
    for i, s in enumerate(t):
        if s.startswith(op_text):
            return t[i - 1] if i and t[i - 1].startswith("s_waitcnt") else ""
    raise AssertionError(f"{op_text!r} not in stream:\n" + "\n".join(t))


OFFEN = (("offen", True),)


def buf_load(dst, addr, srd, **mods):
    return Instr("buffer_load_dword" + ("" if dst.count == 1 else f"x{dst.count}"),
                 (dst, addr, srd, Imm(0)), OFFEN)
