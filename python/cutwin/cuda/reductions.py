"""numba.cuda.reductions: where numba keeps `Reduce`."""
from .reduction import Reduce, reduce  # noqa: F401
