"""GPU tests: print once, in the terminal summary, why they were skipped (the reason of the
``skipif`` marker in test_gpu_correctness.py), so a run without a GPU says so even without ``-rs``."""


def pytest_terminal_summary(terminalreporter):
    reasons = set()
    for rep in terminalreporter.stats.get("skipped", []):
        if "tests/gpu/" in rep.nodeid and isinstance(rep.longrepr, tuple):
            reasons.add(rep.longrepr[2].removeprefix("Skipped: "))
    for reason in sorted(reasons):
        terminalreporter.write_line(f"gpu tests skipped: {reason}")
