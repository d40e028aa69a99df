"""A test double of hip-python's ``hip.hip`` module: same function names, tuple returns with a
``hipError_t`` first, device memory in host NumPy arrays, and a ``hipModuleLaunchKernel`` that reads
the ``extra`` array through raw pointers (as libamdhip64 does) and runs the code object on the
project's emulator. The pointer arguments are found from the code object's own metadata
(``.value_kind: global_buffer``), not from asmgen's kernarg module, so the runner's packing is
checked by an independent reader.
"""
from __future__ import annotations

import ctypes
import enum
from dataclasses import dataclass, field

import numpy as np

VADD_N = 1000   # elements of the vector_add contract the runtime tests build


class hipError_t(enum.IntEnum):
    hipSuccess = 0
    hipErrorInvalidValue = 1
    hipErrorOutOfMemory = 2
    hipErrorNoDevice = 100
    hipErrorInvalidDevice = 101
    hipErrorInvalidImage = 200
    hipErrorNoBinaryForGpu = 209
    hipErrorNotFound = 500
    hipErrorLaunchFailure = 719


class hipMemcpyKind(enum.IntEnum):
    hipMemcpyHostToHost = 0
    hipMemcpyHostToDevice = 1
    hipMemcpyDeviceToHost = 2


@dataclass
class Props:
    name: str
    gcnArchName: str
    multiProcessorCount: int = 304
    totalGlobalMem: int = 192 << 30


@dataclass
class Launch:
    kernel: str
    grid: tuple
    block: tuple
    shared: int
    kernargs: bytes


@dataclass
class FakeHip:
    gcn_arch_names: tuple = ("gfx942:sramecc+:xnack-",)
    run_kernels: bool = True
    fail: dict = field(default_factory=dict)      # function name -> hipError_t to return
    seed: int = 0
    # kernel name -> fn(fake, args: dict name -> int address or raw scalar bytes, grid, block):
    # a Python model of the kernel used instead of the emulator
    python_kernels: dict = field(default_factory=dict)

    HIP_LAUNCH_PARAM_BUFFER_POINTER = 1   # hip_runtime_api.h: ((void*)0x01) .. 0x03
    HIP_LAUNCH_PARAM_BUFFER_SIZE = 2
    HIP_LAUNCH_PARAM_END = 3
    hipError_t = hipError_t
    hipMemcpyKind = hipMemcpyKind

    def __post_init__(self) -> None:
        self.allocs: dict[int, np.ndarray] = {}
        self.modules: dict[int, bytes] = {}
        self.launches: list[Launch] = []
        self.calls: list[str] = []
        self.current = 0

    # --- helpers --------------------------------------------------------------------------------
    def _err(self, name: str):
        self.calls.append(name)
        return self.fail.get(name)

    def _find(self, addr: int, n: int):
        for base, arr in self.allocs.items():
            if base <= addr and addr + n <= base + arr.size:
                return base, arr
        return None

    @property
    def live_allocations(self) -> int:
        return len(self.allocs)

    # --- devices --------------------------------------------------------------------------------
    def hipGetDeviceCount(self):
        if (e := self._err("hipGetDeviceCount")) is not None:
            return (e, 0)
        if not self.gcn_arch_names:
            return (hipError_t.hipErrorNoDevice, 0)
        return (hipError_t.hipSuccess, len(self.gcn_arch_names))

    def hipGetDeviceProperties(self, index):
        if (e := self._err("hipGetDeviceProperties")) is not None:
            return (e, None)
        if not 0 <= index < len(self.gcn_arch_names):
            return (hipError_t.hipErrorInvalidDevice, None)
        return (hipError_t.hipSuccess, Props(f"AMD Instinct fake {index}", self.gcn_arch_names[index]))

    def hipSetDevice(self, index):
        if (e := self._err("hipSetDevice")) is not None:
            return (e,)
        if not 0 <= index < len(self.gcn_arch_names):
            return (hipError_t.hipErrorInvalidDevice,)
        self.current = index
        return (hipError_t.hipSuccess,)

    def hipGetErrorString(self, err):
        return (hipError_t.hipSuccess, f"fake description of {hipError_t(err).name}".encode())

    # --- memory ---------------------------------------------------------------------------------
    def hipMalloc(self, n):
        if (e := self._err("hipMalloc")) is not None:
            return (e, None)
        arr = np.zeros(int(n), np.uint8)
        addr = arr.ctypes.data
        self.allocs[addr] = arr
        return (hipError_t.hipSuccess, addr)

    def hipFree(self, ptr):
        if (e := self._err("hipFree")) is not None:
            return (e,)
        if self.allocs.pop(int(ptr), None) is None:
            return (hipError_t.hipErrorInvalidValue,)
        return (hipError_t.hipSuccess,)

    def hipMemcpy(self, dst, src, n, kind):
        if (e := self._err("hipMemcpy")) is not None:
            return (e,)
        if kind == hipMemcpyKind.hipMemcpyHostToDevice:
            if not isinstance(src, np.ndarray) or self._find(int(dst), n) is None or src.nbytes < n:
                return (hipError_t.hipErrorInvalidValue,)
            ctypes.memmove(int(dst), src.ctypes.data, n)
        elif kind == hipMemcpyKind.hipMemcpyDeviceToHost:
            if not isinstance(dst, np.ndarray) or self._find(int(src), n) is None or dst.nbytes < n:
                return (hipError_t.hipErrorInvalidValue,)
            ctypes.memmove(dst.ctypes.data, int(src), n)
        else:
            return (hipError_t.hipErrorInvalidValue,)
        return (hipError_t.hipSuccess,)

    # --- modules --------------------------------------------------------------------------------
    def hipModuleLoadData(self, image):
        if (e := self._err("hipModuleLoadData")) is not None:
            return (e, None)
        data = bytes(image)
        if data[:4] != b"\x7fELF":
            return (hipError_t.hipErrorInvalidImage, None)
        from isa.codeobj import CodeObject
        co = CodeObject.from_bytes(data)
        gcn = self.gcn_arch_names[self.current]
        if co.arch != gcn.split(":")[0]:
            return (hipError_t.hipErrorNoBinaryForGpu, None)
        handle = len(self.modules) + 1
        self.modules[handle] = data
        return (hipError_t.hipSuccess, handle)

    def hipModuleGetFunction(self, module, name):
        if (e := self._err("hipModuleGetFunction")) is not None:
            return (e, None)
        from isa.codeobj import CodeObject
        name = name.decode() if isinstance(name, bytes) else name
        co = CodeObject.from_bytes(self.modules[module])
        if name not in [k[".name"] for k in co.metadata["amdhsa.kernels"]]:
            return (hipError_t.hipErrorNotFound, None)
        return (hipError_t.hipSuccess, (module, name))

    def hipModuleUnload(self, module):
        self.calls.append("hipModuleUnload")
        return (hipError_t.hipSuccess,) if self.modules.pop(module, None) else (hipError_t.hipErrorInvalidValue,)

    def hipModuleLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        if (e := self._err("hipModuleLaunchKernel")) is not None:
            return (e,)
        if params is not None or extra is None:
            return (hipError_t.hipErrorInvalidValue,)
        # read the void* extra[5] array exactly as the C runtime would
        words = (ctypes.c_void_p * 5).from_address(ctypes.addressof(extra))
        if (words[0], words[2], words[4]) != (1, 2, 3):
            return (hipError_t.hipErrorInvalidValue,)
        size = ctypes.c_size_t.from_address(words[3]).value
        kernargs = ctypes.string_at(words[1], size)
        module, name = f
        self.launches.append(Launch(name, (gx, gy, gz), (bx, by, bz), shared, kernargs))
        if name in self.python_kernels:
            self.python_kernels[name](self, self._named_args(self.modules[module], name, kernargs),
                                      (gx, gy, gz), (bx, by, bz))
        elif self.run_kernels:
            self._emulate(self.modules[module], name, (gx, gy, gz), (bx, by, bz), kernargs)
        return (hipError_t.hipSuccess,)

    def hipDeviceSynchronize(self):
        if (e := self._err("hipDeviceSynchronize")) is not None:
            return (e,)
        return (hipError_t.hipSuccess,)

    def _named_args(self, hsaco: bytes, name: str, kernargs: bytes) -> dict:
        """Kernel arguments by the code object metadata: buffers as int addresses, others as bytes."""
        from isa.codeobj import CodeObject
        kmeta = next(k for k in CodeObject.from_bytes(hsaco).metadata["amdhsa.kernels"] if k[".name"] == name)
        out = {}
        for arg in kmeta[".args"]:
            raw = kernargs[arg[".offset"]:arg[".offset"] + arg[".size"]]
            out[arg[".name"]] = int.from_bytes(raw, "little") if arg[".value_kind"] == "global_buffer" else raw
        return out

    def device_view(self, addr: int, dtype, count: int) -> np.ndarray:
        """A NumPy view of ``count`` elements of fake device memory at ``addr``."""
        dtype = np.dtype(dtype)
        hit = self._find(addr, count * dtype.itemsize)
        if hit is None:
            raise AssertionError(f"{addr:#x} + {count} x {dtype} is not inside fake device memory")
        base, arr = hit
        return arr[addr - base: addr - base + count * dtype.itemsize].view(dtype)

    def _emulate(self, hsaco: bytes, name: str, grid, block, kernargs: bytes) -> None:
        """Run on isa.emu: each global_buffer argument (per the code object metadata) is moved from
        fake device memory into an emulator allocation of the same NumPy array."""
        from isa.codeobj import CodeObject
        from isa.emu import Emulator
        co = CodeObject.from_bytes(hsaco)
        kmeta = next(k for k in co.metadata["amdhsa.kernels"] if k[".name"] == name)
        emu = Emulator(arch=co.arch, seed=self.seed)
        data = bytearray(kernargs)
        for arg in kmeta[".args"]:
            if arg[".value_kind"] != "global_buffer":
                continue
            off = arg[".offset"]
            addr = int.from_bytes(data[off:off + 8], "little")
            hit = self._find(addr, 1)
            if hit is None:
                raise AssertionError(f"kernel argument {arg.get('.name')} = {addr:#x} is not fake device memory")
            base, arr = hit
            emu_addr = emu.alloc(arr, arg.get(".name", "")) + (addr - base)
            data[off:off + 8] = emu_addr.to_bytes(8, "little")
        emu.launch(hsaco, name, grid=grid, block=block, kernargs=bytes(data))


class DeviceTensor:
    """A device array stand-in exposing ``__cuda_array_interface__`` over fake device memory."""

    def __init__(self, hip: FakeHip, host: np.ndarray) -> None:
        host = np.ascontiguousarray(host)
        _, addr = hip.hipMalloc(host.nbytes)
        hip.hipMemcpy(addr, host, host.nbytes, hipMemcpyKind.hipMemcpyHostToDevice)
        self.hip, self.addr, self.shape, self.dtype = hip, addr, host.shape, host.dtype
        self.__cuda_array_interface__ = {"shape": host.shape, "typestr": host.dtype.str,
                                         "data": (addr, False), "strides": None, "version": 3}

    def numpy(self) -> np.ndarray:
        out = np.empty(self.shape, self.dtype)
        self.hip.hipMemcpy(out, self.addr, out.nbytes, hipMemcpyKind.hipMemcpyDeviceToHost)
        return out


class RocmDLPack:
    """A DLPack producer that says it lives on ROCm device ``device_id`` (kDLROCM = 10) while its
    data is a NumPy array (a fake device address for ``FakeHip``)."""

    def __init__(self, arr: np.ndarray, device_id: int = 0) -> None:
        self.arr, self.device_id = arr, device_id

    def __dlpack__(self, *args, **kwargs):
        return self.arr.__dlpack__()

    def __dlpack_device__(self):
        return (10, self.device_id)
