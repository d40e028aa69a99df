"""Hypothesis profiles for the fuzz tests: ``ci`` (bounded, deterministic, the default) and
``campaign`` (long runs: ``ASMGEN_FUZZ_PROFILE=campaign python -m pytest tests/fuzz``).

The profiles are registered, not loaded: loading would change every other hypothesis test of the
session. tests/fuzz applies ``settings(settings.get_profile(PROFILE))`` itself.
"""
from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=5, deadline=None, database=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large])
settings.register_profile(
    "campaign", max_examples=5000, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large])
