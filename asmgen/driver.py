"""The driver: ``compile(kind, cfg, recipe) -> Kernel`` for every kernel kind: template -> schedule
and passes -> emit -> assemble, and the launch contract of design.md.

One path for all kinds (``asmgen.kinds.base.KernelKind`` supplies the per-kind parts), so what
one kind gets every kind gets: the kernel name carries the schedule (``kind.kernel_name``), the
workgroup's waves must fit the occupancy the registers allow (``check_occupancy``), the kernarg
size is the contract's (the templates read their offsets from the same ``kind.args(cfg)``),
and recipes whose groups depend on the config are bound to it (``recipe.bind(cfg)``).

The recipe is an object here, never a name: names are resolved by the entry points above
(``asmgen.api``, through ``asmgen.recipes``).
"""
from __future__ import annotations

import hashlib
import time

from . import __version__
from .errors import ResourceError
from .kernarg import kernarg_size
from .kernel import Kernel


def check_occupancy(waves: int, res) -> None:
    """A workgroup's waves must all be resident: ceil(waves / 4) waves per SIMD (wave w runs on
    SIMD w % 4) within the occupancy the registers allow (cdna-facts section 1: 512 registers per
    lane per SIMD, VGPRs and AGPRs together). Otherwise the kernel could never launch."""
    need = -(-waves // 4)
    if res.waves_per_simd < need:
        raise ResourceError(f"{waves} waves per workgroup need {need} waves per SIMD, but "
                            f"{res.vgprs} VGPRs + {res.agprs} AGPRs per lane allow "
                            f"{res.waves_per_simd} (512 registers per lane per SIMD); use fewer "
                            f"waves, a smaller tile or direct_to_lds")


def compile(kind, cfg, recipe, toolchain=None, assemble: bool = True,
            limits: dict | None = None) -> Kernel:
    """The ``Kernel`` of ``cfg`` (a config of ``kind``, a ``KernelKind`` or its name) under the
    recipe object ``recipe``; ``limits`` caps the register files (tests)."""
    from .emit import emit_kernel
    from .kinds import registry
    from .passes.manager import compile_kernel
    from .program import KernelResources

    kind = registry.get(kind)
    t0 = time.perf_counter()
    if recipe is not None and hasattr(recipe, "check_config"):
        recipe.check_config(cfg)      # the config values the recipe's order depends on
    if hasattr(recipe, "bind"):      # recipes whose groups depend on the config (MFMA counts)
        recipe = recipe.bind(cfg)
    ir = kind.build(cfg, recipe)
    t1 = time.perf_counter()
    compiled = compile_kernel(ir, recipe, limits=limits)
    t2 = time.perf_counter()
    args = kind.args(cfg)
    size = kernarg_size(args)
    launch = kind.launch(cfg)
    used = compiled.allocation.used
    name = kind.kernel_name(cfg, recipe)
    # s[0:1] kernarg pointer, then one SGPR per enabled workgroup id
    min_sgprs = 2 + sum(launch.workgroup_ids)
    res = KernelResources(
        name=name, arch=cfg.arch, vgprs=max(used.get("v", 0), 1),
        sgprs=max(used.get("s", 0), min_sgprs), agprs=used.get("a", 0), lds_bytes=ir.lds_bytes,
        args=tuple(args), user_sgprs=("kernarg_segment_ptr",),
        workgroup_ids=launch.workgroup_ids, workitem_id_dims=1,
        max_flat_workgroup_size=launch.threads)
    items = [it.name if hasattr(it, "name") and not hasattr(it, "op") else it
             for it in compiled.items()]
    asm = emit_kernel(items, res)
    t3 = time.perf_counter()
    check_occupancy(launch.waves, res)
    hsaco, tc_version = b"", ""
    if assemble:
        from .toolchain import find_toolchain
        tc = toolchain or find_toolchain()
        hsaco = tc.assemble(asm, cfg.arch)
        tc_version = tc.version
    t4 = time.perf_counter()
    meta = {"kernel": name, "arch": cfg.arch, "grid": list(launch.grid)}
    if launch.grid_from is not None:
        meta["grid_from"] = [None if r is None else [r[0], int(r[1])] for r in launch.grid_from]
    meta.update({
        "block": [launch.threads, 1, 1],
        "lds_bytes": ir.lds_bytes, "kernarg_size": size,
        "args": [a.to_dict() for a in args],
        "config": kind.config_to_dict(cfg) | {"kind": kind.name},
        "schedule": recipe.name if recipe is not None else "default",
        "schedule_params": dict(getattr(recipe, "params", {}) or {}),
        "resources": {"vgpr": res.vgprs, "agpr": res.agprs, "sgpr": res.sgprs,
                      "lds": ir.lds_bytes, "waves_per_simd": res.waves_per_simd},
        "toolchain": tc_version, "asmgen": __version__,
    })
    if hsaco:     # lets a reader refuse a truncated, altered or swapped code object
        meta["hsaco_sha256"] = hashlib.sha256(hsaco).hexdigest()
    return Kernel(name, asm, hsaco, meta, cfg,
                  {"template": t1 - t0, "passes": t2 - t1, "emit": t3 - t2, "assemble": t4 - t3},
                  compiled)
