"""Golden ``.s`` of a few GEMM and attention configs, so a reviewer sees what a change does to the code.

A mismatch fails with a unified diff; refresh on purpose with ``python -m pytest tests/golden
--update-golden`` and commit the new files with the change that caused them.
"""
from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from asmgen.api import gemm
from asmgen.api import attention

HERE = Path(__file__).parent / "data"

CASES = {
    "gemm_f16_nn_pgr1_gfx942": lambda: gemm(m=256, n=256, k=256, dtype="f16", arch="gfx942",
                                            schedule="pgr1", assemble=False),
    "gemm_bf16_nt_pgr2_p2_gfx942": lambda: gemm(m=512, n=512, k=512, dtype="bf16", arch="gfx942",
                                                layout="NT", schedule="pgr2", prefetch=2,
                                                tile=(128, 128, 32), assemble=False),
    "gemm_f16_nt_ck_v4_lds_dma_gfx950": lambda: gemm(m=257, n=255, k=100, dtype="f16", arch="gfx950",
                                                     layout="NT", schedule="ck_v4",
                                                     direct_to_lds=True, assemble=False),
    "attention_f16_d128_causal_gfx942": lambda: attention(batch=1, heads=4, kv_heads=2, seqlen_q=128,
                                                          seqlen_k=128, head_dim=128, dtype="f16",
                                                          causal=True, arch="gfx942", assemble=False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_asm_matches_golden(name, request):
    text = CASES[name]().asm
    path = HERE / f"{name}.s"
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"no golden file {path}; create it with --update-golden"
    want = path.read_text()
    if text != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                            f"golden/{name}.s", "generated", n=2))
        pytest.fail(f"{name}: generated .s differs from the golden file "
                    f"(refresh with --update-golden if intended):\n{diff[:6000]}")
