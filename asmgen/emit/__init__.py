"""Emit a kernel as LLVM AMDGPU assembly text: code, kernel descriptor and code object v5 metadata.

``emit_kernel(items, resources) -> str`` is the entry point; the pieces live in ``asm`` (code),
``descriptor`` (``.amdhsa_kernel`` block) and ``metadata`` (``.amdgpu_metadata`` YAML). Output is a
pure function of its inputs (deterministic, byte for byte).
"""
from __future__ import annotations

from collections.abc import Iterable

from ..program import Item, KernelResources
from .asm import CODE_OBJECT_VERSION, emit_code, emit_header
from .descriptor import descriptor_directives, emit_descriptor
from .metadata import emit_metadata, kernel_metadata, target_id


def emit_kernel(items: Iterable[Item], resources: KernelResources) -> str:
    """The full ``.s`` text of one kernel."""
    return "".join([
        emit_header(resources.arch),
        emit_code(resources, items),
        emit_descriptor(resources),
        emit_metadata([resources]),
    ])


__all__ = [
    "CODE_OBJECT_VERSION",
    "descriptor_directives",
    "emit_code",
    "emit_descriptor",
    "emit_header",
    "emit_kernel",
    "emit_metadata",
    "kernel_metadata",
    "target_id",
]
