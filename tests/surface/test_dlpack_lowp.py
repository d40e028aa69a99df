"""bf16 and the fp8 formats over ``__dlpack__`` (asmgen.runtime.dlpack): read from the DLPack C ABI
into ml_dtypes NumPy arrays, host memory only. A small fake producer builds DLManagedTensor
capsules by hand (dtype code, lanes, device and strides under the test's control, its deleter
counted); NumPy's own exporter, with the dtype code rewritten, gives the DLPack 1.x versioned
capsule; and a bf16 GEMM launched on the emulator takes A and B only through ``__dlpack__``."""
from __future__ import annotations

import ctypes

import ml_dtypes
import numpy as np
import pytest

from asmgen.runtime import dlpack as D
from asmgen.runtime.launch import LaunchError

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = b"dltensor"
_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(D.DLManagedTensor))


class HandMade:
    """A DLPack producer over ``arr``'s memory that states ``code``/``bits``/``lanes``/``device``
    itself (legacy ``dltensor`` capsule, strides in elements). ``deleted`` counts deleter calls."""

    def __init__(self, arr, code, bits, lanes=1, device=1, strides=True):
        self.arr, self.code, self.bits, self.lanes, self.device = arr, code, bits, lanes, device
        self.strides = strides
        self.deleted = 0
        self._keep = []

    def __dlpack__(self, stream=None):          # an old producer: no max_version keyword
        a = self.arr
        shape = (ctypes.c_int64 * a.ndim)(*a.shape)
        strides = (ctypes.c_int64 * a.ndim)(*(s // a.itemsize for s in a.strides))
        m = D.DLManagedTensor()
        m.dl_tensor.data = a.ctypes.data
        m.dl_tensor.device.device_type = self.device
        m.dl_tensor.ndim = a.ndim
        m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits = self.code, self.bits
        m.dl_tensor.dtype.lanes = self.lanes
        m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides:
            m.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))

        def deleter(_ptr):
            self.deleted += 1
        m.deleter = _DELETER(deleter)
        self._keep += [shape, strides, m, m.deleter]
        return _api.PyCapsule_New(ctypes.addressof(m), _NAME, None)

    def __dlpack_device__(self):
        return (self.device, 0)


class NumpyRelabelled:
    """NumPy's own DLPack 1.x export of ``arr``'s raw bits, its dtype code rewritten to ``code``
    (NumPy exports bf16/fp8 bits only as uint; ``np.from_dlpack`` refuses the rewritten code)."""

    def __init__(self, arr, code):
        self.arr, self.code = arr, code

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        raw = self.arr.view(f"u{self.arr.itemsize}")
        cap = raw.__dlpack__(max_version=max_version)
        name = D._api.PyCapsule_GetName(cap)
        ptr = D._api.PyCapsule_GetPointer(cap, name)
        struct = D.DLManagedTensorVersioned if name == b"dltensor_versioned" else D.DLManagedTensor
        struct.from_address(ptr).dl_tensor.dtype.code = self.code
        self.name = name
        return cap

    def __dlpack_device__(self):
        return (1, 0)


def _bf16(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, shape).astype(ml_dtypes.bfloat16)


def test_numpy_itself_refuses_bf16():
    """What the reader is for: NumPy's importer has no bf16."""
    with pytest.raises(RuntimeError, match="Unsupported dtype"):
        np.from_dlpack(NumpyRelabelled(_bf16((3, 4)), 4))


@pytest.mark.parametrize("view", [lambda a: a, lambda a: a.T, lambda a: a[::2, 1:],
                                  lambda a: a[::-1]])
def test_bf16_hand_made_capsule(view):
    a = view(_bf16((6, 8)))
    p = HandMade(a, code=4, bits=16)
    got = D.from_dlpack(p)
    assert got.dtype == np.dtype(ml_dtypes.bfloat16) and got.shape == a.shape
    assert np.array_equal(got.view(np.uint16), a.view(np.uint16))     # bit-exact
    assert p.deleted == 1                                              # released once, after copy
    assert not np.shares_memory(got, a)


def test_bf16_compact_capsule_without_strides():
    a = _bf16((5, 7))
    got = D.from_dlpack(HandMade(a, code=4, bits=16, strides=False))
    assert np.array_equal(got.view(np.uint16), a.view(np.uint16))


def test_versioned_capsule_from_numpy():
    a = _bf16((4, 9), seed=3)
    p = NumpyRelabelled(a, 4)
    got = D.from_dlpack(p)
    assert p.name == b"dltensor_versioned"
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert np.array_equal(got.view(np.uint16), a.view(np.uint16))


@pytest.mark.parametrize("code, ml", [(10, "float8_e4m3fn"), (11, "float8_e4m3fnuz"),
                                      (12, "float8_e5m2"), (13, "float8_e5m2fnuz")])
def test_fp8_codes(code, ml):
    a = np.random.default_rng(code).uniform(-4, 4, (8, 4)).astype(getattr(ml_dtypes, ml))
    got = D.from_dlpack(HandMade(a, code=code, bits=8))
    assert got.dtype == np.dtype(getattr(ml_dtypes, ml))
    assert np.array_equal(got.view(np.uint8), a.view(np.uint8))


def test_plain_types_through_the_same_reader():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert np.array_equal(D.from_dlpack(HandMade(a, code=2, bits=32)), a)
    i = np.arange(-6, 6, dtype=np.int16)
    assert D.from_dlpack(HandMade(i, code=0, bits=16)).dtype == np.int16


@pytest.mark.parametrize("kw, match", [
    (dict(device=2), r"device type 2 \(not host memory\)"),                  # kDLCUDA
    (dict(lanes=4), r"4-lane vectors"),
    (dict(code=17, bits=4), r"code 17 with 4 bits has no NumPy or ml_dtypes type"),  # fp4
])
def test_refused(kw, match):
    p = HandMade(_bf16((2, 2)), **dict(dict(code=4, bits=16), **kw))
    with pytest.raises(D.DLPackError, match=match):
        D.from_dlpack(p)


# -- through a real kernel launch on the emulator ---------------------------------------------------
@pytest.fixture(scope="module")
def bf16_gemm():
    from asmgen.api import gemm
    return gemm(64, 32, 48, dtype="bf16", tile=(32, 32, 16), waves=(1, 1))


def test_bf16_gemm_launch_over_dlpack(bf16_gemm):
    from asmgen import load
    from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
    inp = gemm_random_inputs(bf16_gemm.config, 1)
    assert inp["A"].dtype == np.dtype(ml_dtypes.bfloat16)
    a, b = HandMade(inp["A"], 4, 16), NumpyRelabelled(inp["B"], 4)
    out = load(bf16_gemm)(**dict(inp, A=a, B=b))
    ok, msg = compare(bf16_gemm.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    assert ok, msg
    assert a.deleted == 1
    # the same bits labelled f16 are not bf16: the launch refuses nothing (both 16-bit floats)
    # but the result must then differ from the bf16 reference, so the label is really read
    wrong = load(bf16_gemm)(**dict(inp, A=HandMade(inp["A"].view(np.float16), 2, 16)))
    assert not compare(bf16_gemm.config, wrong, inp["A"], inp["B"], inp["C"], inp["alpha"],
                       inp["beta"])[0]


def test_device_dlpack_refused_at_launch(bf16_gemm):
    from asmgen import load
    from asmgen.kinds.gemm.reference import gemm_random_inputs
    inp = gemm_random_inputs(bf16_gemm.config, 1)
    with pytest.raises(LaunchError, match=r"argument A: a DLPack tensor on device type 2"):
        load(bf16_gemm)(**dict(inp, A=HandMade(inp["A"], 4, 16, device=2)))
