"""Golden kernel-argument bytes, the same for both backends: what the HIP runner hands to
hipModuleLaunchKernel (read back from the ``extra`` array by the fake HIP) and what the emulator
runner hands to ``Emulator.launch`` are the layout of design.md ("each aligned to its own size"),
cross-checked against the offsets the code object's own metadata states."""
import struct

import numpy as np
import pytest
from fake_hip import FakeHip

from asmgen.kernarg import kernarg_size, layout, pack_kernargs, unpack_kernargs
from asmgen.runtime import load
from isa.codeobj import CodeObject

GEMM_SCALARS = struct.Struct("<6I2f")   # M N K lda ldb ldc alpha beta, right after A, B, C


def gemm_inputs(kernel, seed=0):
    cfg = kernel.config
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((cfg.m, cfg.k)).astype(np.float16)
    b = rng.standard_normal((cfg.k, cfg.n)).astype(np.float16)
    c = rng.standard_normal((cfg.m, cfg.n)).astype(np.float16)
    return {"A": a, "B": b, "C": c, "alpha": 1.5, "beta": 0.25}


def test_gemm_contract_layout_matches_code_object(gemm_kernel):
    meta = gemm_kernel.meta
    slots = [(s.arg.name, s.offset, s.size) for s in layout(meta["args"])]
    assert slots == [("A", 0, 8), ("B", 8, 8), ("C", 16, 8), ("M", 24, 4), ("N", 28, 4), ("K", 32, 4),
                     ("lda", 36, 4), ("ldb", 40, 4), ("ldc", 44, 4), ("alpha", 48, 4), ("beta", 52, 4)]
    assert kernarg_size(meta["args"]) == meta["kernarg_size"] == 56
    co = CodeObject.from_bytes(gemm_kernel.hsaco)
    md = co.metadata["amdhsa.kernels"][0]
    assert [(a[".name"], a[".offset"], a[".size"]) for a in md[".args"]] == slots


def _golden(addrs, cfg, alpha, beta):
    return struct.pack("<3Q", *addrs) + GEMM_SCALARS.pack(cfg.m, cfg.n, cfg.k, cfg.lda, cfg.ldb, cfg.ldc,
                                                          alpha, beta)


def test_hip_backend_passes_golden_kernargs(gemm_kernel):
    fh = FakeHip(run_kernels=False)
    run = load(gemm_kernel, backend="hip", hip=fh)
    inp = gemm_inputs(gemm_kernel)
    out = run(**inp)
    assert len(fh.launches) == 1
    launch = fh.launches[0]
    cfg = gemm_kernel.config
    addrs = struct.unpack_from("<3Q", launch.kernargs)
    assert launch.kernargs == _golden(addrs, cfg, 1.5, 0.25)
    assert launch.kernargs == run.last_kernargs
    assert launch.grid == (cfg.m // cfg.tile[0], cfg.n // cfg.tile[1], 1)
    assert launch.block == tuple(gemm_kernel.meta["block"]) and launch.shared == 0
    # every buffer address points at a device copy of its input; the kernel did not run: C comes back as given
    assert fh.launches and fh.live_allocations == 0
    np.testing.assert_array_equal(out, inp["C"])


def test_emu_backend_passes_golden_kernargs(gemm_kernel, monkeypatch):
    from isa.emu import Emulator
    seen, allocs = [], []
    orig_alloc = Emulator.alloc

    def rec_alloc(self, arr, name=""):
        addr = orig_alloc(self, arr, name)
        allocs.append((name, addr, arr.copy()))
        return addr

    monkeypatch.setattr(Emulator, "alloc", rec_alloc)
    monkeypatch.setattr(Emulator, "launch", lambda self, hsaco, kernel, grid, block, kernargs, dynamic_lds=0:
                        seen.append((kernel, tuple(grid), tuple(block), kernargs)))
    inp = gemm_inputs(gemm_kernel)
    load(gemm_kernel, backend="emu")(**inp)
    (kernel, grid, block, kernargs), = seen
    cfg = gemm_kernel.config
    assert kernel == gemm_kernel.name and block == tuple(gemm_kernel.meta["block"])
    assert grid == (cfg.m // cfg.tile[0], cfg.n // cfg.tile[1], 1)
    by_name = {name: (addr, arr) for name, addr, arr in allocs}
    addrs = tuple(by_name[n][0] for n in "ABC")
    assert kernargs == _golden(addrs, cfg, 1.5, 0.25)
    np.testing.assert_array_equal(by_name["A"][1], inp["A"])


def test_both_backends_agree_apart_from_addresses(gemm_kernel, monkeypatch):
    """The scalar tail (bytes 24..56) is byte-identical between the two runners."""
    from isa.emu import Emulator
    seen = []
    monkeypatch.setattr(Emulator, "launch", lambda self, hsaco, kernel, grid, block, kernargs, dynamic_lds=0:
                        seen.append(kernargs))
    inp = gemm_inputs(gemm_kernel, seed=3)
    load(gemm_kernel, backend="emu")(**inp)
    fh = FakeHip(run_kernels=False)
    load(gemm_kernel, backend="hip", hip=fh)(**inp)
    assert seen[0][24:] == fh.launches[0].kernargs[24:]
    assert len(seen[0]) == len(fh.launches[0].kernargs) == 56
    back = unpack_kernargs(gemm_kernel.meta["args"], seen[0])
    assert (back["M"], back["N"], back["K"], back["alpha"], back["beta"]) == (64, 64, 32, 1.5, 0.25)


def test_hip_device_copies_hold_the_inputs(gemm_kernel):
    """Inspect fake device memory at launch time: A and B arrive as the host arrays."""
    fh = FakeHip(run_kernels=False)
    got = {}

    def snoop(fake, args, grid, block):
        cfg = gemm_kernel.config
        got["A"] = fake.device_view(args["A"], np.float16, cfg.m * cfg.k).copy()
        got["B"] = fake.device_view(args["B"], np.float16, cfg.k * cfg.n).copy()

    fh.python_kernels[gemm_kernel.name] = snoop
    inp = gemm_inputs(gemm_kernel, seed=5)
    load(gemm_kernel, backend="hip", hip=fh)(**inp)
    np.testing.assert_array_equal(got["A"], inp["A"].ravel())
    np.testing.assert_array_equal(got["B"], inp["B"].ravel())


@pytest.mark.parametrize("n", [1000, 1])
def test_vector_add_kernargs_golden(vector_add_json, fake_hip, n):
    run = load(vector_add_json, backend="hip", hip=fake_hip)
    a = np.ones(1000, np.float32)
    run(A=a, B=a, C=np.zeros(1000, np.float32), n=n)
    raw = fake_hip.launches[-1].kernargs
    assert len(raw) == 28 and struct.unpack_from("<I", raw, 24)[0] == n
    assert raw == pack_kernargs(run.args, dict(zip("ABC", struct.unpack_from("<3Q", raw))) | {"n": n})
