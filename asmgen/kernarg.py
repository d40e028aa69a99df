"""Kernel arguments: the ``args`` contract of design.md, their layout and their packing into bytes.

Contract (design.md, "Contracts"): arguments are laid out in ``args`` order, each aligned to its own
size; a ``buffer`` is a 64-bit device address; a ``scalar`` is as wide as its dtype (``u32`` when
none is given). The same layout feeds the code object metadata (``emit.metadata``), the emulator
runner and the HIP runner, so there is exactly one implementation of it.
"""
from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any


from .errors import KernargError

if TYPE_CHECKING:     # numpy is imported where arrays are met (start-up time of a cache hit)
    import numpy as np

# dtype -> (bytes, struct code or None when packed through numpy/ml_dtypes)
SCALAR_DTYPES: dict[str, int] = {
    "f32": 4, "f16": 2, "bf16": 2, "fp8_e4m3fnuz": 1, "fp8_e4m3": 1,
    "bf8_e5m2fnuz": 1, "bf8_e5m2": 1, "i8": 1, "u8": 1,
    "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8, "f64": 8,
}
_INT_FMT = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I", "i64": "q", "u64": "Q"}
_FLOAT_FMT = {"f32": "f", "f64": "d", "f16": "e"}
KINDS = ("buffer", "scalar")
IO = ("in", "out", "inout")
POINTER_BYTES = 8


@dataclass(frozen=True)
class ArgSpec:
    """One kernel argument as the ``.json`` contract states it."""

    name: str
    kind: str = "scalar"             # "buffer" | "scalar"
    dtype: str = "u32"
    shape: tuple[int, ...] | None = None
    strides: tuple[int, ...] | None = None
    io: str = "in"
    value: Any = None                # a scalar's value when the contract fixes it
    multiple_of: int | None = None   # a scalar's runtime value must be a multiple of this
    # Launch-time rules (checked by ``asmgen.runtime.launch``, every backend):
    ld: str | None = None            # a 2-D buffer's row pitch is this scalar's runtime value
    rows: str | None = None          # a 2-D output's runtime row count is this scalar's value
    dims: tuple[int | str, ...] | None = None   # a buffer's logical shape: ints or scalar names
    range: tuple[Any, Any] | None = None        # a scalar's inclusive [lo, hi] (None: open), or
    #                                             an integer buffer's element bounds (host arrays;
    #                                             a bound may name a scalar: "num_blocks-1")
    divides: str | None = None       # a scalar that must divide the named scalar (kv_heads | heads)

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "a").isalnum() or self.name[0].isdigit():
            raise KernargError(f"argument name {self.name!r} is not an identifier")
        if self.kind not in KINDS:
            raise KernargError(f"argument {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.dtype not in SCALAR_DTYPES:
            raise KernargError(f"argument {self.name}: dtype {self.dtype!r} is not one of "
                               f"{sorted(SCALAR_DTYPES)}")
        if self.io not in IO:
            raise KernargError(f"argument {self.name}: io {self.io!r} is not one of {IO}")
        if self.multiple_of is not None and (
                self.kind != "scalar" or isinstance(self.multiple_of, bool)
                or not isinstance(self.multiple_of, int) or self.multiple_of < 1):
            raise KernargError(f"argument {self.name}: multiple_of {self.multiple_of!r} needs a "
                               f"scalar argument and an integer >= 1")
        for attr in ("shape", "strides"):
            val = getattr(self, attr)
            if val is not None:
                if not isinstance(val, (list, tuple)) or not all(
                        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in val):
                    raise KernargError(f"argument {self.name}: {attr} {val!r} is not a list of "
                                       "non-negative integers")
                object.__setattr__(self, attr, tuple(int(x) for x in val))
        if self.dims is not None:
            if self.kind != "buffer" or not isinstance(self.dims, (list, tuple)) or not all(
                    (isinstance(x, int) and not isinstance(x, bool) and x >= 1)
                    or isinstance(x, str) for x in self.dims):
                raise KernargError(f"argument {self.name}: dims {self.dims!r} must be a buffer's "
                                   "list of positive integers and scalar names")
            object.__setattr__(self, "dims", tuple(self.dims))
        for attr in ("ld", "rows"):
            if getattr(self, attr) is not None and self.kind != "buffer":
                raise KernargError(f"argument {self.name}: {attr} {getattr(self, attr)!r} needs a "
                                   "buffer argument")
            if getattr(self, attr) is not None and not isinstance(getattr(self, attr), str):
                raise KernargError(f"argument {self.name}: {attr} {getattr(self, attr)!r} is not "
                                   "a scalar's name")
        if self.ld is not None and self.dims is not None and len(self.dims) != 2:
            raise KernargError(f"argument {self.name}: ld {self.ld!r} needs 2-D dims")
        if self.range is not None:
            def bound_ok(x) -> bool:
                if x is None:
                    return True
                if isinstance(x, str):      # a buffer's bound set by a scalar: "NAME", "NAME-INT"
                    name, _, sub = x.partition("-")
                    return self.kind == "buffer" and name.replace("_", "a").isalnum() and \
                        (not _ or sub.isdigit())
                return not isinstance(x, bool) and isinstance(x, (int, float))
            if ((self.kind != "scalar" and self.dtype not in _INT_FMT)
                    or not isinstance(self.range, (list, tuple))
                    or len(self.range) != 2 or not all(bound_ok(x) for x in self.range)):
                raise KernargError(f"argument {self.name}: range {self.range!r} must be a "
                                   "scalar's or an integer buffer's [lo, hi] (numbers or null; "
                                   "a buffer's also a scalar's name, 'NAME' or 'NAME-INT')")
            object.__setattr__(self, "range", tuple(self.range))
        if self.divides is not None and (self.kind != "scalar" or not isinstance(self.divides, str)):
            raise KernargError(f"argument {self.name}: divides {self.divides!r} must be a "
                               "scalar's name")

    @property
    def size(self) -> int:
        """Bytes in the kernarg segment: 8 for a buffer (device address), the dtype's size for a scalar."""
        return POINTER_BYTES if self.kind == "buffer" else SCALAR_DTYPES[self.dtype]

    @property
    def align(self) -> int:
        return self.size

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ArgSpec:
        if not isinstance(d, Mapping):
            raise KernargError(f"argument entry {d!r:.80} is not an object")
        unknown = set(d) - {"name", "kind", "dtype", "shape", "strides", "io", "value",
                            "multiple_of", "ld", "rows", "dims", "range", "divides"}
        if unknown:
            raise KernargError(f"argument {d.get('name')!r}: unknown keys {sorted(unknown)}")
        if "name" not in d or not isinstance(d["name"], str):
            raise KernargError(f"argument entry {dict(d)!r:.80} has no name")
        return cls(d["name"], d.get("kind", "scalar"), d.get("dtype", "u32"), d.get("shape"),
                   d.get("strides"), d.get("io", "in"), d.get("value"), d.get("multiple_of"),
                   d.get("ld"), d.get("rows"), d.get("dims"), d.get("range"), d.get("divides"))

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "dtype": self.dtype}
        if self.shape is not None:
            out["shape"] = list(self.shape)
        if self.strides is not None:
            out["strides"] = list(self.strides)
        if self.kind == "buffer":
            out["io"] = self.io
        if self.value is not None:
            out["value"] = self.value
        if self.multiple_of is not None:
            out["multiple_of"] = self.multiple_of
        for attr in ("ld", "rows", "dims", "range", "divides"):
            val = getattr(self, attr)
            if val is not None:
                out[attr] = list(val) if isinstance(val, tuple) else val
        return out


ArgLike = ArgSpec | Mapping[str, Any]


def row_major_strides(shape) -> tuple[int, ...]:
    """Element strides of a C-contiguous array of ``shape`` (the contracts' ``strides``)."""
    out, acc = [], 1
    for n in reversed(tuple(shape)):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


def as_args(args: Iterable[ArgLike]) -> tuple[ArgSpec, ...]:
    """ArgSpecs from ArgSpecs or contract dicts; names must be unique."""
    if isinstance(args, (Mapping, str, bytes)) or not isinstance(args, Iterable):
        raise KernargError(f"the contract's args must be a list of argument objects, got "
                           f"{type(args).__name__}")
    out = tuple(a if isinstance(a, ArgSpec) else ArgSpec.from_dict(a) for a in args)
    seen = set()
    for a in out:
        if a.name in seen:
            raise KernargError(f"argument name {a.name!r} appears twice")
        seen.add(a.name)
    return out


@dataclass(frozen=True)
class ArgSlot:
    """Where one argument sits in the kernarg segment."""

    arg: ArgSpec
    offset: int
    size: int


def layout(args: Iterable[ArgLike]) -> tuple[ArgSlot, ...]:
    """Offsets of ``args`` in order, each aligned to its own size."""
    out, off = [], 0
    for a in as_args(args):
        off = (off + a.align - 1) // a.align * a.align
        out.append(ArgSlot(a, off, a.size))
        off += a.size
    return tuple(out)


def offsets(args: Iterable[ArgLike]) -> dict[str, int]:
    """Byte offset of each argument in the kernarg segment, by name: what a template's prologue
    loads from (one layout for the contract, the metadata, the runners and the template)."""
    return {s.arg.name: s.offset for s in layout(args)}


def contiguous(args: Iterable[ArgLike], names: Sequence[str]) -> int:
    """The offset of ``names[0]`` when ``names`` are consecutive 4-byte arguments (one wide
    ``s_load_dwordxN`` reads them all); a ``KernargError`` naming the break otherwise."""
    slots = {s.arg.name: s for s in layout(args)}
    missing = [n for n in names if n not in slots]
    if missing:
        raise KernargError(f"the contract has no argument {missing[0]!r} (needs {list(names)})")
    base = slots[names[0]].offset
    for i, n in enumerate(names):
        if slots[n].size != 4 or slots[n].offset != base + 4 * i:
            raise KernargError(f"arguments {list(names)} are not consecutive dwords in the "
                               f"kernarg segment ({n} at {slots[n].offset}, expected {base + 4 * i})")
    return base


def kernarg_size(args: Iterable[ArgLike]) -> int:
    """Bytes of the explicit kernarg segment: the end of the last argument (0 with no arguments)."""
    slots = layout(args)
    return slots[-1].offset + slots[-1].size if slots else 0


def kernarg_align(args: Iterable[ArgLike]) -> int:
    """Alignment of the segment: the largest argument alignment, at least 4 (LLVM's minimum)."""
    return max([4] + [a.align for a in as_args(args)])


def _pack_scalar(a: ArgSpec, value: Any) -> bytes:
    import numpy as np
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise KernargError(f"scalar argument {a.name} got an array of shape {value.shape}")
        value = value.reshape(()).item()
    if isinstance(value, (np.generic,)):
        value = value.item()
    if isinstance(value, bool):
        value = int(value)
    dt = a.dtype
    if dt in _INT_FMT:
        if not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise KernargError(f"scalar argument {a.name} ({dt}) got non-integer {value!r}")
        try:
            return struct.pack("<" + _INT_FMT[dt], value)
        except struct.error as exc:
            raise KernargError(f"scalar argument {a.name}: {value} does not fit {dt}") from exc
    if not isinstance(value, (int, float)):
        raise KernargError(f"scalar argument {a.name} ({dt}) got {type(value).__name__} {value!r}")
    if dt in _FLOAT_FMT:
        try:
            return struct.pack("<" + _FLOAT_FMT[dt], float(value))
        except OverflowError as exc:
            raise KernargError(f"scalar argument {a.name}: {value} overflows {dt}") from exc
    from .dtypes import np_dtype  # bf16 / fp8 scalars (ml_dtypes) are rare: import when needed
    np_dt = np_dtype(dt)
    return np.asarray(float(value), dtype=np_dt).tobytes()


def pack_kernargs(args: Iterable[ArgLike], values: Mapping[str, Any],
                  address_of: Callable[[np.ndarray], int] | None = None) -> bytes:
    """The kernarg segment for ``args``: buffers become 64-bit addresses, scalars their dtype's bytes.

    ``values[name]`` is a NumPy array (its address comes from ``address_of(array)``, e.g. the
    emulator's ``alloc``) or an int device address for a buffer, and a number for a scalar (falling
    back to the contract's ``value``). Padding bytes are zero.
    """
    import numpy as np
    slots = layout(args)
    unknown = set(values) - {s.arg.name for s in slots}
    if unknown:
        raise KernargError(f"values given for unknown arguments {sorted(unknown)}")
    out = bytearray(slots[-1].offset + slots[-1].size if slots else 0)
    for s in slots:
        a = s.arg
        if a.kind == "buffer":
            if a.name not in values:
                raise KernargError(f"buffer argument {a.name} has no value")
            v = values[a.name]
            if isinstance(v, np.ndarray):
                if address_of is None:
                    raise KernargError(f"buffer argument {a.name} is an array but no address_of "
                                       "callback was given")
                v = address_of(v)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= int(v) < 1 << 64:
                raise KernargError(f"buffer argument {a.name}: address {v!r} is not a 64-bit unsigned int")
            raw = struct.pack("<Q", int(v))
        else:
            v = values.get(a.name, a.value)
            if v is None:
                raise KernargError(f"scalar argument {a.name} has no value (neither given nor in the "
                                   "contract)")
            if a.multiple_of is not None and int(v) % a.multiple_of:
                raise KernargError(f"scalar argument {a.name} = {v} is not a multiple of "
                                   f"{a.multiple_of}, which the kernel was generated for")
            raw = _pack_scalar(a, v)
        out[s.offset:s.offset + s.size] = raw
    return bytes(out)


def unpack_kernargs(args: Iterable[ArgLike], data: bytes) -> dict[str, Any]:
    """Inverse of ``pack_kernargs``: addresses (ints) for buffers, Python numbers for scalars."""
    import numpy as np
    slots = layout(args)
    need = slots[-1].offset + slots[-1].size if slots else 0
    if len(data) < need:
        raise KernargError(f"kernarg data is {len(data)} bytes, the layout needs {need}")
    out: dict[str, Any] = {}
    for s in slots:
        raw = bytes(data[s.offset:s.offset + s.size])
        a = s.arg
        if a.kind == "buffer":
            out[a.name] = struct.unpack("<Q", raw)[0]
        elif a.dtype in _INT_FMT:
            out[a.name] = struct.unpack("<" + _INT_FMT[a.dtype], raw)[0]
        elif a.dtype in _FLOAT_FMT:
            out[a.name] = struct.unpack("<" + _FLOAT_FMT[a.dtype], raw)[0]
        else:
            from .dtypes import np_dtype
            np_dt = np_dtype(a.dtype)
            out[a.name] = float(np.frombuffer(raw, dtype=np_dt)[0])
    return out


def arg_names(args: Sequence[ArgLike]) -> list[str]:
    return [a.name for a in as_args(args)]
