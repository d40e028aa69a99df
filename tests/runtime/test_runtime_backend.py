"""Backend selection and device naming: ``select_backend`` for emu/hip/auto (with fake GPUs), the
reason it reports, and ``gcnArchName`` parsing."""
import logging

import pytest
from fake_hip import FakeHip, hipError_t

from asmgen.errors import ConfigError
from asmgen.runtime import (
    BackendError,
    HipUnavailable,
    arch_from_gcn_name,
    list_devices,
    load,
    parse_gcn_name,
    select_backend,
)
from asmgen.runtime.devices import probe_devices


@pytest.mark.parametrize("name,arch,feats", [
    ("gfx942:sramecc+:xnack-", "gfx942", {"sramecc": True, "xnack": False}),
    ("gfx950:sramecc+:xnack-", "gfx950", {"sramecc": True, "xnack": False}),
    ("gfx90a:xnack+", "gfx90a", {"xnack": True}),
    ("gfx942", "gfx942", {}),
    (" gfx1100 ", "gfx1100", {}),
])
def test_parse_gcn_name(name, arch, feats):
    assert parse_gcn_name(name) == (arch, feats)
    assert arch_from_gcn_name(name) == arch


@pytest.mark.parametrize("bad", ["", "942", "gfx942:sramecc", "gfx942:sramecc+:", "sm_90", "gfx942 xnack-"])
def test_parse_gcn_name_rejects(bad):
    with pytest.raises(ConfigError, match="is not a target id like 'gfx942:sramecc\\+:xnack-'"):
        arch_from_gcn_name(bad)


def test_list_devices_fake():
    fh = FakeHip(gcn_arch_names=("gfx942:sramecc+:xnack-", "gfx950:sramecc+:xnack-"))
    devs = list_devices(fh)
    assert [(d.index, d.arch, d.gcn_arch_name) for d in devs] == [
        (0, "gfx942", "gfx942:sramecc+:xnack-"), (1, "gfx950", "gfx950:sramecc+:xnack-")]
    assert devs[0].describe() == "[0] AMD Instinct fake 0  gfx942:sramecc+:xnack-  304 CUs  192 GiB"


def test_no_device():
    fh = FakeHip(gcn_arch_names=())
    assert list_devices(fh) == []
    assert probe_devices(fh) == ([], "HIP runtime loaded but it reports no GPU (hipGetDeviceCount = 0)")
    with pytest.raises(HipUnavailable, match="HIP reports no GPU") as info:
        select_backend("hip", hip=fh)
    assert info.value.missing == "gpu"
    choice = select_backend("auto", hip=fh)
    assert choice.name == "emu" and choice.reason.startswith("no ROCm GPU found: HIP runtime loaded")


def test_other_hip_error_is_not_swallowed():
    fh = FakeHip(fail={"hipGetDeviceCount": hipError_t.hipErrorInvalidValue})
    from asmgen.runtime import HipError
    with pytest.raises(HipError, match="hipGetDeviceCount failed with hipErrorInvalidValue"):
        list_devices(fh)
    assert "hipErrorInvalidValue" in select_backend("auto", hip=fh).reason


def test_select_backend_names(caplog):
    caplog.set_level(logging.INFO, logger="asmgen.runtime")
    assert select_backend("emu").name == "emu"
    assert "backend 'emu' requested" in caplog.records[-1].getMessage()
    with pytest.raises(BackendError, match="backend 'cuda' is not one of emu, hip, auto"):
        select_backend("cuda")
    with pytest.raises(BackendError, match="backend 'gpu' is not one of emu, hip, auto"):
        load("/nonexistent.json", backend="gpu")


def test_device_choice():
    fh = FakeHip(gcn_arch_names=("gfx950:sramecc+:xnack-", "gfx942:sramecc+:xnack-"))
    assert select_backend("auto", arch="gfx942", hip=fh).device.index == 1     # the one that fits
    assert select_backend("hip", hip=fh, device=0).device.index == 0
    with pytest.raises(BackendError, match="device 5 does not exist \\(HIP sees 2 device\\(s\\)\\)"):
        select_backend("hip", hip=fh, device=5)
    c = select_backend("auto", hip=fh, device=5)
    assert c.name == "emu" and "device 5 does not exist" in c.reason


def test_load_emu_by_contract_path(vector_add_json, vadd_inputs):
    import numpy as np
    a, b = vadd_inputs
    run = load(str(vector_add_json), backend="emu")
    assert run.backend == "emu" and "requested" in run.backend_reason
    np.testing.assert_array_equal(run(A=a, B=b, C=np.zeros_like(a)), a + b)
