"""GemmConfig / Target validation: each limit rejects with a message naming the value and limit."""
import pytest

from asmgen.errors import ConfigError
from asmgen.kinds.gemm.config import GemmConfig
from asmgen.target import Target


def test_defaults_resolve():
    c = GemmConfig(m=100, n=64, k=40)
    assert c.out_dtype == "f16"
    assert c.mfma == (32, 32, 8)
    assert (c.lda, c.ldb, c.ldc) == (40, 64, 64)
    assert c.vec_a == 8 and c.vec_b == 2           # K-contiguous A by 8; MN-contiguous B by 2
    assert c.grid == (2, 1, 1)
    assert c.k_iters == 2
    assert GemmConfig(m=64, n=64, k=64, arch="gfx950").mfma == (32, 32, 16)


def test_transposed_leading_dims():
    c = GemmConfig(m=30, n=20, k=10, layout="TT")
    assert (c.lda, c.ldb) == (30, 10)
    assert c.vec_a == 2 and c.vec_b == 2            # M=30 even; B^T is K-contiguous, K=10
    c = GemmConfig(m=31, n=20, k=9, layout="TT")
    assert c.vec_a == 1 and c.vec_b == 1            # odd M: single elements; odd K likewise


@pytest.mark.parametrize("kw, match", [
    (dict(m=0), r"m=0 must be an integer >= 1"),
    (dict(dtype="f32"), r"dtype 'f32' is not one of"),
    (dict(out_dtype="i8"), r"out_dtype 'i8'"),
    (dict(layout="NX"), r"layout 'NX'"),
    (dict(arch="gfx90a"), r"arch 'gfx90a'"),
    (dict(mfma=(32, 32, 16)), r"MFMA shape 32x32x16 is not available for f16 on gfx942"),
    (dict(arch="gfx950", mfma=(4, 4, 4)), r"MFMA shape 4x4x4 is not available .* gfx950"),
    (dict(tile=(48, 64, 32)), r"tile M = 48 must be a power of two"),
    (dict(tile=(64, 64, 32), waves=(4, 1)), r"tile M 64 is not divisible by waves M 4 x MFMA M 32"),
    (dict(tile=(64, 64, 4)), r"DepthU\) 4 is not divisible by MFMA K 8"),
    (dict(prefetch=4), r"prefetch depth 4 is not 1, 2 or 3"),
    (dict(staging=3), r"staging 3 is not 1 or 2"),
    (dict(lda=10), r"lda=10 is smaller than the row length 64"),
    (dict(vec_a=8, k=60), r"vec_a=8 does not divide K=60"),
    (dict(layout="TN", vec_a=4), r"vec_a=4 is not one of \(2, 1\) \(the MN-contiguous operand"),
    (dict(layout="TN", vec_a=2, m=63, lda=64), r"vec_a=2 does not divide M=63"),
    (dict(tile=(256, 256, 64), waves=(2, 2), prefetch=3),
     r"LDS use \d+ bytes \(4 buffers x \d+\) exceeds the 65536 byte limit of gfx942"),
    (dict(tile=(256, 256, 16), waves=(1, 1)), r"accumulators need 1024 AGPRs per lane, above the 256"),
    (dict(waves=(4, 8), tile=(128, 256, 32)), r"32 waves exceed 16 per workgroup"),
    (dict(lds_pad=3), r"lds_pad 3 must be a non-negative multiple of 4"),
    (dict(activation="relu"), r"activation 'relu'"),
    (dict(m=40000, k=40000), r"A spans 3200000000 bytes, above the 2 GiB"),
    (dict(ldc=1 << 24), r"leading dimension of C = 16777216 exceeds 2\*\*24"),
])
def test_rejections(kw, match):
    base = dict(m=64, n=64, k=64)
    base.update(kw)
    with pytest.raises(ConfigError, match=match):
        GemmConfig(**base)


def test_gfx950_lds_limit_is_larger():
    # 4 buffers x (256+256) x (64+8) x 2 B = 294912 > 160 KiB even on gfx950; 2 buffers fit there
    with pytest.raises(ConfigError, match="163840 byte limit of gfx950"):
        GemmConfig(m=256, n=256, k=64, arch="gfx950", tile=(256, 256, 64), waves=(2, 2), prefetch=3)
    c = GemmConfig(m=256, n=128, k=64, arch="gfx950", tile=(256, 128, 64), waves=(2, 2), prefetch=1)
    assert c.lds_bytes == 2 * 384 * 144 > 65536


def test_direct_to_lds_rules():
    c = GemmConfig(m=64, n=64, k=64, layout="NT", arch="gfx950", direct_to_lds=True)
    assert (c.vec_a, c.vec_b, c.pad) == (8, 8, 0)                  # dwordx4 ... lds on gfx950
    assert GemmConfig(m=64, n=64, k=64, layout="NT", direct_to_lds=True).vec_a == 2   # gfx942
    with pytest.raises(ConfigError, match="direct_to_lds needs unpadded LDS rows"):
        GemmConfig(m=64, n=64, k=64, direct_to_lds=True, lds_pad=8)
    with pytest.raises(ConfigError, match="layout TN has no K-contiguous operand"):
        GemmConfig(m=64, n=64, k=64, layout="TN", direct_to_lds=True)
    with pytest.raises(ConfigError, match="needs K=63 and the leading dimension 63 even"):
        GemmConfig(m=64, n=64, k=63, direct_to_lds=True)


def test_target_rejects_unknown_arch():
    with pytest.raises(ConfigError, match="arch 'gfx1100'"):
        Target("gfx1100")


def test_frozen_and_hashable():
    c = GemmConfig(m=64, n=64, k=64)
    with pytest.raises(AttributeError):
        c.m = 5
    assert hash(c) == hash(GemmConfig(m=64, n=64, k=64))
    assert c.to_dict()["tile"] == [64, 64, 32]
