"""A kernel ready to emit: its instruction stream (``Program``) and what it asks of the hardware
(``KernelResources``: registers, LDS, arguments, initial SGPR/VGPR state).

``KernelResources`` checks every limit when built and computes what LLVM will put in the kernel
descriptor (granulated register counts, user SGPR layout), so tests can compare our expectation
with the code object LLVM produced.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from isa.instr import Instr
from isa.spec import ARCHES

from .errors import EmitError, ResourceError
from .kernarg import ArgLike, ArgSpec, as_args, kernarg_align, kernarg_size, layout
from .target import target_of

# A program item: an instruction, or a label (a str, defined at that point of the stream).
Item = Instr | str

SYMBOL_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
LABEL_RE = re.compile(r"[A-Za-z_.][A-Za-z0-9_.$]*$")

# User SGPRs in the order the hardware loads them and their width (AMDGPUUsage "Initial Kernel
# Execution State"; cdna-facts section 8). gfx942/gfx950 have architected flat scratch, so LLVM
# refuses private_segment_buffer and flat_scratch_init there ("directive is not supported with
# architected flat scratch", llvm-mc 22).
USER_SGPRS = (("dispatch_ptr", 2), ("queue_ptr", 2), ("kernarg_segment_ptr", 2), ("dispatch_id", 2),
              ("private_segment_size", 1))
_USER_SGPR_WIDTH = dict(USER_SGPRS)

# Limits (cdna-facts section 1): 256 ArchVGPRs + 256 AccVGPRs per lane (512 unified, granule 8),
# SGPRs s0..s101; max LDS per workgroup: asmgen.target.Target.lds_limit.
MAX_VGPRS = 256
MAX_AGPRS = 256
MAX_SGPRS = 102
# SGPRs LLVM adds to next_free_sgpr on gfx942/gfx950 when it granulates the SGPR count:
# VCC, FLAT_SCRATCH and XNACK_MASK, 2 each (measured with llvm-mc 22: next_free_sgpr n gives
# GRANULATED_WAVEFRONT_SGPR_COUNT = ceil((n + 6) / 8) - 1 whatever .amdhsa_reserve_vcc says).
LLVM_EXTRA_SGPRS = 6


@dataclass(frozen=True)
class Program:
    """An ordered instruction stream with labels."""

    items: tuple[Item, ...]

    def __init__(self, items: Iterable[Item]) -> None:
        items = tuple(items)
        seen = set()
        for it in items:
            if isinstance(it, str):
                if not LABEL_RE.match(it):
                    raise EmitError(f"label {it!r} is not a valid assembler symbol")
                if it in seen:
                    raise EmitError(f"label {it!r} is defined twice")
                seen.add(it)
            elif not isinstance(it, Instr):
                raise EmitError(f"program item {it!r} is neither an Instr nor a label string")
        object.__setattr__(self, "items", items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def instrs(self) -> tuple[Instr, ...]:
        return tuple(it for it in self.items if isinstance(it, Instr))

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(it for it in self.items if isinstance(it, str))


def _align4(n: int) -> int:
    return (n + 3) // 4 * 4


@dataclass(frozen=True)
class KernelResources:
    """Everything the kernel descriptor and metadata say about a kernel.

    ``vgprs``/``agprs``/``sgprs`` are counts (highest index used + 1) of ArchVGPRs, AccVGPRs and
    SGPRs. ``accum_offset`` (gfx90a+: where AccVGPRs start in the unified file, 4..256 step 4)
    defaults to ``vgprs`` rounded up to 4. ``user_sgprs`` names the enabled user SGPRs (loaded in
    hardware order, see ``USER_SGPRS``); ``workgroup_ids`` enables the x/y/z workgroup id SGPRs;
    ``workitem_id_dims`` is how many of x/y/z work-item ids v0 carries (1..3).
    """

    name: str
    arch: str
    vgprs: int
    sgprs: int
    agprs: int = 0
    accum_offset: int | None = None
    lds_bytes: int = 0
    args: tuple[ArgSpec, ...] = ()
    user_sgprs: tuple[str, ...] = ("kernarg_segment_ptr",)
    workgroup_ids: tuple[bool, bool, bool] = (True, False, False)
    workitem_id_dims: int = 1
    max_flat_workgroup_size: int = 256
    wavefront_size: int = 64
    ieee_mode: bool = True
    dx10_clamp: bool = True
    float_denorm_mode_32: int = 3      # 3 = keep denormals (Tensile/LLVM compute default), rsrc1 17:16
    float_denorm_mode_16_64: int = 3
    extra: tuple[tuple[str, int], ...] = field(default=())  # further ``.amdhsa_*`` directives, verbatim

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", as_args(self.args))
        object.__setattr__(self, "user_sgprs", tuple(self.user_sgprs))
        object.__setattr__(self, "workgroup_ids", tuple(bool(x) for x in self.workgroup_ids))
        if not SYMBOL_RE.match(self.name):
            raise ResourceError(f"kernel name {self.name!r} is not a C identifier")
        if self.arch not in ARCHES:
            raise ResourceError(f"arch {self.arch!r} is not one of {ARCHES}")
        _range("vgprs", self.vgprs, 0, MAX_VGPRS)
        _range("agprs", self.agprs, 0, MAX_AGPRS)
        _range("sgprs", self.sgprs, 0, MAX_SGPRS)
        _range("lds_bytes", self.lds_bytes, 0, target_of(self.arch).lds_limit)
        _range("max_flat_workgroup_size", self.max_flat_workgroup_size, 1, 1024)
        _range("workitem_id_dims", self.workitem_id_dims, 1, 3)
        for mode in ("float_denorm_mode_32", "float_denorm_mode_16_64"):
            _range(mode, getattr(self, mode), 0, 3)
        if self.wavefront_size != 64:
            raise ResourceError(f"wavefront_size {self.wavefront_size}: CDNA runs wave64 only")
        if len(self.workgroup_ids) != 3:
            raise ResourceError(f"workgroup_ids {self.workgroup_ids} needs 3 flags (x, y, z)")
        for u in self.user_sgprs:
            if u not in _USER_SGPR_WIDTH:
                raise ResourceError(f"user SGPR {u!r} is not one of {[n for n, _ in USER_SGPRS]} "
                                    f"(private_segment_buffer/flat_scratch_init: architected flat "
                                    f"scratch on {self.arch})")
        if len(set(self.user_sgprs)) != len(self.user_sgprs):
            raise ResourceError(f"user SGPRs {self.user_sgprs} name one twice")
        if self.args and "kernarg_segment_ptr" not in self.user_sgprs:
            raise ResourceError("kernel has arguments but user_sgprs lacks kernarg_segment_ptr")
        acc = self.accum_offset
        if acc is None:
            acc = max(4, _align4(self.vgprs))
            object.__setattr__(self, "accum_offset", acc)
        if acc < 4 or acc > 256 or acc % 4:
            raise ResourceError(f"accum_offset {acc} must be 4..256 in steps of 4 (cdna-facts section 8)")
        if acc < self.vgprs:
            raise ResourceError(f"accum_offset {acc} is below the {self.vgprs} ArchVGPRs used: "
                                f"AccVGPRs would overlap v{acc}..v{self.vgprs - 1}")
        if self.next_free_vgpr > 512:
            raise ResourceError(f"accum_offset {acc} + {self.agprs} AGPRs = {self.next_free_vgpr} "
                                "exceeds the 512-register unified VGPR file")
        if self.sgprs < self.first_free_sgpr:
            raise ResourceError(f"sgprs {self.sgprs} does not cover the {self.first_free_sgpr} SGPRs the "
                                "hardware initialises (user SGPRs + workgroup ids)")

    # --- derived values -------------------------------------------------------------------------
    @property
    def next_free_vgpr(self) -> int:
        """``.amdhsa_next_free_vgpr``: ArchVGPRs, or accum_offset + AGPRs when AGPRs are used."""
        return self.accum_offset + self.agprs if self.agprs else max(self.vgprs, 1)

    @property
    def user_sgpr_count(self) -> int:
        return sum(_USER_SGPR_WIDTH[u] for u in self.user_sgprs)

    def user_sgpr_layout(self) -> dict[str, int]:
        """First SGPR of each enabled user SGPR (hardware order, not the order given)."""
        out, nxt = {}, 0
        for name, width in USER_SGPRS:
            if name in self.user_sgprs:
                out[name] = nxt
                nxt += width
        return out

    def workgroup_id_sgpr(self, axis: str) -> int:
        """SGPR holding the workgroup id of ``axis`` ('x'|'y'|'z'); right after the user SGPRs."""
        idx = "xyz".index(axis)
        if not self.workgroup_ids[idx]:
            raise ResourceError(f"workgroup id {axis} is not enabled (workgroup_ids={self.workgroup_ids})")
        return self.user_sgpr_count + sum(self.workgroup_ids[:idx])

    @property
    def first_free_sgpr(self) -> int:
        """First SGPR the hardware does not initialise."""
        return self.user_sgpr_count + sum(self.workgroup_ids)

    @property
    def kernarg_size(self) -> int:
        return kernarg_size(self.args)

    @property
    def kernarg_align(self) -> int:
        return kernarg_align(self.args)

    @property
    def arg_slots(self):
        return layout(self.args)

    @property
    def granulated_vgpr_count(self) -> int:
        """rsrc1 GRANULATED_WORKITEM_VGPR_COUNT on gfx90a+: ceil(next_free_vgpr / 8) - 1."""
        return max(1, -(-self.next_free_vgpr // 8)) - 1

    @property
    def sgpr_total(self) -> int:
        """SGPRs LLVM accounts for: next_free_sgpr + VCC/FLAT_SCRATCH/XNACK_MASK (see LLVM_EXTRA_SGPRS)."""
        return self.sgprs + LLVM_EXTRA_SGPRS

    @property
    def granulated_sgpr_count(self) -> int:
        """rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT as llvm-mc 22 encodes it: ceil(total / 8) - 1."""
        return max(1, -(-self.sgpr_total // 8)) - 1

    @property
    def waves_per_simd(self) -> int:
        """Occupancy limit from VGPRs (cdna-facts section 1): min(8, 512 // allocated), the
        Target's rule (``Target.waves_per_simd``) on the allocated unified registers."""
        t = target_of(self.arch)
        return t.waves_per_simd((self.granulated_vgpr_count + 1) * t.vgpr_granule)


def _range(what: str, value: int, lo: int, hi: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ResourceError(f"{what} = {value!r} is outside {lo}..{hi}")


__all__ = ["LLVM_EXTRA_SGPRS", "USER_SGPRS", "ArgLike", "Item", "KernelResources", "Program"]
