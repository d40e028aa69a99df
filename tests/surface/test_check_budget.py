"""``asmgen check`` on big kernels (asmgen.runtime.check_size, asmgen.runtime.progress): the
emulation is estimated before it runs; a kernel whose contract sizes would take longer than the
budget is checked at smaller sizes the contract allows (multiple_of, baked sizes, the remainder in
the last tile, divides) and the output says which and why; ``--full`` forces the contract's sizes;
the progress bar (stderr only) is tested with a fake clock."""
from __future__ import annotations

import io

import pytest

from asmgen.api import attention, gemm
from asmgen.cli import main
from asmgen.kinds import registry
from asmgen.runtime import check_size as cs
from asmgen.runtime.launch import resolve_scalars
from asmgen.runtime.progress import Progress, clock_text

README_GEMM = ["gemm", "--arch", "gfx942", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype",
               "bf16", "--layout", "NT", "--schedule", "pgr2", "--tile", "128x128x32", "--waves",
               "2x2", "--prefetch", "2"]


def _choice(kern, **kw):
    kind = registry.of_contract(kern.meta)
    counts = cs.static_counts(kern.hsaco, kern.meta["kernel"], kern.meta["arch"])
    return cs.choose_sizes(kern.meta, counts, kind.check_shape(kern.config), **kw)


def _contract_scalars(kern):
    return resolve_scalars(tuple(cs.as_args(kern.meta["args"])), {})


@pytest.fixture(scope="module")
def readme_gemm():
    return gemm(4096, 4096, 4096, dtype="bf16", layout="NT", schedule="pgr2",
                tile=(128, 128, 32), waves=(2, 2), prefetch=2)


# -- the estimate ----------------------------------------------------------------------------------
def test_estimate_matches_the_emulator_instruction_count():
    """The static estimate against the emulator's own count of wave-instructions: exact for a GEMM
    (straight K loop), an upper bound for causal attention (the longest of its loop's unmasked,
    triangle, masked and skip bodies per trip, ``kinds.attention.kvloop``, over the mean trips
    of its Q-blocks), at least 60 % of it here (counting every arm each trip and the longest
    Q-block's trips gave 44 % and 27 %)."""
    from asmgen import load
    for kern, sizes in ((gemm(192, 160, 96), {}),
                        (gemm(256, 256, 512, dtype="bf16", layout="NT", tile=(128, 128, 32),
                              prefetch=2, schedule="pgr2"), {"M": 128, "K": 256}),
                        (attention(batch=1, heads=2, kv_heads=1, seqlen_q=64, seqlen_k=160,
                                   head_dim=64, causal=True), {}),
                        (attention(batch=1, heads=2, kv_heads=1, seqlen_q=256, seqlen_k=160,
                                   head_dim=64, causal=True, schedule="attn_prio_interleave",
                                   waves=4, kv_buffers=2), {})):
        kind = registry.of_contract(kern.meta)
        counts = cs.static_counts(kern.hsaco, kern.meta["kernel"], kern.meta["arch"])
        est = cs.estimate(kern.meta, counts, kind.check_shape(kern.config), sizes)
        import dataclasses
        cfg = dataclasses.replace(kern.config, **{k.lower(): v for k, v in sizes.items()})
        run = load(kern)
        run(**kind.random_inputs(cfg, 0), **sizes)
        ratio = run.last_emulator.steps / est.instructions
        assert 0.6 <= ratio <= 1.0001, (kern.name, ratio)
        if kind.name == "gemm":
            assert ratio == pytest.approx(1.0, abs=0.05), kern.name


# -- the size choice -------------------------------------------------------------------------------
def test_readme_gemm_is_reduced_at_the_default_budget(readme_gemm):
    c = _choice(readme_gemm)
    assert c.reduced and c.full.seconds > cs.DEFAULT_BUDGET_S >= c.estimate.seconds
    assert c.sizes == {"M": 1024, "N": 1024, "K": 1024}, c.sizes     # ~13 s at 80k/s
    assert c.full.workgroups == 32 * 32 and c.estimate.workgroups == 8 * 8
    full = _choice(readme_gemm, full=True)
    assert not full.reduced and full.sizes == {} and "--full" in full.reason


def test_small_kernel_keeps_its_contract_sizes():
    c = _choice(gemm(96, 64, 64, tile=(32, 32, 16), waves=(1, 1)))
    assert not c.reduced and c.sizes == {} and "fit" in c.reason


def test_reduction_respects_multiple_of_and_the_last_tile():
    """M = 4100 has a partial last tile of 4 rows: every candidate keeps M = 4 (mod 128); K must
    stay a multiple of the promised 64 and the vector width; floors keep two tiles of M and N and
    prefetch + staging + 2 K tiles."""
    k = gemm(4100, 2048, 4096, dtype="bf16", layout="NT", tile=(128, 128, 32), waves=(2, 2),
             prefetch=2, k_multiple=64)
    meta_args = {a["name"]: a for a in k.meta["args"]}
    cands, kept = cs.candidates(k.meta, registry.of_contract(k.meta).check_shape(k.config))
    assert cands and not kept
    for sizes in cands:
        assert sizes["M"] % 128 == 4100 % 128 and sizes["M"] >= 256
        assert sizes["N"] % 128 == 0 and sizes["N"] >= 256
        assert sizes["K"] % meta_args["K"]["multiple_of"] == 0 and sizes["K"] >= 5 * 32
        resolve_scalars(tuple(cs.as_args(k.meta["args"])), sizes)      # the launch accepts them
    assert cands[-1] == {"M": 260, "N": 256, "K": 192}
    c = _choice(k, budget_s=1.0)
    assert c.reduced and c.sizes in cands


def test_baked_sizes_cannot_shrink():
    k = gemm(2048, 2048, 2048, dtype="bf16", tile=(128, 128, 32), waves=(2, 2), bake_sizes=True)
    c = _choice(k, budget_s=1.0)
    assert not c.reduced and c.sizes == {}
    assert set(c.kept) == {"M", "N", "K"}
    assert "M: M = 2048 (baked into the code at generation)" in c.reason


def test_attention_reduction_keeps_the_gqa_group_and_divides():
    k = attention(batch=2, heads=8, kv_heads=2, seqlen_q=1000, seqlen_k=1000, head_dim=64)
    cands, _ = cs.candidates(k.meta, registry.of_contract(k.meta).check_shape(k.config))
    for sizes in cands:
        assert sizes["heads"] // sizes["kv_heads"] == 4 and sizes["heads"] % sizes["kv_heads"] == 0
        assert sizes["seqlen_q"] % 32 == 1000 % 32 and sizes["seqlen_k"] % 32 == 1000 % 32
    assert cands[-1]["batch"] == 1 and cands[-1]["seqlen_q"] == 72
    c = _choice(k, budget_s=2.0)
    assert c.reduced and c.estimate.seconds < c.full.seconds


# -- the CLI ---------------------------------------------------------------------------------------
def test_readme_gemm_checked_reduced_says_which_sizes(tmp_path, capsys):
    assert main(README_GEMM + ["-o", str(tmp_path), "--no-cache"]) == 0
    c = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    assert main(["check", str(c), "--budget", "1", "--progress"]) == 0
    cap = capsys.readouterr()
    assert ("checking at runtime sizes M=256, N=256, K=256 instead of the contract's M=4096, "
            "N=4096, K=4096: the contract's sizes would take 1024 workgroups") in cap.out
    assert "over the 1 s budget" in cap.out and "--full checks" in cap.out
    assert cap.out.splitlines()[-1].startswith("OK gemm_NT_bf16")
    assert "emulating [" not in cap.out                  # the bar never goes to stdout


def test_budget_must_be_positive(tmp_path, capsys):
    assert main(["gemm", "--m", "32", "--n", "32", "--k", "16", "--tile", "32x32x16", "--waves",
                 "1x1", "-o", str(tmp_path)]) == 0
    c = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    assert main(["check", str(c), "--budget", "0"]) == 2
    assert "--budget 0.0 must be a positive number of seconds" in capsys.readouterr().err


def test_check_splits_a_launch_into_shards(tmp_path, capsys):
    """``--shards 2 --processes 1``: the README kernel at 512x512x128 (16 workgroups) runs as two
    shards merged exactly and matches NumPy; 0 is refused with exit 2."""
    assert main(README_GEMM + ["-o", str(tmp_path), "--no-cache"]) == 0
    c = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    for opt in ("--shards", "--processes"):
        assert main(["check", str(c), "--m", "512", "--n", "512", "--k", "128", opt, "0"]) == 2
        assert f"{opt} 0 must be at least 1" in capsys.readouterr().err
    assert main(["check", str(c), "--m", "512", "--n", "512", "--k", "128", "--shards", "2",
                 "--processes", "1", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "emulated as 2 shards of workgroups on 1 process(es), merged exactly" in out
    assert out.splitlines()[-1].startswith("OK gemm_NT_bf16")


@pytest.mark.slow
def test_readme_gemm_at_the_default_budget(tmp_path, capsys):
    assert main(README_GEMM + ["-o", str(tmp_path), "--no-cache"]) == 0
    c = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    assert main(["check", str(c)]) == 0
    out = capsys.readouterr().out
    assert "checking at runtime sizes M=512, N=512, K=512 instead of the contract's" in out


# -- the progress bar ------------------------------------------------------------------------------
class FakeClock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_quiet_for_short_runs_and_off_a_terminal():
    clock, out = FakeClock(), Tty()
    p = Progress(10, stream=out, clock=clock, after_s=3.0)
    assert p.enabled
    clock.t += 2.0
    p.update(5)
    p.finish()
    assert out.getvalue() == ""                     # done within 3 s: nothing drawn
    plain = io.StringIO()
    p = Progress(10, stream=plain, clock=clock)
    assert not p.enabled                            # not a terminal, not asked
    clock.t += 60
    p.update(1)
    p.finish()
    assert plain.getvalue() == ""


def test_progress_estimate_and_throttle():
    clock, out = FakeClock(), io.StringIO()
    p = Progress(8, stream=out, clock=clock, enabled=True, estimate_s=40.0, width=8)
    assert p.eta() == 40.0                          # before any workgroup: the up-front estimate
    clock.t += 4.0
    assert p.eta() == 36.0
    p.update(2)                                     # 2 of 8 in 4 s: 12 s left
    assert out.getvalue() == "\remulating [##......] 2/8 workgroups  25%  0:04 elapsed, ~0:12 left"
    clock.t += 0.1
    p.update(3)                                     # within 0.5 s of the last draw: skipped
    assert out.getvalue().count("\r") == 1
    clock.t += 1.9
    p.update(6)                                     # 6 in 6 s: 2 s left
    assert out.getvalue().endswith("6/8 workgroups  75%  0:06 elapsed, ~0:02 left")
    clock.t += 2.0
    p.update(8)
    p.finish()
    last = out.getvalue().split("\r")[-1]
    assert last.rstrip() == "emulating: 8/8 workgroups in 0:08" and last.endswith("\n")
    longest = max(len(seg) for seg in out.getvalue().split("\r")[:-1])
    assert len(last) - 1 == longest                 # padded over the longest bar drawn
    assert clock_text(3725) == "1:02:05" and clock_text(59.6) == "1:00"


def test_progress_as_the_emulator_callback():
    """The emulator calls progress(done, total) after each workgroup."""
    from asmgen import load
    from asmgen.kinds.gemm.reference import gemm_random_inputs
    k = gemm(96, 64, 32, tile=(32, 32, 16), waves=(1, 1))
    seen = []
    run = load(k)
    run.progress = lambda done, total: seen.append((done, total))
    run(**gemm_random_inputs(k.config, 0))
    assert seen == [(i, 6) for i in range(1, 7)]
