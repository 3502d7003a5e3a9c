"""numba.cuda.cudadrv's names that user code and EMM plugins import."""
from . import driver, drvapi  # noqa: F401
