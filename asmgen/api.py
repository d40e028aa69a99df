"""The Python API, per design.md "Python API": ``generate(kind, schedule=..., **config) -> Kernel``
for any registered kernel kind, the named front doors ``gemm(...)`` and ``attention(...)``, and
``load(kernel_or_json, backend) -> runner`` (NumPy in, NumPy out).

A ``Kernel`` (``asmgen.kernel``) carries ``.asm`` (the .s text), ``.hsaco`` (code object bytes)
and ``.meta`` (the .json launch contract of design.md), and ``.save(dir)`` writes
``<name>.s/.hsaco/.json``. Schedule names are resolved here, through ``asmgen.recipes`` (which
imports the recipe providers, ``schedules``, by name); the driver (``asmgen.driver.compile``)
takes the recipe object. The ``emu`` backend runs the code object on ``isa.emu.Emulator``; the
arguments are packed by ``asmgen.kernarg`` from the contract, so any other runner can do the same
from the .json alone.
"""
from __future__ import annotations

from . import recipes
from .driver import check_occupancy, check_recipe_kind, compile, resolve  # noqa: F401  (re-exported)
from .errors import ConfigError
from .kernel import Kernel
from .kinds import registry
from .kinds.gemm.contract import gemm_args, size_multiples  # noqa: F401  (re-exported)
from .target import DEFAULT_ARCH

DEFAULT_SCHEDULE = "pgr1"
DEFAULT_ATTENTION_SCHEDULE = "attn_basic"


def generate(kind, schedule: str | None = None, schedule_params: dict | None = None,
             assemble: bool = True, toolchain=None, cache: bool | None = None,
             **config) -> Kernel:
    """A kernel of ``kind`` (a registered name or ``KernelKind``): ``schedule`` names a recipe
    (default: the kind's), ``schedule_params`` its parameters (recipes only order), ``config``
    the kind's keywords; the fields the caller leaves out take the recipe's ``defaults``
    (``KernelKind.make_config``) and the recipe checks those it ``requires``. An assembled kernel
    comes from the on-disk cache (``asmgen.cache``) unless ``cache=False`` or
    ``ASMGEN_NO_CACHE=1``: a repeated call skips template, passes and assembler."""
    if assemble and cache_enabled(cache):
        from .cache import cached_generate
        kern, _ = cached_generate(kind, schedule=schedule, schedule_params=schedule_params,
                                  toolchain=toolchain, **config)
        return kern
    k = registry.get(kind)
    cfg_kw, recipe = resolve(k, schedule, schedule_params, config)
    cfg = k.make_config(recipe, **cfg_kw)
    return compile(k, cfg, recipe, toolchain=toolchain, assemble=assemble)


def cache_enabled(cache: bool | None) -> bool:
    """The kernel cache is on unless ``cache=False`` or ``ASMGEN_NO_CACHE=1`` (``cache=True``
    wins over the variable)."""
    if cache is not None:
        return bool(cache)
    import os
    return os.environ.get("ASMGEN_NO_CACHE", "") in ("", "0")


def gemm(m: int, n: int, k: int, dtype: str = "f16", arch: str = DEFAULT_ARCH, layout: str = "NN",
         out_dtype: str | None = None, schedule: str = DEFAULT_SCHEDULE, tile=(64, 64, 32),
         waves=(2, 2), prefetch: int | None = None, mfma=None, activation: str = "none",
         bias: bool = False, lda: int | None = None, ldb: int | None = None,
         ldc: int | None = None, schedule_params: dict | None = None,
         assemble: bool = True, **tuning) -> Kernel:
    """Generate a GEMM kernel ``C = alpha * op(A) @ op(B) + beta * C`` (design.md).

    ``schedule`` names a recipe of ``schedules`` (``pgr1``, ``pgr2``, ``ck_v4``; its
    ``schedule_params`` only order). Further keyword ``tuning`` goes to ``GemmConfig`` (``lds_pad``,
    ``vec_a``, ``vec_b``, ``direct_to_lds``, ``staging``, ``arrangement``, ``frag_buffers``);
    ``prefetch`` and the other pipeline-shape fields the caller leaves out take the recipe's
    ``defaults`` (pgr2: prefetch 2; ck_v4: frag_buffers 2; pingpong/interleave: their
    arrangement), then the config's."""
    return generate("gemm", schedule, schedule_params, assemble, m=m, n=n, k=k, dtype=dtype,
                    arch=arch, layout=layout, out_dtype=out_dtype, tile=tile, waves=waves,
                    prefetch=prefetch, mfma=mfma, activation=activation, bias=bias, lda=lda,
                    ldb=ldb, ldc=ldc, **tuning)


def attention(batch: int = 1, heads: int = 1, kv_heads: int | None = None, seqlen_q: int = 128,
              seqlen_k: int = 128, head_dim: int = 64, dtype: str = "f16", causal: bool = False,
              arch: str = DEFAULT_ARCH, schedule: str = DEFAULT_ATTENTION_SCHEDULE,
              scale: float | None = None, schedule_params: dict | None = None,
              assemble: bool = True, waves: int = 1, kv_buffers: int | None = None,
              seqlen_k_multiple: int = 1, cache: bool | None = None) -> Kernel:
    """Generate a flash-attention forward kernel (design.md); ``schedule`` names a recipe
    (``attn_basic``, ``attn_interleave``, ``attn_prio``, ``attn_prio_interleave``, or
    ``shuffle`` for fuzzing); ``waves`` (1, 2, 4) per workgroup share K/V through
    ``kv_buffers`` LDS buffers; ``seqlen_k_multiple`` promises the runtime seqlen_k is a
    multiple of it (checked at launch; a multiple of 32 drops the key mask when not causal)."""
    return generate("attention", schedule, schedule_params, assemble, batch=batch, heads=heads,
                    kv_heads=kv_heads, seqlen_q=seqlen_q, seqlen_k=seqlen_k, head_dim=head_dim,
                    dtype=dtype, causal=causal, arch=arch, scale=scale, waves=waves,
                    kv_buffers=kv_buffers, seqlen_k_multiple=seqlen_k_multiple, cache=cache)


def compile_config(cfg, recipe, toolchain=None, assemble: bool = True) -> Kernel:
    """Template -> schedule -> passes -> emit -> (assemble) for a config of any kind (the kind is
    the one whose config type ``cfg`` is) under a recipe object."""
    return compile(registry.of_config(cfg), cfg, recipe, toolchain=toolchain, assemble=assemble)


def compile_attention(cfg, recipe, toolchain=None, assemble: bool = True,
                      limits: dict | None = None) -> Kernel:
    """``compile_config`` with register-file ``limits`` (tests of the register budget)."""
    return compile(registry.of_config(cfg), cfg, recipe, toolchain=toolchain, assemble=assemble,
                   limits=limits)


def get_recipe(name: str, **params):
    """The recipe object ``name`` with ``params`` (``asmgen.recipes.get``)."""
    return recipes.get(name, **params)


get_attention_recipe = get_recipe


def load(kernel_or_json, backend: str = "emu", seed: int = 0, **kw):
    """A runner for a ``Kernel`` or a ``.json`` contract path: ``emu`` (``EmuRunner`` on
    isa.emu), ``hip`` (a ROCm GPU) or ``auto``; the backend switch is
    ``asmgen.runtime.load`` (``device=``, ``hip=`` pass through)."""
    from .runtime.load import load as runtime_load
    if not (hasattr(kernel_or_json, "meta") and hasattr(kernel_or_json, "hsaco")):
        from .kinds.consistency import read_checked
        read_checked(kernel_or_json)          # config vs args too, before the backend runs
    return runtime_load(kernel_or_json, backend=backend, seed=seed, **kw)


def __getattr__(name: str):
    """``EmuRunner`` and ``read_contract`` (``asmgen.runtime.emu``) on first use: the emulator
    runner needs NumPy, which a generation answered by the cache does not."""
    if name in ("EmuRunner", "read_contract"):
        from .runtime import emu
        return getattr(emu, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
