"""Launch contracts for code objects asmgen did not generate: a hand-written ``.json`` beside a
foreign ``.hsaco`` says how to launch it, so ``asmgen profile`` and ``asmgen check --no-reference``
can run any kernel (README "Foreign kernels"). Format ``asmgen.launch/1``::

    {"format": "asmgen.launch/1", "hsaco": "k.hsaco", "kernel": "name", "arch": "gfx942",
     "block": [256, 1, 1], "grid": ["M // 256", "N // 256", 1], "dynamic_lds": 0,
     "dims": {"M": 4096, "N": 4864, "K": 32896},
     "buffers": [{"name": "A", "dtype": "bf16", "shape": ["M", "K"], "init": "uniform"}],
     "args": [{"buffer": "A"}, {"dtype": "u32", "value": "M"}],          # typed, metadata order
     "kernarg": {"size": 136, "fields": [{"offset": 0, "dtype": "u32", "value": 1},
                                         {"offset": 40, "buffer": "A"}]},  # or raw bytes
     "flops": "2 * M * N * K", "loop": {"dim": "K", "per_trip": 64},
     "profile": {"dims": {"M": 256, "N": 256}, "trips": 6},
     "tiles": {"tile": [256, 256, 64], "order": "m_fastest"},
     "emulator": {"allow_hazards": ["valu_sgpr_valu"], "why": "..."}}

Sizes, shapes, scalar values, the grid and ``flops`` may be integers or expressions over
``dims`` (``+ - * // %``, parentheses). ``args`` lists the explicit arguments in the code
object's metadata order (offsets from its ``.args``); ``kernarg`` gives the bytes directly for
kernels whose metadata does not describe their layout. ``loop``: the dimension the kernel's main
loop walks and how much of it one trip consumes (the profiler extrapolates over the trips).
``profile``: the small problem one workgroup runs on the emulator (dims overridden, ``trips``
loop trips). ``tiles``: the GEMM tile grid for the XCD / L2 / MALL / HBM model (optional).
``emulator.allow_hazards`` lets named hazard rules of the emulator's judge (``isa.hazards``) run on,
counted and reported (a foreign kernel the judge rejects can still be timed);
``emulator.check_hazards: false`` turns the judge off altogether (reported too).
"""
from __future__ import annotations

import ast
import json
import math
import operator
from pathlib import Path

import numpy as np

from ..errors import ConfigError

FORMAT = "asmgen.launch/1"
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_SCALAR = {"u8": "<B", "i8": "<b", "u16": "<H", "i16": "<h", "u32": "<I", "i32": "<i",
           "u64": "<Q", "i64": "<q", "f32": "<f", "f64": "<d"}


class LaunchContractError(ConfigError):
    """A launch contract that cannot be read: missing keys, bad expressions, unknown names."""


def evaluate(expr, dims: dict, what: str) -> int | float:
    """An integer/float or an expression over ``dims`` (``+ - * // %``, parentheses)."""
    if isinstance(expr, bool) or not isinstance(expr, int | float | str):
        raise LaunchContractError(f"{what}: {expr!r} is neither a number nor an expression")
    if not isinstance(expr, str):
        return expr
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        raise LaunchContractError(f"{what}: {expr!r} is not an expression") from None

    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in dims:
                raise LaunchContractError(f"{what}: {node.id!r} is not among dims {sorted(dims)}")
            return dims[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise LaunchContractError(f"{what}: {expr!r} uses something other than + - * // %")
    return ev(tree)


def is_launch_contract(meta) -> bool:
    return isinstance(meta, dict) and meta.get("format") == FORMAT


def read(path) -> tuple[dict, bytes]:
    """(contract, hsaco bytes) of a launch contract file; the code object path is relative to it."""
    path = Path(path)
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise LaunchContractError(f"{path} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LaunchContractError(f"{path} is not JSON: {exc}") from None
    if not is_launch_contract(meta):
        raise LaunchContractError(f"{path}: 'format' is not {FORMAT!r}")
    for key in ("hsaco", "kernel", "arch", "block", "grid", "dims"):
        if key not in meta:
            raise LaunchContractError(f"{path}: missing key {key!r}")
    if ("args" in meta) == ("kernarg" in meta):
        raise LaunchContractError(f"{path}: give exactly one of 'args' (typed) or 'kernarg' (raw)")
    code = path.parent / meta["hsaco"]
    if not code.is_file():
        raise LaunchContractError(f"{path}: code object {code} does not exist")
    return meta, code.read_bytes()


def dims_for(meta: dict, trips: int | None = None, small: bool = False) -> dict:
    """The contract's dims, with the profile's overrides when ``small`` and the loop dimension set
    to ``trips`` trips when given."""
    dims = dict(meta["dims"])
    if small:
        dims.update((meta.get("profile") or {}).get("dims") or {})
    if trips is not None:
        loop = loop_of(meta)
        dims[loop["dim"]] = trips * loop["per_trip"]
    return dims


def loop_of(meta: dict) -> dict:
    loop = meta.get("loop")
    if not loop or "dim" not in loop or "per_trip" not in loop:
        raise LaunchContractError("the contract has no 'loop' {'dim', 'per_trip'}: the profiler "
                                  "cannot tell how many trips its main loop makes")
    if loop["dim"] not in meta["dims"]:
        raise LaunchContractError(f"loop dim {loop['dim']!r} is not among dims {sorted(meta['dims'])}")
    return loop


def grid_of(meta: dict, dims: dict) -> tuple[int, int, int]:
    g = [int(evaluate(x, dims, "grid")) for x in meta["grid"]]
    g += [1] * (3 - len(g))
    if len(g) != 3 or min(g) < 1:
        raise LaunchContractError(f"grid {meta['grid']} gives {g}: need 1 to 3 sizes >= 1")
    return tuple(g)


def buffers(meta: dict, dims: dict, seed: int) -> dict[str, np.ndarray]:
    """The contract's buffers at ``dims``: seeded uniform(-1, 1) or zeros."""
    from ..dtypes import np_dtype
    rng = np.random.default_rng(seed)
    out = {}
    for b in meta.get("buffers", []):
        shape = tuple(int(evaluate(s, dims, f"buffer {b.get('name')} shape")) for s in b["shape"])
        dt = np_dtype(b["dtype"])
        if b.get("init", "uniform") == "zeros":
            out[b["name"]] = np.zeros(shape, dt)
        else:
            out[b["name"]] = rng.uniform(-1, 1, size=shape).astype(dt)
    return out


def _field(dtype: str, value) -> bytes:
    import struct
    if dtype not in _SCALAR:
        raise LaunchContractError(f"scalar dtype {dtype!r} is not one of {sorted(_SCALAR)}")
    v = float(value) if dtype.startswith("f") else int(value)
    if not dtype.startswith("f"):
        bits = 8 * struct.calcsize(_SCALAR[dtype])
        v &= (1 << bits) - 1
        if dtype.startswith("i") and v >= 1 << (bits - 1):
            v -= 1 << bits
    return struct.pack(_SCALAR[dtype], v)


def kernargs(meta: dict, hsaco: bytes, dims: dict, address: dict[str, int]) -> bytes:
    """The kernarg bytes: raw fields, or typed args at the code object's metadata offsets."""
    if "kernarg" in meta:
        ka = meta["kernarg"]
        out = bytearray(int(ka.get("size", 0)))
        fields = [(int(f["offset"]), f) for f in ka["fields"]]
    else:
        from isa.codeobj import CodeObject
        info = CodeObject.from_bytes(hsaco).kernel(meta["kernel"])
        md = [a for a in info.args if not str(a.get(".value_kind", "")).startswith("hidden_")]
        if len(md) != len(meta["args"]):
            raise LaunchContractError(f"kernel {meta['kernel']} has {len(md)} explicit arguments, "
                                      f"the contract lists {len(meta['args'])}")
        out = bytearray(int(info.kernarg_segment_size))
        fields = [(int(a[".offset"]), f) for a, f in zip(md, meta["args"], strict=True)]
    for off, f in fields:
        if "buffer" in f:
            if f["buffer"] not in address:
                raise LaunchContractError(f"kernarg field at {off}: no buffer {f['buffer']!r}")
            raw = int(address[f["buffer"]]).to_bytes(8, "little")
        else:
            raw = _field(f.get("dtype", "u32"), evaluate(f.get("value", 0), dims, f"field at {off}"))
        if off + len(raw) > len(out):
            out.extend(b"\0" * (off + len(raw) - len(out)))
        out[off:off + len(raw)] = raw
    return bytes(out)


def run(meta: dict, hsaco: bytes, dims: dict, *, grid=None, seed: int = 0, trace: bool = False):
    """Run the kernel at ``dims`` (whole grid, or ``grid``) on the emulator; (emulator, buffers)."""
    from isa.emu import Emulator
    emu_opts = meta.get("emulator") or {}
    from isa.errors import IsaError
    try:
        emu = Emulator(arch=meta["arch"], seed=seed, trace=trace,
                       check_hazards=bool(emu_opts.get("check_hazards", True)),
                       allow_hazards=tuple(emu_opts.get("allow_hazards", ())))
    except IsaError as exc:       # an unknown hazard rule name, an unknown arch
        raise LaunchContractError(f"emulator options: {exc}") from None
    bufs = buffers(meta, dims, seed)
    address = {name: emu.alloc(arr, name) for name, arr in bufs.items()}
    ka = kernargs(meta, hsaco, dims, address)
    emu.launch(hsaco, meta["kernel"], grid=tuple(grid or grid_of(meta, dims)),
               block=tuple(meta["block"]), kernargs=ka, dynamic_lds=int(meta.get("dynamic_lds", 0)))
    return emu, bufs


def resources(meta: dict, hsaco: bytes) -> dict:
    """Register budget and LDS of the kernel (descriptor + the launch's dynamic LDS) and the
    waves per SIMD its registers allow (facts §1: min(8, 512 // VGPRs))."""
    from isa.codeobj import CodeObject
    d = CodeObject.from_bytes(hsaco).kernel(meta["kernel"]).descriptor
    lds = int(d.group_segment_fixed_size) + int(meta.get("dynamic_lds", 0))
    return {"vgpr": d.vgpr_alloc, "agpr": d.agpr_budget, "sgpr": d.sgpr_alloc, "lds": lds,
            "waves_per_simd": max(1, min(8, 512 // max(d.vgpr_alloc, 1)))}


def model_meta(meta: dict, hsaco: bytes) -> dict:
    """What ``profiling.common`` reads of a contract (arch, kernel, block, lds, resources)."""
    res = resources(meta, hsaco)
    return {"kernel": meta["kernel"], "arch": meta["arch"], "block": list(meta["block"]),
            "lds_bytes": res["lds"], "resources": res, "schedule": "foreign",
            "config": {"kind": "foreign"}}


def trips_full(meta: dict) -> int:
    loop = loop_of(meta)
    return math.ceil(evaluate(meta["dims"][loop["dim"]], meta["dims"], "loop dim") / loop["per_trip"])
