"""The HIP runner through the *real* hip-python bindings, against a stand-in ``libamdhip64.so``
(tests/runtime/data/fake_amdhip64.c, compiled here) that hip-python finds through ``ROCM_PATH``.
This checks what a pure-Python double cannot: that hip-python accepts our argument objects (the
code object bytes, the kernel name, integer device addresses, NumPy host buffers, the ctypes
``extra`` array) and that the C side receives the kernarg bytes and launch dimensions we meant.
Runs in a subprocess because hip-python dlopens the library once per process."""
import ctypes
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SOURCE = HERE / "data" / "fake_amdhip64.c"
GCN = "gfx942:sramecc+:xnack-"

SCRIPT = r"""
import ctypes, json, os, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from asmgen.runtime import HipError, list_devices, load, select_backend
out = {}
devs = list_devices()
out["devices"] = [(d.index, d.name, d.gcn_arch_name, d.arch, d.compute_units, d.total_memory) for d in devs]
out["auto"] = select_backend("auto", arch="gfx942").name
run = load(sys.argv[1], backend="auto")
out["backend"] = run.backend
rng = np.random.default_rng(0)
a = rng.standard_normal(1000).astype(np.float32)
b = rng.standard_normal(1000).astype(np.float32)
c = run(A=a, B=b, C=np.zeros(1000, np.float32))
out["equal"] = bool(np.array_equal(c, a + b))
lib = ctypes.CDLL(os.path.join(os.environ["ROCM_PATH"], "lib", "libamdhip64.so"))
buf = (ctypes.c_ubyte * 4096)()
n = lib.fake_last_kernargs(buf)
out["kernargs"] = bytes(buf[:n]).hex()
out["runner_kernargs"] = run.last_kernargs.hex()
dims = (ctypes.c_uint * 6)()
lib.fake_last_dims(dims)
out["dims"] = list(dims)
lib.fake_live_allocations.restype = ctypes.c_long
out["live"] = lib.fake_live_allocations()
errors = {}
for fn, code in [("hipMalloc", 2), ("hipModuleLaunchKernel", 719), ("hipMemcpy", 1)]:
    os.environ["FAKE_HIP_FAIL"] = f"{fn}={code}"
    try:
        run(A=a, B=b, C=np.zeros(1000, np.float32))
        errors[fn] = None
    except HipError as exc:
        errors[fn] = [exc.call, exc.name, exc.code, str(exc)]
    del os.environ["FAKE_HIP_FAIL"]
out["errors"] = errors
out["live_after_errors"] = lib.fake_live_allocations()
print(json.dumps(out))
"""


def _compiler():
    for cc in ("cc", "gcc", "clang"):
        if shutil.which(cc):
            return cc
    raise AssertionError("no C compiler (cc/gcc/clang) to build the stand-in libamdhip64.so")


def _props_blob() -> bytes:
    """A hipDeviceProp_t prefix up to the end of gcnArchName, laid out by hip-python's own struct
    wrapper (the offset of gcnArchName is found by probing through its getter)."""
    from hip import hip
    p = hip.hipDeviceProp_t()
    base = int(p)
    off = None
    for cand in range(4096):
        saved = ctypes.string_at(base + cand, 5)
        ctypes.memmove(base + cand, b"gfxZ\0", 5)
        hit = p.gcnArchName == "gfxZ"
        ctypes.memmove(base + cand, saved, 5)
        if hit:
            off = cand
            break
    assert off is not None, "gcnArchName not found in hipDeviceProp_t"
    ctypes.memmove(base + off, GCN.encode() + b"\0", len(GCN) + 1)
    ctypes.memmove(base, b"AMD Instinct fake-lib\0", 22)
    p.multiProcessorCount = 304
    p.totalGlobalMem = 192 << 30
    assert (p.name, p.gcnArchName) == ("AMD Instinct fake-lib", GCN)
    return ctypes.string_at(base, off + 256)


@pytest.fixture(scope="module")
def fake_rocm(tmp_path_factory):
    root = tmp_path_factory.mktemp("fake_rocm")
    (root / "lib").mkdir()
    lib = root / "lib" / "libamdhip64.so"
    subprocess.run([_compiler(), "-shared", "-fPIC", "-O1", "-o", str(lib), str(SOURCE)], check=True,
                   capture_output=True, text=True)
    props = root / "props.bin"
    props.write_bytes(_props_blob())
    return root, props


def test_real_hip_python_against_stand_in_library(fake_rocm, vector_add_json):
    root, props = fake_rocm
    env = dict(os.environ, ROCM_PATH=str(root), FAKE_HIP_PROPS=str(props))
    env.pop("FAKE_HIP_FAIL", None)
    res = subprocess.run([sys.executable, "-c", SCRIPT, str(vector_add_json), str(HERE)], env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["devices"] == [[0, "AMD Instinct fake-lib", GCN, "gfx942", 304, 192 << 30]]
    assert out["auto"] == "hip" and out["backend"] == "hip"
    assert out["equal"] is True                                   # C model ran on our device copies
    assert out["kernargs"] == out["runner_kernargs"] and len(out["kernargs"]) == 2 * 28
    assert int.from_bytes(bytes.fromhex(out["kernargs"])[24:28], "little") == 1000
    assert out["dims"] == [4, 1, 1, 256, 1, 1]
    assert out["live"] == 0
    errs = out["errors"]
    assert errs["hipMalloc"][:3] == ["hipMalloc", "hipErrorOutOfMemory", 2]
    assert "fake: out of memory" in errs["hipMalloc"][3]
    assert errs["hipModuleLaunchKernel"][:3] == ["hipModuleLaunchKernel", "hipErrorLaunchFailure", 719]
    assert errs["hipMemcpy"][:3] == ["hipMemcpy", "hipErrorInvalidValue", 1]
    assert out["live_after_errors"] == 0


def test_cli_devices_lists_the_gpu(fake_rocm):
    root, props = fake_rocm
    env = dict(os.environ, ROCM_PATH=str(root), FAKE_HIP_PROPS=str(props))
    res = subprocess.run([sys.executable, "-m", "asmgen", "devices"], env=env, capture_output=True, text=True,
                         timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"[0] AMD Instinct fake-lib  {GCN}  304 CUs  192 GiB"
