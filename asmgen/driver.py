"""The driver: ``compile(kind, cfg, recipe) -> Kernel`` for every kernel kind: template -> schedule
and passes -> emit -> assemble, and the launch contract of design.md.

One path for all kinds (``asmgen.kinds.base.KernelKind`` supplies the per-kind parts), so what
one kind gets every kind gets: the kernel name carries the schedule (``kind.kernel_name``), the
workgroup's waves must fit the occupancy the registers allow (``check_occupancy``), the kernarg
size is the contract's (the templates read their offsets from the same ``kind.args(cfg)``),
and recipes whose groups depend on the config are bound to it (``recipe.bind(cfg)``).

``compile`` takes the recipe as an object, never a name; ``resolve`` turns an API call's schedule
name into that object (through ``asmgen.recipes``) for the entry points above (``asmgen.api``,
``asmgen.cache``) and refuses a recipe of another kind (``check_recipe_kind``).
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from . import __version__, recipes
from .errors import ConfigError, ResourceError
from .kernarg import kernarg_size
from .kernel import Kernel
from .kinds import registry


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
    low = lower(kind, cfg, recipe, limits=limits)
    hsaco, tc_version = b"", ""
    t3 = time.perf_counter()
    if assemble:
        from .toolchain import find_toolchain
        tc = toolchain or find_toolchain()
        hsaco = tc.assemble(low.asm, cfg.arch)
        tc_version = tc.version
    low.timings["assemble"] = time.perf_counter() - t3
    return finish(low, hsaco, tc_version)


@dataclass
class Lowered:
    """A kernel up to its ``.s`` text, before the assembler: what ``finish`` turns into a
    ``Kernel`` once a code object holds it. ``items`` and ``res`` are what ``asm`` was emitted
    from (``asmgen.emit.emit_kernel``), so a caller can emit the same kernel under another
    symbol name beside others in one ``.s`` (``asmgen.fuzz.batch``)."""

    name: str
    asm: str               # "" when lowered with emit=False
    items: list
    res: object            # asmgen.program.KernelResources
    meta: dict             # the launch contract without toolchain and code-object hash
    cfg: object
    timings: dict
    compiled: object


def lower(kind, cfg, recipe, limits: dict | None = None, emit: bool = True) -> Lowered:
    """Template -> schedule and passes -> emit: every step of ``compile`` but the assembler.
    ``emit=False`` leaves ``asm`` empty (a batch emits ``items`` under its own symbols)."""
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
    if kind.tags is not None and ir.tags is not kind.tags:
        raise ConfigError(f"kind {kind.name} built a kernel with the tag vocabulary of kind "
                          f"{ir.tags.kind}, not its own (KernelKind.tags)")
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
    asm = emit_kernel(items, res) if emit else ""
    t3 = time.perf_counter()
    check_occupancy(launch.waves, res)
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
    })
    return Lowered(name, asm, items, res, meta, cfg,
                   {"template": t1 - t0, "passes": t2 - t1, "emit": t3 - t2}, compiled)


def finish(low: Lowered, hsaco: bytes, tc_version: str, *, name: str | None = None,
           asm: str | None = None) -> Kernel:
    """The ``Kernel`` of ``low`` in the code object ``hsaco`` (b"" when not assembled). ``name``
    and ``asm``: the kernel's symbol and the ``.s`` text that code object came from, when they are
    not ``low``'s own (a kernel assembled beside others, ``asmgen.fuzz.batch``)."""
    name = low.name if name is None else name
    meta = dict(low.meta)
    meta["kernel"] = name
    meta.update({"toolchain": tc_version, "asmgen": __version__})
    if hsaco:     # lets a reader refuse a truncated, altered or swapped code object
        meta["hsaco_sha256"] = hashlib.sha256(hsaco).hexdigest()
    return Kernel(name, low.asm if asm is None else asm, hsaco, meta, low.cfg,
                  dict(low.timings), low.compiled)


def resolve(kind, schedule: str | None, schedule_params: dict | None, config: dict):
    """(config keywords, recipe object) of an API call: the schedule name (default: the kind's;
    a kind with no default schedule compiles in program order, recipe None) and its parameters,
    plus the keywords that are recipe parameters (``KernelKind.recipe_knobs``)."""
    cfg_kw, knobs = kind.recipe_knobs(config)
    params = {**dict(schedule_params or {}), **knobs}
    name = schedule or kind.default_schedule
    if not name:
        if params:
            raise ConfigError(f"schedule parameters {sorted(params)} need a schedule (kind "
                              f"{kind.name!r} has no default)")
        return cfg_kw, None
    recipe = recipes.get(name, **params)
    check_recipe_kind(kind, name, recipe)
    return cfg_kw, recipe


def check_recipe_kind(kind, name: str, recipe) -> None:
    """Refuse a recipe made for another kind: one that is an instance of another kind's default
    recipe type, when that type is more specific than this kind's own (``attn_basic`` for a
    GEMM). Recipes shared by kinds (``shuffle``, ``fuzz``) are instances of the common base."""
    own = type(recipes.get(kind.default_schedule)) if kind.default_schedule else None
    if own is not None and type(recipe) is own:
        # exactly the kind's own recipe type: no other kind's type can hold it more specifically
        # (a subclass of own would not match; a base of own is excused below), so the other
        # kinds need not be imported (``asmgen gemm`` does not load attention)
        return
    for other in registry.all_kinds():
        if other is kind or not other.default_schedule:
            continue
        typ = type(recipes.get(other.default_schedule))
        if isinstance(recipe, typ) and not (own is not None and issubclass(own, typ)):
            raise ConfigError(f"schedule {name!r} is a recipe of kind {other.name}, not "
                              f"{kind.name}")
