"""The GEMM launch contract: the argument list (``gemm_args``), the runtime-size promises
(``size_multiples``), design.md "Contracts"."""
from __future__ import annotations

from ...kernarg import ArgSpec
from .config import GemmConfig

# Leading dimensions stay below 2**24: the kernel multiplies row * ld in 24 bits
# (``GemmConfig._check_extents``, cdna-facts section 5).
LD_MAX = 1 << 24


def gemm_args(cfg: GemmConfig) -> list[ArgSpec]:
    """The GEMM argument contract (design.md: names A, B, C, [bias], M, N, K, lda, ldb, ldc,
    alpha, beta, and scale_a, scale_b for 8-bit inputs: f32 scalars per tensor, or for the MX
    types uint8 E8M0 buffers [M, K/32] and [N, K/32]), in kernarg order; the prologue reads its
    kernarg offsets from it."""
    ta, tb = cfg.layout[0] == "T", cfg.layout[1] == "T"
    a_shape = (cfg.k, cfg.m) if ta else (cfg.m, cfg.k)
    b_shape = (cfg.n, cfg.k) if tb else (cfg.k, cfg.n)
    a_dims = ("K", "M") if ta else ("M", "K")
    b_dims = ("N", "K") if tb else ("K", "N")
    el = cfg.element_dtype         # an MX type's elements (its scales are scale_a/scale_b below)
    if cfg.in_type.bits < 8:
        # mxfp4: uint8 bytes of two E2M1 each, paired along the contiguous dimension: along K
        # (even K in the low nibble) for a K-contiguous operand, along M / N (even M / N in the
        # low nibble; an odd M / N leaves the last byte's high nibble as padding) for an
        # MN-contiguous one; rows of lda / 2 (ldb / 2) bytes, "M/2" rounds up
        per = 8 // cfg.in_type.bits
        args = [ArgSpec(name, "buffer", "u8", (shape[0], -(-shape[1] // per)), (ld // per, 1),
                        "in", dims=(dims[0], f"{dims[1]}/{per}"), ld=f"{ldn}/{per}")
                for name, shape, dims, ld, ldn in (("A", a_shape, a_dims, cfg.lda, "lda"),
                                                   ("B", b_shape, b_dims, cfg.ldb, "ldb"))]
    else:
        args = [ArgSpec("A", "buffer", el, a_shape, (cfg.lda, 1), "in", dims=a_dims, ld="lda"),
                ArgSpec("B", "buffer", el if cfg.mx else cfg.b_type.name, b_shape, (cfg.ldb, 1),
                        "in", dims=b_dims, ld="ldb")]
    args += [
            ArgSpec("C", "buffer", cfg.out_dtype, (cfg.m, cfg.n), (cfg.ldc, 1), "inout",
                    ld="ldc", rows="M", dims=("M", "N"))]
    if cfg.bias:
        args.append(ArgSpec("bias", "buffer", "f32", (cfg.n,), (1,), "in", dims=("N",)))
    mult = size_multiples(cfg)
    for name in ("M", "N", "K", "lda", "ldb", "ldc"):
        val = {"M": cfg.m, "N": cfg.n, "K": cfg.k}.get(name) or getattr(cfg, name)
        # baked sizes are constants of the code: the runtime value must be the baked one
        rng = (val, val) if cfg.bake_sizes else (1, LD_MAX - 1 if name.startswith("ld") else None)
        args.append(ArgSpec(name, "scalar", "u32", value=val, multiple_of=mult.get(name),
                            range=rng))
    args.append(ArgSpec("alpha", "scalar", "f32", value=1.0))
    args.append(ArgSpec("beta", "scalar", "f32", value=0.0))
    if cfg.scaled:      # dequantisation scales of 8-bit inputs (issue 15, fixed names)
        args.append(scale_arg("scale_a", cfg.scale_a_mode, cfg.m, "M"))
        args.append(scale_arg("scale_b", cfg.scale_b_mode, cfg.n, "N"))
    if cfg.mx:          # MX block scales: E8M0 bytes, one per 32 K-elements of a row of A / B
        kb = cfg.k // cfg.in_type.block
        kdim = f"K/{cfg.in_type.block}"
        args.append(ArgSpec("scale_a", "buffer", "u8", (cfg.m, kb), (kb, 1), "in",
                            dims=("M", kdim)))
        args.append(ArgSpec("scale_b", "buffer", "u8", (cfg.n, kb), (kb, 1), "in",
                            dims=("N", kdim)))
    return args


def scale_arg(name: str, mode: str, size: int, dim: str) -> ArgSpec:
    """scale_a / scale_b: an f32 scalar ("tensor"), a one-element f32 buffer ("ptr", read on the
    device), or an f32 vector over M (scale_a "row") / N (scale_b "col")."""
    if mode == "tensor":
        return ArgSpec(name, "scalar", "f32", value=1.0)
    if mode == "ptr":
        return ArgSpec(name, "buffer", "f32", (1,), (1,), "in", dims=(1,))
    return ArgSpec(name, "buffer", "f32", (size,), (1,), "in", dims=(dim,))


def size_multiples(cfg: GemmConfig) -> dict[str, int]:
    """What the kernel assumes of its runtime sizes (checked when arguments are packed): K a
    multiple of ``k_multiple``; each operand's contiguous size and leading dimension multiples
    of its global-load vector (a vector must not straddle a row end, ``GemmConfig``)."""
    out: dict[str, int] = {}

    def need(name: str, m: int) -> None:
        if m > 1:
            out[name] = max(out.get(name, 1), m)    # powers of two: the max is the lcm
    need("K", cfg.k_multiple)
    for op, ld in (("a", "lda"), ("b", "ldb")):
        vec = cfg.vec_a if op == "a" else cfg.vec_b
        if cfg.k_contig(op):
            need("K", vec)
        elif cfg.in_type.bits >= 8:   # fp4 MN vectors may run into the row padding (config)
            need("M" if op == "a" else "N", vec)
        need(ld, vec)
    return out
