"""The emulator backend: ``EmuRunner`` runs a code object on ``isa.emu.Emulator`` from its launch
contract alone (arguments packed by ``asmgen.kernarg``), plus the host-buffer rules every runner
shares (``host_buffer``, ``host_zeros``: dtype, rows padded to the leading dimension), the
contract reader (``read_contract``) and the runtime grid rule (``runtime_grid``)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..dtypes import np_dtype
from ..errors import ConfigError, KernargError
from ..kernarg import ArgSpec, as_args, pack_kernargs


def read_contract(src) -> tuple[dict, bytes]:
    """(contract, code object bytes) of a ``Kernel`` or a ``.json`` contract path (checked)."""
    if hasattr(src, "meta") and hasattr(src, "hsaco"):
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


def host_buffer(arg: ArgSpec, value, scalars: dict) -> np.ndarray:
    """A contiguous copy of ``value`` in the argument's dtype, rows padded to its leading
    dimension when the contract has one (the kernel addresses row r at r * ld; ``ArgSpec.ld``
    names the scalar holding it at run time)."""
    arr = np.asarray(value)
    want = np_dtype(arg.dtype) if arg.dtype in ("f32", "f16", "bf16") else None
    if want is not None and arr.dtype != want:
        arr = arr.astype(want)
    if arg.shape is not None and len(arg.shape) == 2 and arg.strides is not None:
        ld = int(scalars.get(arg.ld, arg.strides[0])) if arg.ld else arg.strides[0]
        if arr.ndim != 2:
            raise KernargError(f"buffer {arg.name} must be 2-D, got shape {arr.shape}")
        if arr.shape[1] < ld:
            pad = np.zeros((arr.shape[0], ld), dtype=arr.dtype)
            pad[:, :arr.shape[1]] = arr
            arr = pad
    return np.ascontiguousarray(arr).copy()


def host_zeros(arg: ArgSpec, scalars: dict) -> np.ndarray:
    if arg.shape is None or arg.dtype not in ("f32", "f16", "bf16"):
        raise KernargError(f"output buffer {arg.name} was not given and its contract has no "
                           f"shape/float dtype to allocate it from")
    shape = list(arg.shape)
    if len(shape) == 2:
        if arg.rows is not None and scalars.get(arg.rows) is not None:   # the contract's runtime sizes
            shape[0] = int(scalars[arg.rows])
        if arg.ld is not None:
            shape[1] = int(scalars.get(arg.ld, shape[1]))
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
                    bufs[a.name] = host_buffer(a, values[a.name], scalars)
                elif a.io == "out" or (a.io == "inout" and a.shape is not None):
                    bufs[a.name] = host_zeros(a, scalars)     # an output the caller did not pass
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
        return runtime_grid(self.meta, scalars)


def runtime_grid(meta: dict, scalars: dict) -> tuple:
    """The launch grid for these runtime scalars: the contract's ``grid``, except the dimensions
    its ``grid_from`` rule ties to a scalar (``[name, per_workgroup]`` or null per dimension:
    ceil(scalar / per_workgroup) workgroups, e.g. a GEMM's M and N over its tile)."""
    grid = list(meta["grid"])
    for i, rule in enumerate(meta.get("grid_from") or ()):
        if rule is not None and rule[0] in scalars and scalars[rule[0]] is not None:
            grid[i] = -(-int(scalars[rule[0]]) // int(rule[1]))
    return tuple(grid)
