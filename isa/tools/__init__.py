"""Developer tools of the isa package (data generators); not imported at run time."""
