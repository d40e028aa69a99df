"""Read a host DLPack tensor whose dtype NumPy's own ``np.from_dlpack`` does not import (bf16 and
the fp8 formats) into a NumPy array of the matching ml_dtypes type, copied; the other codes
(int, uint, float, complex, bool) into NumPy's own dtypes by the same reader.

The DLPack C ABI (dmlc/dlpack ``include/dlpack/dlpack.h``, v1.1; the Python protocol is the
Array API standard's "DLPack: an in-memory tensor structure",
https://dmlc.github.io/dlpack/latest/python_spec.html):

* ``obj.__dlpack__()`` returns a PyCapsule named ``"dltensor"`` holding a ``DLManagedTensor*``
  (``{DLTensor dl_tensor; void *manager_ctx; void (*deleter)(DLManagedTensor*)}``), or, for
  ``max_version >= (1, 0)``, one named ``"dltensor_versioned"`` holding a
  ``DLManagedTensorVersioned*`` (``{DLPackVersion version; void *manager_ctx; deleter;
  uint64_t flags; DLTensor dl_tensor}``).
* ``DLTensor`` is ``{void *data; DLDevice device (int32 type, int32 id); int32 ndim;
  DLDataType dtype (uint8 code, uint8 bits, uint16 lanes); int64 *shape; int64 *strides (in
  elements, NULL = compact row-major); uint64 byte_offset}``.
* ``DLDataTypeCode``: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6,
  kDLFloat8_e3m4 7, kDLFloat8_e4m3 8, kDLFloat8_e4m3b11fnuz 9, kDLFloat8_e4m3fn 10,
  kDLFloat8_e4m3fnuz 11, kDLFloat8_e5m2 12, kDLFloat8_e5m2fnuz 13, kDLFloat8_e8m0fnu 14.
* A consumer renames the capsule ``"used_dltensor"`` (``"used_dltensor_versioned"``) and calls the
  deleter when it no longer needs the memory; here that is right after the copy.

Only host memory is read (device types kDLCPU 1, kDLCUDAHost 3, kDLROCMHost 11); ``lanes`` must
be 1. Anything else is a ``DLPackError`` naming what was found.
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

HOST_DEVICES = (1, 3, 11)
# DLDataTypeCode -> (bits, ml_dtypes attribute): the types NumPy has no dtype for
ML_DTYPES = {(4, 16): "bfloat16", (7, 8): "float8_e3m4", (8, 8): "float8_e4m3",
             (9, 8): "float8_e4m3b11fnuz", (10, 8): "float8_e4m3fn", (11, 8): "float8_e4m3fnuz",
             (12, 8): "float8_e5m2", (13, 8): "float8_e5m2fnuz", (14, 8): "float8_e8m0fnu"}
NUMPY_CODES = {0: "int", 1: "uint", 2: "float", 5: "complex", 6: "bool"}


class DLPackError(ValueError):
    """A DLPack tensor this reader cannot take (device memory, vector lanes, an unknown code)."""


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensorVersioned._fields_ = [
    ("version", _Version), ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))),
    ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_USED = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}


def np_dtype_of(code: int, bits: int) -> np.dtype:
    """The NumPy dtype of a DLPack (code, bits): NumPy's own, or ml_dtypes' for bf16 and fp8."""
    if (code, bits) in ML_DTYPES:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, ML_DTYPES[(code, bits)]))
    if code in NUMPY_CODES and bits % 8 == 0:
        name = NUMPY_CODES[code]
        try:
            return np.dtype("bool" if name == "bool" else f"{name}{bits}")
        except TypeError:
            pass
    raise DLPackError(f"DLPack dtype code {code} with {bits} bits has no NumPy or ml_dtypes type")


def read_capsule(capsule: Any) -> np.ndarray:
    """Copy the host tensor of a DLPack capsule into a new NumPy array, then mark the capsule used
    and release the producer's memory (its deleter)."""
    name = _api.PyCapsule_GetName(capsule)
    if name not in _USED:
        raise DLPackError(f"a capsule named {name!r}, not a DLPack tensor (or already consumed)")
    ptr = _api.PyCapsule_GetPointer(capsule, name)
    if name == b"dltensor":
        managed = DLManagedTensor.from_address(ptr)
    else:
        managed = DLManagedTensorVersioned.from_address(ptr)
        if managed.version.major > 1:
            raise DLPackError(f"DLPack version {managed.version.major}.{managed.version.minor} "
                              "(this reader knows 1.x)")
    t = managed.dl_tensor
    dev = int(t.device.device_type)
    if dev not in HOST_DEVICES:
        raise DLPackError(f"a DLPack tensor on device type {dev} (not host memory)")
    if t.dtype.lanes != 1:
        raise DLPackError(f"a DLPack tensor of {t.dtype.lanes}-lane vectors (only lanes=1)")
    dtype = np_dtype_of(int(t.dtype.code), int(t.dtype.bits))
    out = _copy(t, dtype)
    _api.PyCapsule_SetName(capsule, _USED[name])
    if managed.deleter:
        managed.deleter(ctypes.pointer(managed))
    return out


def _copy(t: DLTensor, dtype: np.dtype) -> np.ndarray:
    shape = tuple(int(t.shape[i]) for i in range(t.ndim))
    size = dtype.itemsize
    if t.strides:
        strides = tuple(int(t.strides[i]) * size for i in range(t.ndim))
    else:
        strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * size for i in range(t.ndim))
    if 0 in shape:
        return np.zeros(shape, dtype)
    lo = sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0) + size
    base = (t.data or 0) + int(t.byte_offset) + lo
    raw = (ctypes.c_char * (hi - lo)).from_address(base)
    flat = np.frombuffer(raw, np.uint8)
    view = np.ndarray(shape, dtype, buffer=flat, offset=-lo, strides=strides)
    return np.array(view, copy=True)


def from_dlpack(value: Any) -> np.ndarray:
    """A host DLPack tensor (``value.__dlpack__``) as a new NumPy array, every dtype code read by
    ``read_capsule`` (NumPy's ``np.from_dlpack`` refuses bf16 and fp8 with "Unsupported dtype").
    A DLPack 1.x capsule is asked for first (``max_version``), a producer too old for the keyword
    gives the legacy one."""
    try:
        capsule = value.__dlpack__(max_version=(1, 1))
    except TypeError:
        capsule = value.__dlpack__()
    return read_capsule(capsule)
