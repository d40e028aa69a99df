"""``bake_sizes``: M, N, K and the leading dimensions become constants of the kernel (only alpha
and beta are read from the kernel arguments); the result is still right on the emulator."""
import pytest

from asmgen.api import gemm, load
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs


@pytest.mark.parametrize("arch, layout", [("gfx942", "TN"), ("gfx950", "NT")])
def test_baked_sizes(arch, layout):
    kw = dict(arch=arch, layout=layout, dtype="bf16")
    if arch == "gfx950":
        kw.update(tile=(32, 32, 32), waves=(1, 1))
    kern = gemm(77, 45, 33, bake_sizes=True, **kw)
    assert "s_load_dwordx8" not in kern.asm                     # the sizes are not loaded ...
    movs = [ln for ln in kern.asm.splitlines() if ln.strip().startswith("s_mov_b32")]
    for size in (77, 45, 33):
        assert any(ln.rstrip().endswith((f", {size}", f", {hex(size)}")) for ln in movs), size
    assert gemm(77, 45, 33, **kw).name != kern.name             # ... and the name says so
    inp = gemm_random_inputs(kern.config, 2)
    out = load(kern, seed=2)(**inp)
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], None)
    assert ok, msg
