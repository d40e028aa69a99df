"""Non-temporal A/B loads: the cache bits (sc0=1 | sc1=2 | nt=4, cdna-facts section 5) land on
every global read of A and B, nowhere else, the kernel assembles and stays correct."""
import pytest

from asmgen.api import gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs


@pytest.mark.parametrize("bits, words, opts", [
    (4, ("nt",), dict(arch="gfx942", layout="NN")),
    (7, ("sc0", "sc1", "nt"), dict(arch="gfx950", layout="NT", direct_to_lds=True, tile=(32, 32, 32),
                                   waves=(1, 1))),
])
def test_cache_bits_on_global_reads(bits, words, opts):
    kern = gemm(70, 40, 50, dtype="f16", nontemporal=bits, **opts)   # assembled by gemm()
    loads = [ln.split("//")[0] for ln in kern.asm.splitlines() if "buffer_load" in ln]
    ab = [ln for ln in loads if " offen" in ln and "ushort" not in ln or " lds" in ln]
    assert ab, "no A/B loads found"
    for ln in ab:
        for w in words:
            assert f" {w}" in ln, f"{w} missing on {ln.strip()}"
    inp = gemm_random_inputs(kern.config, 1)
    out = load(kern, seed=1)(**inp)
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], None)
    assert ok, msg


@pytest.mark.parametrize("bad", [8, -1, True])
def test_bad_mask_is_rejected(bad):
    with pytest.raises(ConfigError, match=r"nontemporal=.*0\.\.7"):
        gemm(64, 64, 64, nontemporal=bad, assemble=False)
