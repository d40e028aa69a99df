"""Passes over a scheduled program: waitcnt, hazard s_nops, liveness, register allocation, verify."""
