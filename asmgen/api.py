"""The Python API: ``gemm(...) -> Kernel`` (generate, schedule, allocate, emit, assemble) and
``load(kernel_or_json, backend) -> runner`` (NumPy in, NumPy out), per design.md "Python API".

A ``Kernel`` carries ``.asm`` (the .s text), ``.hsaco`` (code object bytes) and ``.meta`` (the
.json launch contract of design.md), and ``.save(dir)`` writes ``<name>.s/.hsaco/.json``.
The ``emu`` backend runs the code object on ``isa.emu.Emulator``; the arguments are packed by
``asmgen.kernarg`` from the contract, so any other runner can do the same from the .json alone.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .dtypes import np_dtype
from .errors import AsmgenError, ConfigError, KernargError, ResourceError
from .kernarg import ArgSpec, as_args, kernarg_size, pack_kernargs
from .kinds.gemm.config import GemmConfig
from .kinds.gemm.contract import gemm_args, kernel_name, size_multiples  # noqa: F401  (re-exported)
from .target import DTYPE_BYTES

DEFAULT_SCHEDULE = "pgr1"


@dataclass
class Kernel:
    """A generated kernel: assembly text, code object and launch contract."""

    name: str
    asm: str
    hsaco: bytes
    meta: dict
    config: Any = None
    timings: dict = field(default_factory=dict)

    def save(self, directory: str | Path) -> Path:
        """Write ``<name>.s``, ``<name>.hsaco`` and ``<name>.json`` into ``directory``; returns the
        .json path."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{self.name}.s").write_text(self.asm)
        (d / f"{self.name}.hsaco").write_bytes(self.hsaco)
        path = d / f"{self.name}.json"
        path.write_text(json.dumps(self.meta, indent=1) + "\n")
        return path

    @property
    def resources(self) -> dict:
        return self.meta["resources"]


# --------------------------------------------------------------------------------------------
# generation
def check_occupancy(cfg: GemmConfig, res) -> None:
    """A workgroup's waves must all be resident: ceil(waves / 4) waves per SIMD (wave w runs on
    SIMD w % 4) within the occupancy the registers allow (cdna-facts section 1: 512 registers per
    lane per SIMD, VGPRs and AGPRs together). Otherwise the kernel could never launch."""
    waves = cfg.waves[0] * cfg.waves[1]
    need = -(-waves // 4)
    if res.waves_per_simd < need:
        raise ResourceError(f"{waves} waves per workgroup need {need} waves per SIMD, but "
                            f"{res.vgprs} VGPRs + {res.agprs} AGPRs per lane allow "
                            f"{res.waves_per_simd} (512 registers per lane per SIMD); use fewer "
                            f"waves, a smaller tile or direct_to_lds")


def compile_config(cfg: GemmConfig, recipe, toolchain=None, assemble: bool = True) -> Kernel:
    """Template -> schedule -> passes -> emit -> (assemble) for a GEMM config."""
    import time

    from .emit import emit_kernel
    from .kinds.gemm.prologue import kernarg_offsets
    from .kinds.gemm.template import build_gemm
    from .passes.manager import compile_kernel
    from .program import KernelResources

    timings = {}
    t0 = time.perf_counter()
    if recipe is not None and hasattr(recipe, "check_config"):
        recipe.check_config(cfg)      # the config values the recipe's order depends on
    ir = build_gemm(cfg)
    t1 = time.perf_counter()
    compiled = compile_kernel(ir, recipe)
    t2 = time.perf_counter()
    args = gemm_args(cfg)
    _, size = kernarg_offsets(cfg.bias)
    if kernarg_size(args) != size:   # the template and the contract must agree
        raise AsmgenError(f"kernarg size mismatch: template {size}, contract {kernarg_size(args)}")
    used = compiled.allocation.used
    name = kernel_name(cfg, recipe)
    res = KernelResources(
        name=name, arch=cfg.arch, vgprs=max(used.get("v", 0), 1), sgprs=max(used.get("s", 0), 4),
        agprs=used.get("a", 0), lds_bytes=ir.lds_bytes, args=tuple(args),
        user_sgprs=("kernarg_segment_ptr",), workgroup_ids=(True, True, False), workitem_id_dims=1,
        max_flat_workgroup_size=cfg.threads)
    items = [it.name if hasattr(it, "name") and not hasattr(it, "op") else it
             for it in compiled.items()]
    asm = emit_kernel(items, res)
    t3 = time.perf_counter()
    check_occupancy(cfg, res)
    hsaco, tc_version = b"", ""
    if assemble:
        from .toolchain import find_toolchain
        tc = toolchain or find_toolchain()
        hsaco = tc.assemble(asm, cfg.arch)
        tc_version = tc.version
    t4 = time.perf_counter()
    timings.update(template=t1 - t0, passes=t2 - t1, emit=t3 - t2, assemble=t4 - t3)
    meta = {
        "kernel": name, "arch": cfg.arch, "grid": list(cfg.grid), "block": [cfg.threads, 1, 1],
        "lds_bytes": ir.lds_bytes, "kernarg_size": size,
        "args": [a.to_dict() for a in args],
        "config": cfg.to_dict() | {"kind": "gemm"},
        "schedule": recipe.name if recipe is not None else "default",
        "schedule_params": dict(getattr(recipe, "params", {}) or {}),
        "resources": {"vgpr": res.vgprs, "agpr": res.agprs, "sgpr": res.sgprs,
                      "lds": ir.lds_bytes, "waves_per_simd": res.waves_per_simd},
        "toolchain": tc_version, "asmgen": __version__,
    }
    return Kernel(name, asm, hsaco, meta, cfg, timings)


def gemm(m: int, n: int, k: int, dtype: str = "f16", arch: str = "gfx942", layout: str = "NN",
         out_dtype: str | None = None, schedule: str = DEFAULT_SCHEDULE, tile=(64, 64, 32),
         waves=(2, 2), prefetch: int | None = None, mfma=None, activation: str = "none",
         bias: bool = False, lda: int | None = None, ldb: int | None = None,
         ldc: int | None = None, schedule_params: dict | None = None,
         assemble: bool = True, **tuning) -> Kernel:
    """Generate a GEMM kernel ``C = alpha * op(A) @ op(B) + beta * C`` (design.md).

    ``schedule`` names a recipe of ``schedules`` (``pgr1``, ``pgr2``, ``ck_v4``; its
    ``schedule_params`` only order). Further keyword ``tuning`` goes to ``GemmConfig`` (``lds_pad``,
    ``vec_a``, ``vec_b``, ``direct_to_lds``, ``staging``, ``arrangement``, ``frag_buffers``);
    ``prefetch`` and the other pipeline-shape fields the caller leaves out take the recipe's
    ``defaults`` (pgr2: prefetch 2; ck_v4: frag_buffers 2; pingpong/interleave: their
    arrangement), then the config's."""
    from schedules import get_recipe
    recipe = get_recipe(schedule, **dict(schedule_params or {}))
    if prefetch is not None:
        tuning["prefetch"] = prefetch
    for key, value in getattr(recipe, "defaults", {}).items():
        tuning.setdefault(key, value)
    cfg = GemmConfig(m=m, n=n, k=k, dtype=dtype, arch=arch, layout=layout, out_dtype=out_dtype,
                     tile=tile, waves=waves, mfma=mfma, lda=lda, ldb=ldb,
                     ldc=ldc, activation=activation, bias=bias, **tuning)
    return compile_config(cfg, recipe, assemble=assemble)


# --------------------------------------------------------------------------------------------
# running
def _read_meta(src) -> tuple[dict, bytes]:
    if isinstance(src, Kernel):
        return src.meta, src.hsaco
    path = Path(src)
    if not path.is_file():
        raise ConfigError(f"kernel contract {str(path)!r} does not exist")
    try:
        meta = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON: {exc}") from None
    for key in ("kernel", "arch", "grid", "block", "args"):
        if key not in meta:
            raise ConfigError(f"{path}: the contract lacks the key {key!r}")
    hsaco_path = path.with_suffix(".hsaco")
    if not hsaco_path.is_file():
        raise ConfigError(f"{path}: the code object {hsaco_path} is missing")
    return meta, hsaco_path.read_bytes()


def _buffer(arg: ArgSpec, value, scalars: dict) -> np.ndarray:
    """A contiguous copy of ``value`` in the argument's dtype, rows padded to its leading
    dimension when the contract has one (the kernel addresses row r at r * ld)."""
    arr = np.asarray(value)
    want = np_dtype(arg.dtype) if arg.dtype in ("f32", "f16", "bf16") else None
    if want is not None and arr.dtype != want:
        arr = arr.astype(want)
    if arg.shape is not None and len(arg.shape) == 2 and arg.strides is not None:
        ld_name = {"A": "lda", "B": "ldb", "C": "ldc"}.get(arg.name)
        ld = int(scalars.get(ld_name, arg.strides[0])) if ld_name else arg.strides[0]
        if arr.ndim != 2:
            raise KernargError(f"buffer {arg.name} must be 2-D, got shape {arr.shape}")
        if arr.shape[1] < ld:
            pad = np.zeros((arr.shape[0], ld), dtype=arr.dtype)
            pad[:, :arr.shape[1]] = arr
            arr = pad
    return np.ascontiguousarray(arr).copy()


def _zeros(arg: ArgSpec, scalars: dict) -> np.ndarray:
    if arg.shape is None or arg.dtype not in ("f32", "f16", "bf16"):
        raise KernargError(f"output buffer {arg.name} was not given and its contract has no "
                           f"shape/float dtype to allocate it from")
    shape = list(arg.shape)
    if len(shape) == 2:
        if arg.name in ("A", "B", "C"):     # runtime sizes and leading dimension
            rows = {"C": "M"}.get(arg.name)
            if rows and rows in scalars:
                shape[0] = int(scalars[rows])
            shape[1] = int(scalars.get({"A": "lda", "B": "ldb", "C": "ldc"}[arg.name], shape[1]))
        elif arg.strides:
            shape[1] = max(shape[1], arg.strides[0])
    return np.zeros(shape, dtype=np_dtype(arg.dtype))


class EmuRunner:
    """Runs a kernel on ``isa.emu.Emulator``: ``run(A=..., B=..., C=..., alpha=..., ...)``.
    Returns the output buffer (the single ``out``/``inout`` argument) as NumPy, or a dict when
    the kernel has several outputs. Scalars default to the contract's ``value``."""

    def __init__(self, meta: dict, hsaco: bytes, seed: int = 0, allow_hazards=()) -> None:
        self.meta = meta
        self.hsaco = hsaco
        self.seed = seed
        self.args = as_args(meta["args"])
        self.last_emulator = None
        # hazard rules the emulator lets run on, each violation counted (isa.emu.hazard_check)
        self.allow_hazards = frozenset(allow_hazards)
        self.allowed_hazards: dict = {}

    def __call__(self, seed: int | None = None, **values):
        from isa.emu import Emulator
        names = {a.name for a in self.args}
        unknown = set(values) - names
        if unknown:
            raise KernargError(f"unknown arguments {sorted(unknown)}; the kernel takes {sorted(names)}")
        scalars = {a.name: values.get(a.name, a.value) for a in self.args if a.kind == "scalar"}
        emu = Emulator(arch=self.meta["arch"], seed=self.seed if seed is None else seed,
                       allow_hazards=self.allow_hazards)
        bufs, packed = {}, {}
        for a in self.args:
            if a.kind == "buffer":
                if a.name in values:
                    bufs[a.name] = _buffer(a, values[a.name], scalars)
                elif a.io == "out" or (a.io == "inout" and a.shape is not None):
                    bufs[a.name] = _zeros(a, scalars)     # an output the caller did not pass
                else:
                    raise KernargError(f"buffer argument {a.name} was not given")
                packed[a.name] = emu.alloc(bufs[a.name], a.name)
            else:
                packed[a.name] = scalars[a.name]
        kernargs = pack_kernargs(self.args, packed)
        grid = self._grid(scalars)
        emu.launch(self.hsaco, self.meta["kernel"], grid=grid, block=tuple(self.meta["block"]),
                   kernargs=kernargs)
        self.last_emulator = emu
        for key, n in emu.allowed_hazards.items():
            self.allowed_hazards[key] = self.allowed_hazards.get(key, 0) + n
        outs = {a.name: bufs[a.name] for a in self.args if a.kind == "buffer" and a.io != "in"}
        return next(iter(outs.values())) if len(outs) == 1 else outs

    def _grid(self, scalars: dict) -> tuple:
        cfg = self.meta.get("config", {})
        if cfg.get("kind") == "gemm" and "M" in scalars and "N" in scalars:
            mt0, mt1 = cfg["tile"][0], cfg["tile"][1]
            return (-(-int(scalars["M"]) // mt0), -(-int(scalars["N"]) // mt1), 1)
        return tuple(self.meta["grid"])


def load(kernel_or_json, backend: str = "emu", seed: int = 0, **kw):
    """A runner for a ``Kernel`` or a ``.json`` contract path: ``emu`` (``EmuRunner`` on
    isa.emu), ``hip`` (a ROCm GPU) or ``auto``; the backend switch is
    ``asmgen.runtime.load`` (``device=``, ``hip=`` pass through)."""
    from .runtime.load import load as runtime_load
    return runtime_load(kernel_or_json, backend=backend, seed=seed, **kw)


def out_bytes(cfg: GemmConfig) -> int:
    return DTYPE_BYTES[cfg.out_dtype]
