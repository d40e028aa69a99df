"""benchmarks/calibration.py's pieces that need neither the hipBLASLt snapshot nor Triton: the
rank correlation and the figure table (every scored figure cited, one fitted)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def cal():
    saved = list(sys.path)
    spec = importlib.util.spec_from_file_location("calibration_under_test", BENCH / "calibration.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # dataclasses look their module up
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path[:] = saved               # the script edits sys.path for itself
    yield mod
    sys.modules.pop(spec.name, None)


def test_spearman(cal):
    assert cal.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert cal.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # one swapped pair of four: 1 - 6 * 2 / (4 * 15) = 0.8
    assert cal.spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)


def test_figures_are_cited_and_one_is_fitted(cal):
    scored = [f for f in cal.FIGURES if f.published is not None]
    assert len(scored) >= 6 and all(f.cite for f in cal.FIGURES)
    assert [f.role for f in scored].count("fit") == 1
    assert all(f.role == "unscored" for f in cal.FIGURES if f.published is None)
