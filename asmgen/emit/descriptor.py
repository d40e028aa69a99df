"""The ``.amdhsa_kernel`` block: kernel descriptor directives from ``KernelResources``.

Directive set and defaults per cdna-facts section 8 (the set Tensile's gfx942 kernels use) and
LLVM's AMDGPUUsage "Code Object V3+ Kernel Descriptor" / ".amdhsa_kernel" directive table.
"""
from __future__ import annotations

from ..program import USER_SGPRS, KernelResources


def descriptor_directives(res: KernelResources) -> list[tuple[str, int]]:
    """(directive, value) pairs in a fixed order; the block is built from these."""
    d: list[tuple[str, int]] = [
        ("group_segment_fixed_size", res.lds_bytes),
        ("private_segment_fixed_size", 0),          # no scratch: asmgen never spills
        ("kernarg_size", res.kernarg_size),
        ("user_sgpr_count", res.user_sgpr_count),
    ]
    for name, _width in USER_SGPRS:
        d.append((f"user_sgpr_{name}", int(name in res.user_sgprs)))
    for axis, on in zip("xyz", res.workgroup_ids, strict=True):
        d.append((f"system_sgpr_workgroup_id_{axis}", int(on)))
    d += [
        ("system_sgpr_workgroup_info", 0),
        ("system_vgpr_workitem_id", res.workitem_id_dims - 1),
        ("next_free_vgpr", res.next_free_vgpr),
        ("next_free_sgpr", res.sgprs),
        ("accum_offset", res.accum_offset),        # required on gfx90a+ (cdna-facts section 8)
        ("reserve_vcc", 1),
        ("float_round_mode_32", 0),
        ("float_round_mode_16_64", 0),
        ("float_denorm_mode_32", res.float_denorm_mode_32),
        ("float_denorm_mode_16_64", res.float_denorm_mode_16_64),
        ("dx10_clamp", int(res.dx10_clamp)),
        ("ieee_mode", int(res.ieee_mode)),
    ]
    names = {k for k, _ in d}
    for k, v in res.extra:
        if k in names:
            d = [(k2, v if k2 == k else v2) for k2, v2 in d]
        else:
            d.append((k, v))
    return d


def emit_descriptor(res: KernelResources) -> str:
    """``.rodata`` + ``.amdhsa_kernel`` ... ``.end_amdhsa_kernel`` text (descriptor 64-byte aligned)."""
    lines = [".rodata", ".p2align 6", f".amdhsa_kernel {res.name}"]
    lines += [f"  .amdhsa_{k} {v}" for k, v in descriptor_directives(res)]
    lines.append(".end_amdhsa_kernel")
    return "\n".join(lines) + "\n"
