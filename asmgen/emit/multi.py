"""Several kernels in one ``.s``: one code object for a batch (``asmgen.fuzz.batch``), so the
assembler and the linker start once for K kernels instead of K times.

A ``.s`` file is one symbol namespace, so every kernel's symbol and every label of its code get
the kernel's own suffix (``batch_name``). Branches are PC-relative, so a kernel's machine code is
the same bytes under any label names (``tests/fuzz/test_fuzz_batch.py`` compares them with the
kernel assembled alone). The file has one header, per kernel its ``.text`` code and
``.amdhsa_kernel`` descriptor, and one ``.amdgpu_metadata`` block listing every kernel
(AMDGPUUsage "Code Object V5 Metadata": ``amdhsa.kernels`` is a list). ``emit_kernel`` (one kernel,
its own names) is untouched by this module.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from isa.instr import Instr
from isa.operands import Label

from ..errors import EmitError
from ..program import Item, KernelResources
from .asm import emit_code, emit_header
from .descriptor import emit_descriptor
from .metadata import emit_metadata


def batch_name(name: str, index: int) -> str:
    """The symbol of the ``index``-th kernel of a batch whose own name is ``name``: unique in the
    batch's code object (kernels of one config share ``name``: the fuzz recipe's seed is not in it)."""
    return f"{name}__b{index}"


def relabel(items: Iterable[Item], suffix: str) -> list[Item]:
    """``items`` with every label, and every Label operand naming one, suffixed by ``suffix``."""
    out: list[Item] = []
    for it in items:
        if isinstance(it, str):
            out.append(it + suffix)
        elif isinstance(it, Instr) and any(isinstance(o, Label) for o in it.operands):
            ops = tuple(Label(o.name + suffix) if isinstance(o, Label) else o for o in it.operands)
            out.append(replace(it, operands=ops))
        else:
            out.append(it)
    return out


def emit_kernels(kernels: Sequence[tuple[Iterable[Item], KernelResources]]) -> tuple[str, list[str]]:
    """One ``.s`` of several kernels (``(items, resources)`` each, all of one arch) and the symbol
    each got: ``batch_name(resources.name, index)``, its labels suffixed alike."""
    if not kernels:
        raise EmitError("a batch needs at least one kernel")
    arches = {res.arch for _, res in kernels}
    if len(arches) != 1:
        raise EmitError(f"one code object holds one arch, got {sorted(arches)}")
    parts = [emit_header(kernels[0][1].arch)]
    renamed: list[KernelResources] = []
    for i, (items, res) in enumerate(kernels):
        r = replace(res, name=batch_name(res.name, i))
        tail = r.name[len(res.name):]
        parts += [emit_code(r, relabel(items, tail)), emit_descriptor(r)]
        renamed.append(r)
    parts.append(emit_metadata(renamed))
    return "".join(parts), [r.name for r in renamed]
