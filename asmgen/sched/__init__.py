"""Scheduling: the latency model, sched groups and the list scheduler (see asmgen.sched.list_sched)."""
