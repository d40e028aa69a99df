"""The code part of a ``.s`` file: header directives, the kernel symbol and its instruction stream.

Layout per cdna-facts section 8: ``.amdgcn_target`` + ``.amdhsa_code_object_version 5`` (LLVM 22
defaults to v6), code in ``.text`` aligned to 256 bytes (``.p2align 8``), the kernel a global
``@function`` symbol whose ``.size`` lets readers of the code object find its end.
"""
from __future__ import annotations

from collections.abc import Iterable

from isa.instr import Instr
from isa.operands import Imm
from isa.waitcnt_enc import format_waitcnt

from ..errors import EmitError
from ..program import Item, KernelResources, Program
from .metadata import target_id

CODE_OBJECT_VERSION = 5


def emit_header(arch: str) -> str:
    return (f'.amdgcn_target "{target_id(arch)}"\n'
            f".amdhsa_code_object_version {CODE_OBJECT_VERSION}\n")


def format_instr(instr: Instr) -> str:
    """LLVM text of one instruction; ``s_waitcnt`` prints its counters (``vmcnt(0) lgkmcnt(0)``)."""
    ops = instr.operands
    if (instr.op == "s_waitcnt" and len(ops) == 1 and isinstance(ops[0], Imm)
            and isinstance(ops[0].value, int)):
        return f"s_waitcnt {format_waitcnt(ops[0].value)}"
    return str(instr)


def emit_code(res: KernelResources, items: Iterable[Item]) -> str:
    """``.text`` section with the kernel's symbol, labels at column 0 and instructions indented."""
    program = items if isinstance(items, Program) else Program(items)
    lines = [".text", ".p2align 8", f".globl {res.name}", f".type {res.name},@function", f"{res.name}:"]
    for it in program:
        if isinstance(it, str):
            if it == res.name:
                raise EmitError(f"label {it!r} clashes with the kernel symbol")
            lines.append(f"{it}:")
        elif isinstance(it, Instr):
            lines.append(f"  {format_instr(it)}")
    end = f".L{res.name}_end"
    lines += [f"{end}:", f".size {res.name}, {end}-{res.name}"]
    return "\n".join(lines) + "\n"
