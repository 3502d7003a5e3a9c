"""Child processes of the numba-cuda suite (tests that start `python -c ...` or
multiprocessing workers) inherit the redirect: run.py puts this folder on PYTHONPATH and
sets CUTWIN_NUMBA_REDIRECT."""
import os

if os.environ.get("CUTWIN_NUMBA_REDIRECT"):
    import redirect

    redirect.install(simulator_selection=os.environ["CUTWIN_NUMBA_REDIRECT"] == "sim")
