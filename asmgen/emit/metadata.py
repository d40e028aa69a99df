"""Code object v5 metadata (``.amdgpu_metadata`` YAML) for one kernel.

Keys per AMDGPUUsage "Code Object V5 Metadata" and cdna-facts section 8: required per kernel
``.name``, ``.symbol``, ``.kernarg_segment_size``, ``.group_segment_fixed_size``,
``.private_segment_fixed_size``, ``.kernarg_segment_align``, ``.wavefront_size``, ``.sgpr_count``,
``.vgpr_count``, ``.max_flat_workgroup_size``; ``.args`` entries carry ``.offset``, ``.size``,
``.value_kind`` (``global_buffer`` + ``.address_space: global``, or ``by_value``).
"""
from __future__ import annotations

from typing import Any

from ..errors import EmitError
from ..program import KernelResources

_ACCESS = {"in": "read_only", "out": "write_only", "inout": "read_write"}


def target_id(arch: str) -> str:
    """Plain target id (sramecc and xnack "any") so the object loads on a stock MI300X (design.md)."""
    return f"amdgcn-amd-amdhsa--{arch}"


def kernel_metadata(res: KernelResources) -> dict[str, Any]:
    """The kernel's amdhsa.kernels entry as an ordered dict (keys sorted as LLVM prints them)."""
    args = []
    for slot in res.arg_slots:
        a = slot.arg
        entry: dict[str, Any] = {".name": a.name, ".offset": slot.offset, ".size": slot.size}
        if a.kind == "buffer":
            entry[".value_kind"] = "global_buffer"
            entry[".address_space"] = "global"
            entry[".actual_access"] = _ACCESS[a.io]
        else:
            entry[".value_kind"] = "by_value"
        args.append(entry)
    return {
        ".name": res.name,
        ".symbol": f"{res.name}.kd",
        ".args": args,
        ".kernarg_segment_size": res.kernarg_size,
        ".kernarg_segment_align": res.kernarg_align,
        ".group_segment_fixed_size": res.lds_bytes,
        ".private_segment_fixed_size": 0,
        ".wavefront_size": res.wavefront_size,
        ".sgpr_count": res.sgpr_total,
        ".vgpr_count": res.next_free_vgpr,
        ".agpr_count": res.agprs,
        ".max_flat_workgroup_size": res.max_flat_workgroup_size,
    }


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _yaml_map(d: dict[str, Any], indent: str, first_prefix: str) -> list[str]:
    lines = []
    prefix = first_prefix
    for k, v in d.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            lines.append(f"{prefix}{k}:")
            for item in v:
                lines += _yaml_map(item, indent + "    ", indent + "  - ")
        elif isinstance(v, list):
            lines.append(f"{prefix}{k}: [{', '.join(_scalar(x) for x in v)}]")
        else:
            lines.append(f"{prefix}{k}: {_scalar(v)}")
        prefix = indent
    return lines


def emit_metadata(resources: list[KernelResources]) -> str:
    """The ``.amdgpu_metadata`` block for the kernels of one code object (all of one arch)."""
    arches = {r.arch for r in resources}
    if len(arches) != 1:
        raise EmitError(f"one code object holds one arch, got {sorted(arches)}")
    lines = [".amdgpu_metadata", "---", "amdhsa.version: [1, 2]",
             f"amdhsa.target: {target_id(arches.pop())}", "amdhsa.kernels:"]
    for r in resources:
        lines += _yaml_map(kernel_metadata(r), "    ", "  - ")
    lines += ["...", ".end_amdgpu_metadata"]
    return "\n".join(lines) + "\n"
