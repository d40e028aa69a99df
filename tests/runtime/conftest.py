"""Fixtures of the runtime tests: the vector-add contract (examples/vector_add.py), a small GEMM
kernel from ``asmgen.gemm``, the fake HIP module, and an isolated cache folder."""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))   # fake_hip

from fake_hip import VADD_N as N
from fake_hip import FakeHip

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vector_add.py"


@pytest.fixture(scope="session")
def vector_add_dir(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("vector_add_example_rt", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path_factory.mktemp("vadd")
    assert mod.main(["-o", str(out), "--n", str(N)]) == 0
    return out


@pytest.fixture(scope="session")
def vector_add_json(vector_add_dir):
    return vector_add_dir / "vector_add.json"


def vadd_model(fh, args, grid, block):
    """Python model of vector_add over fake device memory: C[i] = A[i] + B[i] for i < n."""
    n = int.from_bytes(args["n"], "little")
    a, b, c = (fh.device_view(args[k], np.float32, n) for k in "ABC")
    c[:] = a + b


@pytest.fixture
def fake_hip():
    return FakeHip(python_kernels={"vector_add": vadd_model})


@pytest.fixture(scope="session")
def gemm_kernel():
    from asmgen import api
    return api.gemm(64, 64, 32, dtype="f16")


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("ASMGEN_CACHE_DIR", str(root))
    return root


@pytest.fixture
def vadd_inputs():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    return a, b
