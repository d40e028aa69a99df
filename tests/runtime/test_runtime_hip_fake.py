"""The HIP runner end to end against a fake HIP (tests/runtime/fake_hip.py): NumPy copied in and
out, device arrays (``__cuda_array_interface__``, ROCm DLPack) used in place, every HIP failure a
``HipError`` with the HIP error name, no device memory leaked on any path."""
import numpy as np
import pytest
from fake_hip import VADD_N as N
from fake_hip import DeviceTensor, FakeHip, RocmDLPack, hipError_t

from asmgen.errors import KernargError
from asmgen.runtime import DeviceMismatch, HipError, load, select_backend
from asmgen.runtime.hip_loader import DL_ROCM, device_buffer


def test_numpy_in_numpy_out(vector_add_json, fake_hip, vadd_inputs):
    a, b = vadd_inputs
    run = load(vector_add_json, backend="hip", hip=fake_hip)
    assert run.backend == "hip" and "gfx942" in run.backend_reason
    c = np.zeros(N, np.float32)
    out = run(A=a, B=b, C=c)
    np.testing.assert_array_equal(out, a + b)
    assert not c.any()                          # the caller's array is not written: NumPy in, NumPy out
    assert fake_hip.live_allocations == 0
    assert fake_hip.calls.count("hipMalloc") == 3 and fake_hip.calls.count("hipFree") == 3
    # A and B are inputs: only C is copied back (3 host-to-device + 1 device-to-host copies)
    assert fake_hip.calls.count("hipMemcpy") == 4
    assert fake_hip.launches[0].grid == (4, 1, 1) and fake_hip.launches[0].block == (256, 1, 1)


def test_cuda_array_interface_used_in_place(vector_add_json, fake_hip, vadd_inputs):
    a, b = vadd_inputs
    run = load(vector_add_json, backend="hip", hip=fake_hip)
    da, dc = DeviceTensor(fake_hip, a), DeviceTensor(fake_hip, np.zeros(N, np.float32))
    before = fake_hip.calls.count("hipMalloc")
    out = run(A=da, B=b, C=dc)
    assert out is dc
    np.testing.assert_array_equal(dc.numpy(), a + b)
    assert fake_hip.calls.count("hipMalloc") - before == 1      # only B needed a device copy
    assert fake_hip.launches[-1].kernargs[:8] == da.addr.to_bytes(8, "little")


def test_rocm_dlpack_used_in_place(vector_add_json, fake_hip, vadd_inputs):
    a, b = vadd_inputs
    _, addr = fake_hip.hipMalloc(N * 4)
    dev_c = fake_hip.device_view(addr, np.float32, N)           # a "device" tensor in fake memory
    t = RocmDLPack(dev_c)
    buf = device_buffer(t)
    assert (buf.address, buf.nbytes, buf.itemsize, buf.is_float, buf.device_id) == (addr, N * 4, 4, True, 0)
    out = load(vector_add_json, backend="hip", hip=fake_hip)(A=a, B=b, C=t)
    assert out is t
    np.testing.assert_array_equal(dev_c, a + b)


def test_host_dlpack_is_copied_not_used_in_place():
    class CpuTensor:
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, *a, **k):
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return (1, 0)

    assert device_buffer(CpuTensor(np.zeros(3))) is None
    assert device_buffer(np.zeros(3)) is None


def test_dlpack_other_device_rejected():
    class CudaTensor(RocmDLPack):
        def __dlpack_device__(self):
            return (2, 0)                                       # kDLCUDA

    with pytest.raises(KernargError, match=f"device type 2 is neither host memory nor ROCm \\({DL_ROCM}\\)"):
        device_buffer(CudaTensor(np.zeros(3)))


@pytest.mark.parametrize("bad,match", [
    (np.zeros(N, np.float16), "2-byte elements, the contract's dtype f32 has 4"),
    (np.zeros(N, np.int32), "device array is integer, the contract's dtype is f32"),
    (np.zeros(N // 2, np.float32), "argument C: a device array of 2000 bytes; the kernel needs 4000 bytes"),
    (np.zeros((N, 2), np.float32)[:, 0], "must be contiguous"),
])
def test_device_array_checked_against_contract(vector_add_json, fake_hip, vadd_inputs, bad, match):
    a, b = vadd_inputs
    run = load(vector_add_json, backend="hip", hip=fake_hip)

    class Dev:
        def __init__(self, arr):
            self.__cuda_array_interface__ = {
                "shape": arr.shape, "typestr": arr.dtype.str, "data": (arr.ctypes.data, False),
                "strides": None if arr.flags.c_contiguous else arr.strides, "version": 3}

    with pytest.raises(KernargError, match=match):
        run(A=a, B=b, C=Dev(bad))
    assert fake_hip.live_allocations == 0                      # A's device copy was freed


def test_dlpack_on_another_device_rejected(vector_add_json, vadd_inputs):
    fh = FakeHip(gcn_arch_names=("gfx942:sramecc+:xnack-",) * 2)
    a, b = vadd_inputs
    _, addr = fh.hipMalloc(N * 4)
    t = RocmDLPack(fh.device_view(addr, np.float32, N), device_id=1)
    with pytest.raises(KernargError, match="lives on device 1, the kernel runs on device 0"):
        load(vector_add_json, backend="hip", hip=fh, device=0)(A=a, B=b, C=t)


@pytest.mark.parametrize("call,err", [
    ("hipMalloc", hipError_t.hipErrorOutOfMemory),
    ("hipMemcpy", hipError_t.hipErrorInvalidValue),
    ("hipModuleLaunchKernel", hipError_t.hipErrorLaunchFailure),
    ("hipDeviceSynchronize", hipError_t.hipErrorLaunchFailure),
])
def test_hip_failures_are_typed_and_leak_nothing(vector_add_json, vadd_inputs, call, err):
    fh = FakeHip(fail={call: err}, python_kernels={"vector_add": lambda *args: None})
    a, b = vadd_inputs
    run = load(vector_add_json, backend="hip", hip=fh)
    with pytest.raises(HipError) as info:
        run(A=a, B=b, C=np.zeros(N, np.float32))
    exc = info.value
    assert (exc.call, exc.name, exc.code) == (call, err.name, int(err))
    assert f"{call} failed with {err.name} ({int(err)}): fake description of {err.name}" in str(exc)
    assert fh.live_allocations == 0


def test_free_failure_reported_after_success(vector_add_json, vadd_inputs):
    fh = FakeHip(fail={"hipFree": hipError_t.hipErrorInvalidValue}, python_kernels={"vector_add": lambda *a: None})
    a, b = vadd_inputs
    with pytest.raises(HipError, match="hipFree failed with hipErrorInvalidValue"):
        load(vector_add_json, backend="hip", hip=fh)(A=a, B=b, C=np.zeros(N, np.float32))


def test_load_errors(vector_add_json, gemm_kernel):
    with pytest.raises(HipError, match="hipModuleLoadData failed with hipErrorInvalidImage"):
        load(vector_add_json, backend="hip", hip=FakeHip(fail={"hipModuleLoadData": hipError_t.hipErrorInvalidImage}))
    fh = FakeHip()
    meta = dict(gemm_kernel.meta, kernel="no_such_kernel")
    from asmgen.runtime.hip_loader import HipRunner
    with pytest.raises(HipError, match="hipModuleGetFunction failed with hipErrorNotFound"):
        HipRunner(meta, gemm_kernel.hsaco, hip=fh)
    assert not fh.modules                                     # the module was unloaded again


def test_arch_mismatch(vector_add_json):
    gfx950 = FakeHip(gcn_arch_names=("gfx950:sramecc+:xnack-",))
    from asmgen.runtime import BackendError
    with pytest.raises(BackendError, match="the kernel targets gfx942 but the GPU\\(s\\) are gfx950:sramecc\\+:xnack-"):
        load(vector_add_json, backend="hip", hip=gfx950)
    run = load(vector_add_json, backend="auto", hip=gfx950)
    assert run.backend == "emu" and "gfx950" in run.backend_reason and "using the emulator" in run.backend_reason
    from asmgen.runtime.devices import check_compatible, get_device
    with pytest.raises(DeviceMismatch, match="xnack differs"):
        check_compatible("gfx942:xnack+", get_device(0, FakeHip()))


def test_unknown_and_missing_arguments(vector_add_json, fake_hip, vadd_inputs):
    a, b = vadd_inputs
    run = load(vector_add_json, backend="hip", hip=fake_hip)
    with pytest.raises(KernargError, match="unknown arguments \\['D'\\]"):
        run(A=a, B=b, C=a, D=a)
    with pytest.raises(KernargError, match="argument B: not given"):
        run(A=a, C=a)
    assert fake_hip.live_allocations == 0
    np.testing.assert_array_equal(run(A=a, B=b), a + b)     # an output not given is allocated, as emu does
    assert fake_hip.live_allocations == 0


def test_auto_picks_fake_gpu(vector_add_json, fake_hip):
    choice = select_backend("auto", arch="gfx942", hip=fake_hip)
    assert choice.name == "hip" and choice.device.arch == "gfx942"
    assert choice.reason.startswith("backend auto: GPU [0] AMD Instinct fake 0  gfx942:sramecc+:xnack-")


def test_hip_runner_runs_code_object_on_emulator(vector_add_json, vadd_inputs):
    """The fake HIP executes the real code object on isa.emu: HIP and emu runners agree bit for bit."""
    a, b = vadd_inputs
    fh = FakeHip()                                 # no Python model: the emulator runs the kernel
    hip_out = load(vector_add_json, backend="hip", hip=fh)(A=a, B=b, C=np.zeros(N, np.float32))
    emu_out = load(vector_add_json, backend="emu")(A=a, B=b, C=np.zeros(N, np.float32))
    np.testing.assert_array_equal(hip_out, a + b)
    np.testing.assert_array_equal(hip_out, emu_out)


def test_gemm_through_hip_runner_matches_emu_and_reference(gemm_kernel):
    """A generated GEMM through the HIP runner (fake HIP running the code object on isa.emu) gives the
    emulator runner's result bit for bit, and the NumPy reference within tolerance."""
    from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
    cfg = gemm_kernel.config
    inp = gemm_random_inputs(cfg, seed=2)
    fh = FakeHip()
    hip_out = load(gemm_kernel, backend="hip", hip=fh)(**inp)
    emu_out = load(gemm_kernel, backend="emu")(**inp)
    np.testing.assert_array_equal(hip_out, emu_out)
    ok, msg = compare(cfg, hip_out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], inp.get("bias"))
    assert ok, msg
    assert fh.live_allocations == 0


def test_cuda_array_interface_refusal_falls_back_to_dlpack(vector_add_json, fake_hip, vadd_inputs):
    """PyTorch raises TypeError from __cuda_array_interface__ for some dtypes (bf16): DLPack is used."""
    a, b = vadd_inputs
    _, addr = fake_hip.hipMalloc(N * 4)
    dev_c = fake_hip.device_view(addr, np.float32, N)

    class TorchLike(RocmDLPack):
        @property
        def __cuda_array_interface__(self):
            raise TypeError("dtype not supported by __cuda_array_interface__")

    t = TorchLike(dev_c)
    assert device_buffer(t).address == addr
    assert load(vector_add_json, backend="hip", hip=fake_hip)(A=a, B=b, C=t) is t
    np.testing.assert_array_equal(dev_c, a + b)


def test_versioned_dlpack_capsule(fake_hip):
    """A producer that hands out a DLPack 1.x 'dltensor_versioned' capsule is read as well."""
    _, addr = fake_hip.hipMalloc(64 * 2)
    dev = fake_hip.device_view(addr, np.float16, 64)

    class Versioned(RocmDLPack):
        def __dlpack__(self, *args, **kwargs):
            return self.arr.__dlpack__(max_version=(1, 0))

    buf = device_buffer(Versioned(dev[8:]))
    assert (buf.address, buf.nbytes, buf.itemsize, buf.is_float, buf.contiguous) == (addr + 16, 112, 2, True, True)
    strided = device_buffer(Versioned(dev[::2]))
    assert not strided.contiguous


def test_seed_accepted_like_emu(vector_add_json, fake_hip, vadd_inputs):
    a, b = vadd_inputs
    out = load(vector_add_json, backend="hip", hip=fake_hip)(seed=3, A=a, B=b)
    np.testing.assert_array_equal(out, a + b)
