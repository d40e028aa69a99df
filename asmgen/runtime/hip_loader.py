"""The HIP backend of ``launch``: load a code object on a ROCm GPU through hip-python and run it
from its ``.json`` contract (``HipRunner``), NumPy in, NumPy out, like the emulator runner.

- Module: ``hipModuleLoadData`` + ``hipModuleGetFunction`` (the contract's ``kernel`` symbol).
- Arguments: packed by ``asmgen.kernarg.pack_kernargs`` (the one layout implementation, shared with
  the emulator runner) and handed to ``hipModuleLaunchKernel`` through ``extra`` =
  ``[HIP_LAUNCH_PARAM_BUFFER_POINTER, &buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END]``
  (HIP porting guide, "hip_porting_driver_api"); ``kernelParams`` is NULL.
- Buffers: NumPy arrays are copied to the device (rows padded to the contract's leading dimension,
  exactly as the emulator runner does) and the ``out``/``inout`` ones copied back; objects exposing
  ``__cuda_array_interface__`` or a ROCm DLPack device (``__dlpack__``/``__dlpack_device__``, e.g.
  PyTorch ROCm tensors) are used in place and returned as they are.
- Every HIP failure is a ``HipError`` carrying the HIP error name; a missing runtime is
  ``HipUnavailable``.
"""
from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import KernargError
from ..kernarg import SCALAR_DTYPES, ArgSpec, as_args, pack_kernargs
from .devices import GpuDevice, check_compatible, get_device
from .hipapi import hip_api, hip_call

# DLPack device types (dlpack.h, DLDeviceType): host-visible ones are copied like NumPy arrays
DL_CPU, DL_CUDA_HOST, DL_ROCM, DL_ROCM_HOST = 1, 3, 10, 11
_DL_HOST = (DL_CPU, DL_CUDA_HOST, DL_ROCM_HOST)
# DLPack dtype codes (DLDataTypeCode): 0 int, 1 uint, 2 float, 4 bfloat
_DL_FLOAT_CODES = (2, 4)
_FLOAT_DTYPES = ("f32", "f16", "bf16", "fp8_e4m3fnuz", "fp8_e4m3", "f64")


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype, _capsule_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_capsule_ptr = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_ptr.restype, _capsule_ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


@dataclass(frozen=True)
class DeviceBuffer:
    """A device-resident array used in place: its address, bytes, element size and whether its
    elements are floating point (None when the producer does not say)."""

    address: int
    nbytes: int
    itemsize: int
    is_float: bool | None
    contiguous: bool
    device_id: int | None = None


def _dlpack_tensor(capsule: Any) -> _DLTensor:
    if _capsule_valid(capsule, b"dltensor"):
        # DLManagedTensor begins with its DLTensor
        return _DLTensor.from_address(_capsule_ptr(capsule, b"dltensor"))
    if _capsule_valid(capsule, b"dltensor_versioned"):
        return _DLManagedTensorVersioned.from_address(_capsule_ptr(capsule, b"dltensor_versioned")).dl_tensor
    raise KernargError(f"__dlpack__() returned {capsule!r}, not a 'dltensor' capsule")


def _c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...] | None) -> bool:
    """Strides in elements; None means C-contiguous."""
    if strides is None:
        return True
    expect = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def device_buffer(obj: Any) -> DeviceBuffer | None:
    """The device array behind ``obj`` (``__cuda_array_interface__`` or a ROCm DLPack tensor), or
    None when ``obj`` lives in host memory (NumPy arrays, CPU tensors)."""
    if isinstance(obj, np.ndarray):
        return None
    try:
        cai = getattr(obj, "__cuda_array_interface__", None)
    except (TypeError, RuntimeError):   # e.g. PyTorch raises for bf16 tensors; DLPack covers those
        cai = None
    if cai is not None:
        shape = tuple(int(x) for x in cai["shape"])
        typestr = cai["typestr"]
        itemsize = int(typestr[2:])
        strides = cai.get("strides")
        el_strides = None if strides is None else tuple(int(s) // itemsize for s in strides)
        return DeviceBuffer(int(cai["data"][0]), int(np.prod(shape, dtype=np.int64)) * itemsize, itemsize,
                            typestr[1] == "f" if typestr[1] in "fiu" else None,
                            _c_contiguous(shape, el_strides))
    if hasattr(obj, "__dlpack_device__") and hasattr(obj, "__dlpack__"):
        dev_type, dev_id = obj.__dlpack_device__()
        if int(dev_type) in _DL_HOST:
            return None
        if int(dev_type) != DL_ROCM:
            raise KernargError(f"DLPack device type {int(dev_type)} is neither host memory nor ROCm "
                               f"({DL_ROCM}); cannot pass it to a HIP kernel")
        capsule = obj.__dlpack__()
        t = _dlpack_tensor(capsule)
        shape = tuple(t.shape[i] for i in range(t.ndim))
        strides = None if not t.strides else tuple(t.strides[i] for i in range(t.ndim))
        itemsize = t.dtype.bits * t.dtype.lanes // 8
        address = (t.data or 0) + int(t.byte_offset)
        return DeviceBuffer(address, int(np.prod(shape, dtype=np.int64)) * itemsize, itemsize,
                            t.dtype.code in _DL_FLOAT_CODES, _c_contiguous(shape, strides), int(dev_id))
    return None


def _check_device_buffer(arg: ArgSpec, buf: DeviceBuffer, device_index: int) -> None:
    size = SCALAR_DTYPES[arg.dtype]
    if buf.itemsize != size:
        raise KernargError(f"buffer {arg.name}: device array has {buf.itemsize}-byte elements, "
                           f"the contract's dtype {arg.dtype} has {size}")
    want_float = arg.dtype in _FLOAT_DTYPES
    if buf.is_float is not None and buf.is_float != want_float:
        raise KernargError(f"buffer {arg.name}: device array is {'float' if buf.is_float else 'integer'}, "
                           f"the contract's dtype is {arg.dtype}")
    if not buf.contiguous:
        raise KernargError(f"buffer {arg.name}: a device array must be contiguous to be used in place")
    if buf.device_id is not None and buf.device_id != device_index:
        raise KernargError(f"buffer {arg.name} lives on device {buf.device_id}, the kernel runs on "
                           f"device {device_index}")


def launch_extra(hip: Any, kernargs: bytes) -> tuple[Any, tuple]:
    """The ``extra`` array for hipModuleLaunchKernel and the ctypes objects it points to (keep them
    alive until the launch returns)."""
    buf = ctypes.create_string_buffer(bytes(kernargs), max(len(kernargs), 1))
    size = ctypes.c_size_t(len(kernargs))
    extra = (ctypes.c_void_p * 5)(int(hip.HIP_LAUNCH_PARAM_BUFFER_POINTER), ctypes.addressof(buf),
                                  int(hip.HIP_LAUNCH_PARAM_BUFFER_SIZE), ctypes.addressof(size),
                                  int(hip.HIP_LAUNCH_PARAM_END))
    return extra, (buf, size)


class HipModule:
    """A code object loaded on the current device and its kernel function."""

    def __init__(self, hip: Any, hsaco: bytes, kernel: str) -> None:
        self.hip = hip
        self._image = bytes(hsaco)           # hipModuleLoadData reads host memory: keep it alive
        self.module = hip_call(hip, "hipModuleLoadData", self._image)
        try:
            self.function = hip_call(hip, "hipModuleGetFunction", self.module, kernel.encode())
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.module is not None:
            module, self.module = self.module, None
            hip_call(self.hip, "hipModuleUnload", module)

    def __del__(self) -> None:  # best effort at interpreter exit; explicit close() reports errors
        try:
            self.close()
        except Exception as exc:  # noqa: BLE001 - no caller to raise to during garbage collection
            logging.getLogger("asmgen.runtime").debug("hipModuleUnload at collection failed: %s", exc)


class HipRunner:
    """Runs a kernel contract on a ROCm GPU: ``run(A=..., B=..., C=..., alpha=...)`` returns the
    ``out``/``inout`` buffer (a dict when there are several), as the emulator runner does."""

    backend = "hip"

    def __init__(self, meta: dict, hsaco: bytes, device: int = 0, hip: Any = None) -> None:
        self.hip = hip_api() if hip is None else hip
        self.meta = meta
        self.args = as_args(meta["args"])
        self.device_index = int(device)
        self.device: GpuDevice = get_device(self.device_index, self.hip)
        check_compatible(meta["arch"], self.device)
        hip_call(self.hip, "hipSetDevice", self.device_index)
        self.module = HipModule(self.hip, hsaco, meta["kernel"])
        self.last_kernargs: bytes | None = None

    def _grid(self, scalars: dict) -> tuple:
        # the contract's grid rule (``grid_from``), one implementation for every runner
        from .launch import grid_of
        return tuple(int(x) for x in grid_of(self.meta, scalars))

    def _malloc(self, nbytes: int, owned: list) -> int:
        ptr = hip_call(self.hip, "hipMalloc", max(int(nbytes), 1))
        owned.append(ptr)
        return int(ptr)

    def __call__(self, seed: int | None = None, **values: Any):
        """Launch once. ``seed`` is accepted for parity with the emulator runner (which seeds its
        interleaving) and has no effect on a GPU."""
        from .launch import LaunchError, plan_launch
        hip = self.hip

        def on_device(a: ArgSpec, value: Any, need: int) -> int | None:
            dev = device_buffer(value)
            if dev is None:
                return None
            _check_device_buffer(a, dev, self.device_index)
            if dev.nbytes < need:
                raise LaunchError(a.name, f"a device array of {dev.nbytes} bytes",
                                  f"{need} bytes at the runtime sizes")
            return dev.address

        plan = plan_launch(self.meta, values, on_device)   # the one contract check (emu does too)
        hip_call(hip, "hipSetDevice", self.device_index)
        owned: list = []
        packed: dict[str, Any] = dict(plan.scalars)
        packed.update({n: addr for n, (_, addr) in plan.device.items()})
        h2d, d2h = hip.hipMemcpyKind.hipMemcpyHostToDevice, hip.hipMemcpyKind.hipMemcpyDeviceToHost
        done = False
        try:
            for name, arr in plan.host.items():
                addr = self._malloc(arr.nbytes, owned)
                if arr.nbytes:
                    hip_call(hip, "hipMemcpy", addr, arr, arr.nbytes, h2d)
                packed[name] = addr
            kernargs = pack_kernargs(self.args, packed)
            self.last_kernargs = kernargs
            extra, keep = launch_extra(hip, kernargs)
            (gx, gy, gz), (bx, by, bz) = plan.grid, tuple(int(x) for x in self.meta["block"])
            hip_call(hip, "hipModuleLaunchKernel", self.module.function, gx, gy, gz, bx, by, bz,
                     0, None, None, extra)
            hip_call(hip, "hipDeviceSynchronize")
            del keep
            for name in plan.outputs:
                arr = plan.host.get(name)
                if arr is not None and arr.nbytes:
                    hip_call(hip, "hipMemcpy", arr, int(packed[name]), arr.nbytes, d2h)
            done = True
        finally:
            errors = []
            for ptr in owned:
                try:
                    hip_call(hip, "hipFree", ptr)
                except Exception as exc:  # noqa: BLE001 - free the rest, then report the first
                    errors.append(exc)
            if errors and done:   # never mask the error that got us here
                raise errors[0]
        outs = {n: plan.host[n] if n in plan.host else plan.device[n][0] for n in plan.outputs}
        return next(iter(outs.values())) if len(outs) == 1 else outs

    def close(self) -> None:
        self.module.close()
