"""Launch-time validation from the contract, in one place every backend (emu, hip) uses.

``plan_launch(meta, values, device_buffer=None)`` turns the caller's keyword arguments into a
``LaunchPlan``: scalars resolved and checked, host buffers converted, checked and laid out as the
kernel addresses them, device buffers checked for size, output buffers allocated at the shapes
the *runtime* sizes give, and the grid computed from the runtime sizes. Every mismatch is a
``LaunchError`` (a ``KernargError``) naming the argument, what was given and what the kernel
needs; nothing is silently padded, truncated or reinterpreted.

Rules (contract fields of ``asmgen.kernarg.ArgSpec``):
- scalar: an int / float / NumPy scalar / 0-d array (``np.int64(128)`` is an integer); within its
  dtype (u32: 0..2**32-1), its ``range`` [lo, hi] (baked sizes: exactly the baked value; scale
  > 0), a multiple of ``multiple_of``, dividing the scalar named by ``divides``.
- buffer with ``dims``: the logical shape, each dim an int (a constant of the code, e.g.
  head_dim) or a scalar's name (its runtime value). A host array must have exactly that shape,
  or for a 2-D buffer with ``ld`` the row-padded shape (rows, ld); ``ld`` must be at least the
  row length. Floating dtypes are rounded to the contract's dtype; integer, bool, complex or
  object arrays are refused for float buffers.
- buffer without ``dims`` (contracts written before them): the contract's ``shape`` exactly.
  A dim may also be ``NAME/INT`` (a scalar divided by a constant) or ``NAME+INT`` (plus one).
- an integer buffer with a ``range``: every element of a host array within it (decode's and
  extend's ``context_lens`` in 0..max_context, ``block_table`` in 0..num_blocks - 1: a bound may
  name a scalar, ``"num_blocks-1"``, read at its runtime value); with a host ``cu_seqlens_q``, ``max_seqlen_q`` at least
  every sequence's length and (extend) each ``context_lens`` at least its sequence's new
  tokens (``check_packed``).
- prefix sums (``PREFIX_SUMS``: varlen attention's ``cu_seqlens_q`` / ``cu_seqlens_k``): a host
  array starts at 0, is non-decreasing and ends at most at its total (``total_q`` / ``total_k``).
- host inputs: NumPy arrays, anything with ``__array_interface__``, host DLPack tensors
  (``__dlpack__``, every int/float type and bf16/fp8 as ml_dtypes: ``asmgen.runtime.dlpack``); device memory (``__cuda_array_interface__``, a GPU DLPack device) is refused
  on the emulator with a clear message; the HIP backend passes ``device_buffer`` to take it.
- grid: the contract's ``grid``, each dimension that ``grid_from`` ties to a runtime scalar at
  ceil(scalar / per-workgroup) (GEMM: M and N over the tile; attention: seqlen_q blocks, heads,
  batch).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import KernargError
from ..kernarg import SCALAR_DTYPES, ArgSpec, as_args

INT_RANGE = {"u8": (0, 255), "u16": (0, 65535), "u32": (0, (1 << 32) - 1), "u64": (0, (1 << 64) - 1),
             "i8": (-128, 127), "i16": (-32768, 32767), "i32": (-(1 << 31), (1 << 31) - 1),
             "i64": (-(1 << 63), (1 << 63) - 1)}
FLOAT_DTYPES = ("f32", "f16", "bf16", "f64", "fp8_e4m3fnuz", "fp8_e4m3")
# DLPack device types that are host memory (dlpack.h DLDeviceType: CPU, CUDAHost, ROCMHost)
DL_HOST = (1, 3, 11)


class LaunchError(KernargError):
    """An argument does not match the kernel's launch contract; names it, what was given and what
    the kernel needs (``arg``, ``given``, ``need``)."""

    def __init__(self, arg: str, given: str, need: str) -> None:
        self.arg, self.given, self.need = arg, given, need
        super().__init__(f"argument {arg}: {given}; the kernel needs {need}")


@dataclass
class LaunchPlan:
    """What a backend launches: ``scalars`` (name -> number), ``host`` (name -> the C-contiguous
    array whose address goes into the kernargs), ``device`` (name -> the caller's device object and
    its address), ``outputs`` (names returned, in contract order) and ``grid``."""

    args: tuple[ArgSpec, ...]
    scalars: dict[str, Any]
    host: dict[str, np.ndarray] = field(default_factory=dict)
    device: dict[str, tuple[Any, int]] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    grid: tuple[int, int, int] = (1, 1, 1)


# -- scalars ---------------------------------------------------------------------------------------
def scalar_value(a: ArgSpec, value: Any) -> int | float:
    """A Python number for scalar ``a`` from an int, float, NumPy scalar or 0-d/size-1 array."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise LaunchError(a.name, f"an array of shape {value.shape}", f"one {a.dtype} number")
        value = value.reshape(()).item()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LaunchError(a.name, f"{type(value).__name__} {value!r:.40}", f"a {a.dtype} number")
    if a.dtype in INT_RANGE:
        if isinstance(value, float):
            if not value.is_integer():
                raise LaunchError(a.name, f"{value!r}", f"an integer ({a.dtype})")
            value = int(value)
        lo, hi = INT_RANGE[a.dtype]
        if not lo <= value <= hi:
            raise LaunchError(a.name, f"{value}", f"{a.dtype} ({lo}..{hi})")
    else:
        value = float(value)
    if a.range is not None:
        lo, hi = a.range
        # NaN fails both comparisons, so it is refused too
        if not ((lo is None or value >= lo) and (hi is None or value <= hi)):
            if lo is not None and lo == hi:
                need = f"{a.name} = {lo} (baked into the code at generation)"
            else:
                need = f"{a.name} in [{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"
            raise LaunchError(a.name, f"{a.name} = {value!r}", need)
    if a.multiple_of is not None and int(value) % a.multiple_of:
        raise LaunchError(a.name, f"{a.name} = {value} is not a multiple of {a.multiple_of}",
                          f"a multiple of {a.multiple_of} (promised at generation)")
    return value


def resolve_scalars(args: tuple[ArgSpec, ...], values: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for a in args:
        if a.kind != "scalar":
            continue
        v = values.get(a.name, a.value)
        if v is None:
            raise LaunchError(a.name, "no value (neither given nor in the contract)", "a value")
        out[a.name] = scalar_value(a, v)
    for a in args:
        if a.kind == "scalar" and a.divides is not None and a.divides in out:
            n, d = out[a.divides], out[a.name]
            if not d or n % d:
                raise LaunchError(a.name, f"{a.name} = {d} with {a.divides} = {n}",
                                  f"{a.name} to divide {a.divides}")
    return out


# -- shapes ----------------------------------------------------------------------------------------
def dims_of(a: ArgSpec, scalars: Mapping[str, Any]) -> tuple[int, ...]:
    """The buffer's logical shape at the runtime sizes (the contract's shape without ``dims``)."""
    if a.dims is None:
        if a.shape is None:
            raise LaunchError(a.name, "a contract entry without shape or dims",
                              "a shape to check the buffer against")
        return tuple(a.shape)
    out = []
    for d in a.dims:
        if isinstance(d, str) and "+" in d:      # "batch+1": a scalar plus a constant
            name, add = d.split("+")
            if name not in scalars:
                raise LaunchError(a.name, f"dims naming {name!r}, which is no scalar argument",
                                  "dims of ints and scalar names")
            out.append(int(scalars[name]) + int(add))
        elif isinstance(d, str) and "/" in d:      # "K/32": a scalar divided by a constant,
            name, div = d.split("/")                # rounded up ("M/2": packed fp4 pairs of an
            if name not in scalars:                 # odd M take ceil(M / 2) bytes)
                raise LaunchError(a.name, f"dims naming {name!r}, which is no scalar argument",
                                  "dims of ints and scalar names")
            out.append(-(-int(scalars[name]) // int(div)))
        elif isinstance(d, str):
            if d not in scalars:
                raise LaunchError(a.name, f"dims naming {d!r}, which is no scalar argument",
                                  "dims of ints and scalar names")
            out.append(int(scalars[d]))
        else:
            out.append(int(d))
    return tuple(out)


def _dim_text(a: ArgSpec, shape: tuple[int, ...]) -> str:
    if a.dims is None:
        return str(tuple(shape))
    names = ", ".join(str(d) for d in a.dims)
    return f"({names}) = {tuple(shape)}"


def storage_shape(a: ArgSpec, scalars: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(logical shape, storage shape)``: the storage of a 2-D buffer with ``ld`` is (rows, ld)
    and ``ld`` must be at least the row length."""
    shape = dims_of(a, scalars)
    if a.dims is None and a.rows is not None and len(shape) == 2 and a.rows in scalars:
        shape = (int(scalars[a.rows]), shape[1])          # a contract with rows but no dims
    if a.ld is None:
        if a.dims is None and a.strides is not None and len(shape) == 2 and a.strides[0] > shape[1]:
            return shape, (shape[0], a.strides[0])      # an old contract's padded rows
        return shape, shape
    name, _, div = a.ld.partition("/")     # "lda/2": packed fp4 rows of lda / 2 bytes
    ld = int(scalars[name]) // int(div or 1)
    if ld < shape[1]:
        raise LaunchError(a.ld, f"{a.ld} = {ld} is smaller than the row length {a.dims[1]} = "
                          f"{shape[1]} of {a.name}", f"{a.ld} >= {shape[1]}")
    return shape, (shape[0], ld)


# -- host arrays -----------------------------------------------------------------------------------
def host_array(name: str, value: Any) -> np.ndarray:
    """``value`` as a NumPy array in host memory; device memory is a ``LaunchError``."""
    if isinstance(value, np.ndarray):
        return value
    try:
        cai = getattr(value, "__cuda_array_interface__", None)
    except (TypeError, RuntimeError):
        cai = None
    if cai is not None:
        raise LaunchError(name, f"device memory ({type(value).__name__} with "
                          "__cuda_array_interface__)", "host memory on the emu backend: copy it "
                          "to the host (e.g. .cpu().numpy()) or run with backend='hip'")
    if hasattr(value, "__dlpack__"):
        dev = None
        if hasattr(value, "__dlpack_device__"):
            dev = int(value.__dlpack_device__()[0])
            if dev not in DL_HOST:
                raise LaunchError(name, f"a DLPack tensor on device type {dev} (not host memory)",
                                  "host memory on the emu backend: copy it to the host or run "
                                  "with backend='hip'")
        return _from_dlpack(name, value)
    if hasattr(value, "__array_interface__") or hasattr(value, "__array__") or isinstance(
            value, (list, tuple)):
        try:
            return np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise LaunchError(name, f"{type(value).__name__} that NumPy cannot read ({exc})",
                              "an array") from None
    raise LaunchError(name, f"{type(value).__name__}", "an array: a NumPy array or an object with "
                      "__array_interface__ or __dlpack__ (host memory)")


def _from_dlpack(name: str, value: Any) -> np.ndarray:
    """A host DLPack tensor as NumPy (copied) by ``asmgen.runtime.dlpack``: bf16 and the fp8
    formats become ml_dtypes arrays; a tensor it cannot read is a ``LaunchError`` saying why."""
    from .dlpack import DLPackError, from_dlpack
    try:
        return from_dlpack(value)
    except (DLPackError, TypeError, ValueError, BufferError, AttributeError, RuntimeError) as exc:
        raise LaunchError(name, f"a DLPack tensor that cannot be read ({exc})",
                          "a host tensor of an int, uint, float, bf16 or fp8 type with lanes=1"
                          ) from None


def _dtype_ok(a: ArgSpec, arr: np.ndarray) -> np.ndarray:
    """``arr`` in the contract's dtype: floats are rounded to it; other kinds are refused."""
    from ..dtypes import np_dtype
    if a.dtype in ("f32", "f16", "bf16"):
        want = np.dtype(np_dtype(a.dtype))
        if arr.dtype == want:
            return arr
        if arr.dtype.kind != "f" and arr.dtype.name != "bfloat16":
            raise LaunchError(a.name, f"an array of dtype {arr.dtype}", f"{a.dtype} (floating point)")
        return arr.astype(want)
    if a.dtype in INT_RANGE:
        want = np.dtype(a.dtype.replace("u", "uint") if a.dtype[0] == "u"
                        else a.dtype.replace("i", "int"))
        if arr.dtype != want:
            raise LaunchError(a.name, f"an array of dtype {arr.dtype}", f"{a.dtype}")
        return arr
    if arr.dtype.itemsize != SCALAR_DTYPES[a.dtype]:
        raise LaunchError(a.name, f"an array of dtype {arr.dtype}", f"{a.dtype}")
    return arr


def host_buffer(a: ArgSpec, value: Any, scalars: Mapping[str, Any]) -> np.ndarray:
    """The C-contiguous storage (a copy) the kernel reads for buffer ``a``, after every check."""
    arr = _dtype_ok(a, host_array(a.name, value))
    shape, storage = storage_shape(a, scalars)
    if arr.shape == storage:
        return np.ascontiguousarray(arr).copy()
    if arr.shape == shape:                   # logical shape: pad the rows to ld
        out = np.zeros(storage, dtype=arr.dtype)
        out[tuple(slice(0, n) for n in shape)] = arr
        return out
    need = f"shape {_dim_text(a, shape)}"
    if storage != shape:
        need += f" or the row-padded {(storage[0], storage[1])} ({a.ld} = {storage[1]})"
    raise LaunchError(a.name, f"an array of shape {tuple(arr.shape)}", need)


def zeros_buffer(a: ArgSpec, scalars: Mapping[str, Any]) -> np.ndarray:
    """An output the caller did not pass: zeros at the runtime storage shape."""
    from ..dtypes import np_dtype
    if a.dtype not in ("f32", "f16", "bf16"):
        raise LaunchError(a.name, "no array", f"an array of {a.dtype} (it cannot be allocated)")
    _, storage = storage_shape(a, scalars)
    return np.zeros(storage, dtype=np_dtype(a.dtype))


def needed_bytes(a: ArgSpec, scalars: Mapping[str, Any]) -> int:
    """Bytes the kernel may touch in buffer ``a`` at the runtime sizes."""
    _, storage = storage_shape(a, scalars)
    return math.prod(storage) * SCALAR_DTYPES[a.dtype]


# -- grid ------------------------------------------------------------------------------------------
def grid_of(meta: Mapping[str, Any], scalars: Mapping[str, Any]) -> tuple[int, int, int]:
    """The launch grid at the runtime sizes: the contract's ``grid``, with each dimension its
    ``grid_from`` ties to a scalar (``[name, per_workgroup]``) at ceil(scalar / per_workgroup)."""
    grid = [int(x) for x in meta["grid"]]
    for i, rule in enumerate(meta.get("grid_from") or ()):
        if rule is not None and rule[0] in scalars and scalars[rule[0]] is not None:
            grid[i] = -(-int(scalars[rule[0]]) // int(rule[1]))
    return tuple(grid)


# -- prefix sums (varlen attention's cu_seqlens) ----------------------------------------------------
PREFIX_SUMS = {"cu_seqlens_q": "total_q", "cu_seqlens_k": "total_k"}   # name -> its total scalar


def check_prefix_sum(name: str, arr: np.ndarray, scalars: Mapping[str, Any]) -> None:
    """A host ``cu_seqlens``: starts at 0, non-decreasing, ends within its total (the packed
    rows the kernel's buffers hold); device arrays are not read back."""
    a = np.asarray(arr).astype(np.int64).ravel()
    total = scalars.get(PREFIX_SUMS[name])
    if a.size and a[0] != 0:
        raise LaunchError(name, f"{name}[0] = {int(a[0])}", "0 (prefix sums start at 0)")
    dec = np.flatnonzero(np.diff(a) < 0)
    if dec.size:
        i = int(dec[0])
        raise LaunchError(name, f"{name}[{i + 1}] = {int(a[i + 1])} < {name}[{i}] = {int(a[i])}",
                          "non-decreasing prefix sums")
    if total is not None and a.size and a[-1] > int(total):
        raise LaunchError(name, f"{name}[-1] = {int(a[-1])} with {PREFIX_SUMS[name]} = {total}",
                          f"at most {PREFIX_SUMS[name]}")


def range_bound(a: ArgSpec, x, scalars: Mapping[str, Any]):
    """A ``range`` bound at the runtime sizes: a number, None (open), or a scalar's name
    ``NAME`` / ``NAME-INT`` (block_table's "num_blocks-1": the pool's last page)."""
    if not isinstance(x, str):
        return x
    name, _, sub = x.partition("-")
    if name not in scalars:
        raise LaunchError(a.name, f"range naming {name!r}, which is no scalar argument",
                          "a range of numbers and scalar names")
    return int(scalars[name]) - int(sub or 0)


def check_elements(a: ArgSpec, arr: np.ndarray, scalars: Mapping[str, Any] | None = None) -> None:
    """A host integer buffer's elements within its ``range`` (the first one outside named; a bound
    naming a scalar is shown with its value: ``[0, num_blocks-1 = 7]``)."""
    lo, hi = (range_bound(a, x, scalars or {}) for x in a.range)
    txt = [f"{x} = {v}" if isinstance(x, str) else None for x, v in zip(a.range, (lo, hi))]
    flat = np.asarray(arr).astype(np.int64).ravel()
    bad = np.flatnonzero(((flat < lo) if lo is not None else False)
                         | ((flat > hi) if hi is not None else False))
    if bad.size:
        i = np.unravel_index(int(bad[0]), np.shape(arr))
        idx = ", ".join(str(int(x)) for x in i)
        raise LaunchError(a.name, f"{a.name}[{idx}] = {int(flat[bad[0]])}",
                          f"every element in [{txt[0] or ('-inf' if lo is None else lo)}, "
                          f"{txt[1] or ('inf' if hi is None else hi)}]")


def check_packed(host: Mapping[str, np.ndarray], scalars: Mapping[str, Any]) -> None:
    """Packed batches (a host ``cu_seqlens_q``): ``max_seqlen_q`` (it sizes the grid) at least
    every sequence's length, and with ``context_lens`` (extend) sequence b's keys including its
    new tokens, context_lens[b] >= cu_seqlens_q[b + 1] - cu_seqlens_q[b]."""
    if "cu_seqlens_q" not in host:
        return
    q = np.diff(np.asarray(host["cu_seqlens_q"]).astype(np.int64).ravel())
    mq = scalars.get("max_seqlen_q")
    if mq is not None and q.size and int(q.max()) > int(mq):
        b = int(np.argmax(q))
        raise LaunchError("max_seqlen_q", f"max_seqlen_q = {mq} below sequence {b}'s "
                          f"{int(q[b])} tokens (cu_seqlens_q[{b + 1}] - cu_seqlens_q[{b}])",
                          "max_seqlen_q >= every sequence's length (it sizes the grid)")
    if "context_lens" not in host:
        return
    c = np.asarray(host["context_lens"]).astype(np.int64).ravel()
    n = min(len(q), len(c))
    bad = np.flatnonzero(c[:n] < q[:n])
    if bad.size:
        b = int(bad[0])
        raise LaunchError("context_lens", f"context_lens[{b}] = {int(c[b])} below the {int(q[b])} "
                          f"new tokens of sequence {b} (cu_seqlens_q[{b + 1}] - "
                          f"cu_seqlens_q[{b}])", "context_lens[b] >= the new tokens of sequence b "
                          "(their K/V are in the cache)")


# -- the plan --------------------------------------------------------------------------------------
def plan_launch(meta: Mapping[str, Any], values: Mapping[str, Any],
                device_buffer: Callable[[ArgSpec, Any, int], int | None] | None = None) -> LaunchPlan:
    """Check ``values`` against ``meta``'s contract and lay them out (see the module doc).
    ``device_buffer(arg, value, needed_bytes)`` (the HIP backend) returns the device address of a
    value living in device memory (after checking it) or None for host values."""
    args = as_args(meta["args"])
    names = {a.name for a in args}
    unknown = set(values) - names - {"seed"}
    if unknown:
        raise KernargError(f"unknown arguments {sorted(unknown)}; the kernel takes {sorted(names)}")
    scalars = resolve_scalars(args, values)
    plan = LaunchPlan(args, scalars)
    for a in args:
        if a.kind != "buffer":
            continue
        if a.io != "in":
            plan.outputs.append(a.name)
        if a.name in values:
            v = values[a.name]
            if device_buffer is not None:
                addr = device_buffer(a, v, needed_bytes(a, scalars))
                if addr is not None:
                    plan.device[a.name] = (v, addr)
                    continue
            plan.host[a.name] = host_buffer(a, v, scalars)
            if a.name in PREFIX_SUMS:
                check_prefix_sum(a.name, plan.host[a.name], scalars)
            if a.range is not None:
                check_elements(a, plan.host[a.name], scalars)
        elif a.io == "out" or (a.io == "inout" and (a.dims is not None or a.shape is not None)):
            plan.host[a.name] = zeros_buffer(a, scalars)
        else:
            raise LaunchError(a.name, "not given", f"an input array of shape "
                              f"{_dim_text(a, dims_of(a, scalars))}")
    check_packed(plan.host, scalars)
    plan.grid = grid_of(meta, scalars)
    return plan
