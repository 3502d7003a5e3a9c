"""Modules that kernels in test_name_resolution.py get their names from, organised as real
programs organise theirs: a helper re-exporting `cuda`, device functions in other modules
(one calling a third), conditional and star imports."""
