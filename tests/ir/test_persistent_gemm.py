"""Proof kernel A: an outer loop over output tiles around a K loop (persistent-GEMM shape, built
with ``KernelIR.do_loop``), compiled by the ordinary pass pipeline, assembled by LLVM and run on
the emulator against NumPy; plus what the CFG passes must have done across the nested loops."""
from __future__ import annotations

import numpy as np
import pytest
from persistent_gemm import assemble, build, problem, run

from asmgen.toolchain import find_toolchain


def test_cfg_shape_nested_loops():
    k = build()
    succ = k.successors()
    names = [b.name for b in k.blocks()]
    assert names == ["prologue", "loop_tile", "loop_k", "tile_store", "epilogue"]
    assert succ["prologue"] == ["loop_tile"] and succ["loop_tile"] == ["loop_k"]
    assert succ["loop_k"] == ["tile_store", "loop_k"]            # inner back-edge
    assert succ["tile_store"] == ["epilogue", "loop_tile"]       # outer back-edge
    outer, inner = k.loops
    assert inner.parent is outer and outer.parent is None
    assert {b.name for b in outer.blocks} == {"loop_tile", "loop_k", "tile_store"}
    c, _ = assemble()
    loops = {(c.stream.blocks[h].name, c.stream.blocks[l].name) for h, l, _ in c.stream.loops()}
    assert loops == {("loop_tile", "tile_store"), ("loop_k", "loop_k")}


def _block(c, name):
    return next(b for b in c.stream.blocks if b.name == name)


def test_passes_across_nested_back_edges():
    from asmgen.passes.hazards import check_hazards
    from asmgen.passes.waitcnt import check_program
    c, _ = assemble()
    kb = [str(n.instr) for n in _block(c, "loop_k").nodes]
    mf = next(i for i, t in enumerate(kb) if t.startswith("v_mfma"))
    assert kb[mf - 1] == "s_waitcnt vmcnt(0)"            # both loads of this K-step
    assert not any(t.startswith("s_waitcnt") for t in kb[:mf - 1])
    store = _block(c, "tile_store")
    texts = [str(n.instr) for n in store.nodes]
    first = next(i for i, t in enumerate(texts) if t.startswith("buffer_store"))
    nops = [i for i, t in enumerate(texts[:first]) if t.startswith("s_nop")]
    # the inner loop's last MFMA -> the stores' reads of acc: wait states on the exit edge
    assert nops, texts
    assert not check_hazards(c.stream) and not check_program(c.stream)
    del store.nodes[nops[0]]
    problems = check_hazards(c.stream)
    assert problems and "v_mfma_f32_32x32x8_f16" in problems[0] and "tile_store" in problems[0]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("tm,tn_log2,k_iters,n_wg", [(2, 1, 3, 1), (2, 2, 1, 2), (1, 1, 5, 2),
                                                     (3, 1, 2, 3)])
def test_emulator_matches_numpy(arch, tm, tn_log2, k_iters, n_wg):
    tn = 1 << tn_log2
    _, asm = assemble(arch, tn_log2)
    hsaco = find_toolchain().assemble(asm, arch)
    a, b = problem(tm, tn, k_iters, seed=tm * 7 + k_iters)
    got = run(hsaco, a, b, k_iters, n_wg, seed=k_iters, arch=arch)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)
