"""numba.cuda.cudadrv's names that user code and EMM plugins import."""
from . import devicearray, devices, driver, drvapi, error  # noqa: F401
