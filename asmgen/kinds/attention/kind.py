"""The flash-attention forward kernel kind (O and LSE): the ``KernelKind`` the registry knows as
``attention``, wiring this folder's config, template, contract, reference, profile, fuzz and
CLI modules into the hooks of ``asmgen.kinds.base``."""
from __future__ import annotations

from ...errors import ConfigError
from ..base import KernelKind, Launch
from ..registry import register
from . import HELP, MODE_OF, NAME
from .config import AGPR_HEAD_DIM, AttentionConfig
from .tags import ATTN_TAGS


class AttentionKind(KernelKind):
    name = NAME
    config_type = AttentionConfig
    help = HELP
    default_schedule = "attn_basic"
    tags = ATTN_TAGS
    mode_of = MODE_OF

    # -- generation -----------------------------------------------------------------------------
    def build(self, cfg: AttentionConfig, recipe):
        from .template import build_attention
        return build_attention(cfg)

    def args(self, cfg: AttentionConfig) -> list:
        from .contract import attention_args
        return attention_args(cfg)

    def launch(self, cfg: AttentionConfig) -> Launch:
        # every size is a runtime argument: the grid follows seqlen_q, heads and batch
        # (kinds.attention.grid: causal kernels start the longest Q-blocks first)
        from .grid import grid_from
        return Launch(cfg.grid, cfg.threads, (True, True, True),
                      grid_from=grid_from(cfg.causal, cfg.rows_per_wg, cfg.varlen))

    # -- checking -------------------------------------------------------------------------------
    def check_shape(self, cfg: AttentionConfig):
        """KV loop: ceil(seqlen_k / key block) trips; causal: the mean over the Q-blocks of each
        one's trips (``grid.trips_per_qblock``: the estimate multiplies by the workgroups, so the
        sum is exact; varlen: the bound, lengths are drawn). batch shrinks to 1,
        kv_heads to 1 with heads to one GQA group (heads / kv_heads: the group size is kept),
        seqlen_q in workgroup row blocks to two blocks, seqlen_k in key blocks to three (more
        than the KV buffers, so the loop wraps its buffers)."""
        from ...runtime.check_size import CheckShape
        bq, bk, group = cfg.rows_per_wg, cfg.block_k, cfg.heads // cfg.kv_heads
        if cfg.varlen:   # the packed sizes are drawn from batch and the longest sequences
            return CheckShape(trips=lambda s: -(-int(s["max_seqlen_k"]) // bk),
                              shrink=(("batch", 1, 1), ("max_seqlen_q", bq, bq),
                                      ("max_seqlen_k", bk, 3 * bk)))
        def trips(s):
            if not cfg.causal:
                return -(-int(s["seqlen_k"]) // bk)
            from .grid import trips_per_qblock
            return float(trips_per_qblock(int(s["seqlen_q"]), int(s["seqlen_k"]), True,
                                          bq).mean())
        return CheckShape(trips=trips,
                          shrink=(("batch", 1, 1), ("kv_heads", 1, 1), ("heads", group, group),
                                  ("seqlen_q", bq, 2 * bq),
                                  ("seqlen_k", bk, max(3, cfg.kv_buffers + 1) * bk)))

    def check(self, meta: dict, run, seed: int, sizes: dict | None = None) -> tuple[bool, str]:
        """As every kind; a varlen kernel at its contract's sizes (``batch`` sequences of
        ragged lengths up to seqlen_q / seqlen_k drawn from the seed, the last one of exactly
        those: ``reference.ragged_lengths``; the packed totals and cu_seqlens follow), or at
        other ``batch`` / ``max_seqlen_q`` / ``max_seqlen_k`` (the lengths drawn again)."""
        if sizes and meta.get("config", {}).get("varlen"):
            import dataclasses
            names = {"batch": "batch", "max_seqlen_q": "seqlen_q", "max_seqlen_k": "seqlen_k"}
            bad = sorted(set(sizes) - set(names))
            if bad:
                raise ConfigError(f"--size {bad[0]}: a varlen attention kernel is checked at "
                                  f"other sizes of {', '.join(names)} only (cu_seqlens and the "
                                  f"packed totals are drawn from them)")
            cfg = self.config_from_dict(meta["config"])
            run_cfg = dataclasses.replace(cfg, **{names[n]: int(v) for n, v in sizes.items()})
            inputs = self.random_inputs(run_cfg, seed)
            return self.compare(run_cfg, run(**inputs), inputs)
        return super().check(meta, run, seed, sizes)

    def random_inputs(self, cfg: AttentionConfig, seed: int) -> dict:
        from .reference import attention_random_inputs
        return attention_random_inputs(cfg, seed)

    def compare(self, cfg: AttentionConfig, out, inputs: dict) -> tuple[bool, str]:
        from .reference import compare_attention
        if not isinstance(out, dict) or "O" not in out or "LSE" not in out:
            raise ConfigError("the runner did not return the O and LSE outputs")
        return compare_attention(cfg, out, inputs)

    @staticmethod
    def profile(meta: dict, hsaco: bytes, **kw) -> dict:
        from .profile import profile_attention
        return profile_attention(meta, hsaco, **kw)

    # -- fuzzing --------------------------------------------------------------------------------
    def fuzz_configs(self, small: bool, arches):
        from .fuzz import attention_configs
        return attention_configs(small, arches)

    def fuzz_schedule_params(self, cfg: AttentionConfig, sched_seed: int) -> dict:
        """Random orders; at head_dim 256 (no register headroom for arbitrary ones: none of
        them fits the 256 ArchVGPRs) the scheduler's own order with random ties (``fuzz``'s
        ``ties``; the strategy draws D 256 with several waves only, ``kinds.attention.fuzz``)."""
        params = {"seed": sched_seed}
        if cfg.head_dim == AGPR_HEAD_DIM:
            params["ties"] = True
        return params

    def shrink_moves(self):
        from .fuzz import candidates, to_raw
        return to_raw, self.config_from_dict, candidates

    def describe(self, cfg: AttentionConfig) -> str:
        return (f"b{cfg.batch} h{cfg.heads}/{cfg.kv_heads} sq{cfg.seqlen_q} sk{cfg.seqlen_k} "
                f"d{cfg.head_dim}")

    def proof_kernels(self) -> tuple[dict, ...]:
        from .fuzz import proof_kernels
        return proof_kernels()

    # -- CLI ------------------------------------------------------------------------------------
    def add_arguments(self, parser) -> None:
        from .cli import add_arguments
        add_arguments(parser)

    def cli_kwargs(self, args) -> dict:
        from .cli import cli_kwargs
        return cli_kwargs(args)

    def cli_generate(self, args, generate):
        from .cli import cli_generate
        return cli_generate(args, generate)


ATTENTION = register(AttentionKind())
