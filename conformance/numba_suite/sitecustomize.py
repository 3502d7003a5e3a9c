"""Child processes of the numba-cuda suite (tests that start `python -c ...` or
multiprocessing workers) get the same switch: run.py puts this folder on PYTHONPATH, and
the parent's selection.switch() set CUTWIN_NUMBA_SUITE_SELECTION."""
import os

if os.environ.get("CUTWIN_NUMBA_SUITE_SELECTION"):
    import selection

    selection.switch(os.environ["CUTWIN_NUMBA_SUITE_SELECTION"])
