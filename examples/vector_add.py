"""Vector add C[i] = A[i] + B[i] over f32, hand-built with KernelBuilder: the smallest end-to-end kernel.

Buffer loads/stores through SRDs built in SGPRs from the kernarg pointers (cdna-facts section 5:
dword3 = 0x00020000, raw buffer, num_records = n * 4 bytes), so lanes past n read 0 and their stores
are dropped by the hardware range check: no branch needed for the tail.

Run: ``python examples/vector_add.py [--arch gfx942] [-o DIR] [--n 1000] [--run]`` writes
``vector_add.s``, ``.hsaco`` and the ``.json`` launch contract; ``--run`` also runs it on the emulator
and compares with NumPy.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from asmgen import __version__
from asmgen.builder import KernelBuilder
from asmgen.emit import emit_kernel
from asmgen.kernarg import ArgSpec, pack_kernargs
from asmgen.program import KernelResources
from asmgen.toolchain import find_toolchain
from isa.codeobj import CodeObject
from isa.operands import s, v
from isa.waitcnt_enc import waitcnt_imm

NAME = "vector_add"
BLOCK = 256
SRD_DWORD3 = 0x00020000   # data_format 32-bit, everything else 0 (cdna-facts section 5, CK/Tensile value)


def vector_add_args() -> list[ArgSpec]:
    return [ArgSpec("A", "buffer", "f32", io="in"), ArgSpec("B", "buffer", "f32", io="in"),
            ArgSpec("C", "buffer", "f32", io="out"), ArgSpec("n", "scalar", "u32")]


def build_vector_add(arch: str = "gfx942", name: str = NAME) -> tuple[str, KernelResources]:
    """The kernel's ``.s`` text and its resources (kernarg: A@0, B@8, C@16, n@24)."""
    b = KernelBuilder(arch)
    # Initial state (cdna-facts section 8): s[0:1] kernarg pointer, s2 workgroup id x, v0 work-item id.
    kernarg, wg_x = s(0, 2), s(2)
    srd_a, srd_b, srd_c, n = s(4, 4), s(8, 4), s(12, 4), s(3)
    base = s(16)
    b.emit("s_load_dwordx2", srd_a.sub(0, 2), kernarg, 0x0)
    b.emit("s_load_dwordx2", srd_b.sub(0, 2), kernarg, 0x8)
    b.emit("s_load_dwordx2", srd_c.sub(0, 2), kernarg, 0x10)
    b.emit("s_load_dword", n, kernarg, 0x18)
    b.emit("v_and_b32", v(0), 0x3FF, v(0))             # x id: bits 9:0 of v0 on gfx90a+
    b.emit("s_lshl_b32", base, wg_x, 8)                # first element of this workgroup (BLOCK = 256)
    b.emit("v_add_u32", v(1), base, v(0))
    b.emit("v_lshlrev_b32", v(1), 2, v(1))             # byte offset of element i
    b.emit("s_waitcnt", waitcnt_imm(lgkmcnt=0))
    b.emit("s_lshl_b32", srd_a.sub(2), n, 2)           # num_records = n * 4 bytes
    b.emit("s_mov_b32", srd_a.sub(3), SRD_DWORD3)
    for srd in (srd_b, srd_c):
        b.emit("s_mov_b32", srd.sub(2), srd_a.sub(2))
        b.emit("s_mov_b32", srd.sub(3), srd_a.sub(3))
    b.emit("buffer_load_dword", v(2), v(1), srd_a, 0, offen=True)
    b.emit("buffer_load_dword", v(3), v(1), srd_b, 0, offen=True)
    b.emit("s_waitcnt", waitcnt_imm(vmcnt=0))
    b.emit("v_add_f32", v(2), v(2), v(3))
    b.emit("buffer_store_dword", v(2), v(1), srd_c, 0, offen=True)
    b.emit("s_endpgm")
    res = b.resources(name, args=vector_add_args(), max_flat_workgroup_size=BLOCK)
    return emit_kernel(b.program(), res), res


def launch_dims(n: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid in workgroups, block in work-items) for ``n`` elements."""
    return (max(1, -(-n // BLOCK)), 1, 1), (BLOCK, 1, 1)


def contract(res: KernelResources, n: int, toolchain_version: str) -> dict:
    """The ``.json`` launch contract of design.md for ``n`` elements."""
    grid, block = launch_dims(n)
    args = []
    for a in res.args:
        d = a.to_dict()
        if a.kind == "buffer":
            d["shape"], d["strides"] = [n], [1]
        else:
            d["value"] = n
        args.append(d)
    return {"kernel": res.name, "arch": res.arch, "grid": list(grid), "block": list(block),
            "lds_bytes": res.lds_bytes, "kernarg_size": res.kernarg_size, "args": args,
            "config": {"n": n}, "schedule": "none",
            "resources": {"vgpr": res.vgprs, "agpr": res.agprs, "sgpr": res.sgprs, "lds": res.lds_bytes,
                          "waves_per_simd": res.waves_per_simd},
            "toolchain": toolchain_version, "asmgen": __version__}


def run_on_emulator(hsaco: bytes, arch: str, n: int, seed: int = 0) -> bool:
    """Run the kernel on isa.emu with random inputs; True when C == A + B exactly."""
    from isa.emu import Emulator
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(np.float32)
    bb = rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    emu = Emulator(arch=arch, seed=seed)
    kernargs = pack_kernargs(vector_add_args(), {"A": a, "B": bb, "C": c, "n": n}, emu.alloc)
    grid, block = launch_dims(n)
    emu.launch(hsaco, kernel=NAME, grid=grid, block=block, kernargs=kernargs)
    return bool(np.array_equal(c, a + bb))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arch", default="gfx942", choices=["gfx942", "gfx950"])
    p.add_argument("--n", type=int, default=1000, help="elements (for the .json contract and --run)")
    p.add_argument("-o", "--out", default="out", help="output folder")
    p.add_argument("--run", action="store_true", help="also run it on the emulator")
    args = p.parse_args(argv)
    asm, res = build_vector_add(args.arch)
    tc = find_toolchain()
    hsaco = tc.assemble(asm, args.arch)
    info = CodeObject.from_bytes(hsaco).kernel(res.name)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{res.name}.s").write_text(asm)
    (out / f"{res.name}.hsaco").write_bytes(hsaco)
    (out / f"{res.name}.json").write_text(json.dumps(contract(res, args.n, tc.version), indent=2) + "\n")
    d = info.descriptor
    print(f"{res.name} for {args.arch}: {len(info.code)} bytes of code, {res.vgprs} VGPRs, "
          f"{res.sgprs} SGPRs, kernarg {d.kernarg_size} B; toolchain {tc.kind} ({tc.version})")
    print(f"wrote {out}/{res.name}.s, .hsaco, .json")
    if args.run:
        ok = run_on_emulator(hsaco, args.arch, args.n)
        print("emulator:", "C == A + B" if ok else "MISMATCH")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
