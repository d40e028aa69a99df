"""Schedule fuzzing (issue #5): random configs x random legal schedules x emulator seeds
(``runner``, ``cases``, ``strategies``) and the mutation proof that the emulator catches broken
kernels (``mutate``). Entry points: ``asmgen fuzz`` (``asmgen.cli.fuzz``) and tests/fuzz."""
