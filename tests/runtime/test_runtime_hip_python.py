"""The HIP error path with the real hip-python bindings. On this machine hip-python is installed and
ROCm is not: the bindings import, and the first HIP call fails to dlopen ``libamdhip64.so``; asmgen
must turn that into ``HipUnavailable`` naming the library and how to install it. Where ROCm *is*
present the same tests check the opposite (the runtime loads). hip-python missing altogether is
simulated by hiding the module."""
import ctypes
import logging
import os
import sys

import pytest

from asmgen.runtime import HipUnavailable, list_devices, load, select_backend
from asmgen.runtime.hipapi import HIP_LIBRARY, hip_api


def _rocm_loadable() -> bool:
    from rocm.bindings.util.paths import get_library_path
    try:
        ctypes.CDLL(os.fsdecode(get_library_path("amdhip64")))
        return True
    except OSError:
        return False


ROCM = _rocm_loadable()


def test_hip_python_imports_without_rocm():
    hip = hip_api()
    assert hasattr(hip, "hipModuleLaunchKernel") and hasattr(hip, "hipModuleLoadData")
    assert (hip.HIP_LAUNCH_PARAM_BUFFER_POINTER, hip.HIP_LAUNCH_PARAM_BUFFER_SIZE, hip.HIP_LAUNCH_PARAM_END) == (1, 2, 3)


def test_list_devices_names_missing_library():
    if ROCM:
        assert isinstance(list_devices(), list)
        return
    with pytest.raises(HipUnavailable) as info:
        list_devices()
    exc = info.value
    assert exc.missing == HIP_LIBRARY == "libamdhip64.so"
    msg = str(exc)
    assert "hipGetDeviceCount: the HIP runtime library libamdhip64.so cannot be loaded" in msg
    assert "apt install rocm-hip-runtime" in msg and "pip install hip-python" in msg


def test_load_hip_backend_raises_hip_unavailable(gemm_kernel):
    if ROCM:
        return   # covered by tests/gpu
    with pytest.raises(HipUnavailable, match="libamdhip64.so cannot be loaded"):
        load(gemm_kernel, backend="hip")


def test_auto_picks_emulator_and_says_why(gemm_kernel, caplog):
    caplog.set_level(logging.INFO, logger="asmgen.runtime")
    choice = select_backend("auto", arch="gfx942")
    if ROCM and choice.name == "hip":
        return
    assert choice.name == "emu"
    assert choice.reason.startswith("no ROCm GPU found: ") and choice.reason.endswith("; using the emulator")
    if not ROCM:
        assert "libamdhip64.so" in choice.reason
    assert any(r.name == "asmgen.runtime" and "no ROCm GPU found" in r.getMessage() for r in caplog.records)
    run = load(gemm_kernel, backend="auto")
    assert run.backend == "emu" and run.backend_reason == choice.reason


def test_hip_python_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "hip", None)     # import hip -> ImportError
    with pytest.raises(HipUnavailable) as info:
        list_devices()
    assert info.value.missing == "hip-python"
    assert "pip install hip-python" in str(info.value)
    choice = select_backend("auto")
    assert choice.name == "emu" and "HIP Python bindings are not importable" in choice.reason


def test_real_binding_accepts_our_extra_array():
    """hip-python turns the ctypes ``extra`` array into the void** it hands to hipModuleLaunchKernel,
    unchanged: same address, and the five words are BUFFER_POINTER, &buf, BUFFER_SIZE, &size, END."""
    from rocm.bindings._hip_helpers import HipModuleLaunchKernel_extra

    from asmgen.runtime.hip_loader import launch_extra
    hip = hip_api()
    payload = bytes(range(56))
    extra, _keep = launch_extra(hip, payload)   # _keep holds the buffers extra points to
    ptr = int(HipModuleLaunchKernel_extra.fromObj(extra))
    assert ptr == ctypes.addressof(extra)
    words = (ctypes.c_void_p * 5).from_address(ptr)
    assert (words[0], words[2], words[4]) == (1, 2, 3)
    assert ctypes.c_size_t.from_address(words[3]).value == 56
    assert ctypes.string_at(words[1], 56) == payload


def test_cli_devices_without_gpu(capsys):
    from asmgen.cli import main
    rc = main(["devices"])
    out, err = capsys.readouterr()
    if ROCM and rc == 0:
        assert "gfx" in out
        return
    assert rc == 1
    assert err.startswith("no ROCm GPU found: ")
    if not ROCM:
        assert "libamdhip64.so" in err
