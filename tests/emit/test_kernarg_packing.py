"""Golden tests of kernel-argument layout and packing (design.md "Contracts")."""
import struct

import numpy as np
import pytest

from asmgen.errors import KernargError
from asmgen.kernarg import (
    ArgSpec,
    as_args,
    kernarg_align,
    kernarg_size,
    layout,
    pack_kernargs,
    unpack_kernargs,
)

GEMM_ARGS = [
    {"name": "A", "kind": "buffer", "dtype": "f16", "shape": [64, 32], "strides": [32, 1], "io": "in"},
    {"name": "B", "kind": "buffer", "dtype": "f16", "io": "in"},
    {"name": "C", "kind": "buffer", "dtype": "f32", "io": "inout"},
    {"name": "M", "kind": "scalar", "dtype": "u32", "value": 64},
    {"name": "alpha", "kind": "scalar", "dtype": "f32"},
    {"name": "beta", "kind": "scalar", "dtype": "f16"},
    {"name": "bias", "kind": "buffer", "dtype": "f32"},
]


def test_layout_aligns_each_arg_to_its_size():
    slots = layout(GEMM_ARGS)
    assert [(s.arg.name, s.offset, s.size) for s in slots] == [
        ("A", 0, 8), ("B", 8, 8), ("C", 16, 8), ("M", 24, 4), ("alpha", 28, 4), ("beta", 32, 2),
        ("bias", 40, 8)]
    assert kernarg_size(GEMM_ARGS) == 48
    assert kernarg_align(GEMM_ARGS) == 8
    assert kernarg_size([]) == 0 and kernarg_align([]) == 4


def test_pack_golden_bytes():
    addrs = {}

    def address_of(arr):
        return addrs.setdefault(id(arr), 0x7F00_0000_1000 + 0x1000 * len(addrs))

    a, b = np.zeros((64, 32), np.float16), np.zeros(1, np.float16)
    data = pack_kernargs(GEMM_ARGS, {"A": a, "B": b, "C": 0xDEAD_BEEF_0000, "alpha": 0.5, "beta": -2.0,
                                     "bias": 0x10}, address_of)
    expected = (struct.pack("<QQQ", 0x7F00_0000_1000, 0x7F00_0000_2000, 0xDEAD_BEEF_0000)
                + struct.pack("<If", 64, 0.5) + bytes.fromhex("00c0") + b"\0" * 6 + struct.pack("<Q", 0x10))
    assert data == expected
    back = unpack_kernargs(GEMM_ARGS, data)
    assert back == {"A": 0x7F00_0000_1000, "B": 0x7F00_0000_2000, "C": 0xDEAD_BEEF_0000, "M": 64,
                    "alpha": 0.5, "beta": -2.0, "bias": 0x10}


@pytest.mark.parametrize("dtype,value,raw", [
    ("i32", -1, "ffffffff"), ("u32", 7, "07000000"), ("i8", -2, "fe"), ("u16", 513, "0102"),
    ("f64", 1.0, "000000000000f03f"), ("bf16", 1.0, "803f"), ("fp8_e4m3fnuz", 1.0, "40"),
    ("fp8_e4m3", 1.0, "38"), ("u64", 1 << 40, "0000000000010000"),
])
def test_scalar_dtypes(dtype, value, raw):
    args = [ArgSpec("x", "scalar", dtype)]
    assert pack_kernargs(args, {"x": value}).hex() == raw
    assert unpack_kernargs(args, bytes.fromhex(raw))["x"] == value


def test_numpy_scalar_values_are_accepted():
    args = [ArgSpec("n", "scalar", "u32"), ArgSpec("s", "scalar", "f32")]
    assert pack_kernargs(args, {"n": np.uint32(5), "s": np.float32(2.0)}) == struct.pack("<If", 5, 2.0)


@pytest.mark.parametrize("values,match", [
    ({"n": 1 << 32}, "does not fit u32"),
    ({"n": -1}, "does not fit u32"),
    ({"n": 1.5}, "non-integer"),
    ({}, "has no value"),
    ({"n": 1, "zz": 2}, "unknown arguments"),
])
def test_scalar_errors(values, match):
    with pytest.raises(KernargError, match=match):
        pack_kernargs([ArgSpec("n", "scalar", "u32")], values)


def test_buffer_errors():
    args = [ArgSpec("A", "buffer", "f32")]
    with pytest.raises(KernargError, match="no address_of"):
        pack_kernargs(args, {"A": np.zeros(4, np.float32)})
    with pytest.raises(KernargError, match="has no value"):
        pack_kernargs(args, {})
    with pytest.raises(KernargError, match="64-bit"):
        pack_kernargs(args, {"A": -5})


@pytest.mark.parametrize("bad,match", [
    ({"name": "A", "kind": "tensor"}, "kind"),
    ({"name": "A", "dtype": "f128"}, "dtype"),
    ({"name": "1A"}, "identifier"),
    ({"name": "A", "io": "rw"}, "io"),
    ({"name": "A", "colour": "red"}, "unknown keys"),
])
def test_bad_arg_specs(bad, match):
    with pytest.raises(KernargError, match=match):
        as_args([bad])


def test_duplicate_names():
    with pytest.raises(KernargError, match="twice"):
        as_args([{"name": "A"}, {"name": "A"}])


def test_round_trip_dict():
    for d in GEMM_ARGS:
        a = ArgSpec.from_dict(d)
        assert ArgSpec.from_dict(a.to_dict()) == a
