"""`numba.cuda.cudadrv.drvapi`: the driver handle types user code names (annotations of
setup and teardown callbacks)."""
import ctypes

cu_module = ctypes.c_void_p   # what setup/teardown callbacks receive (None on the simulator)
cu_stream = ctypes.c_void_p
cu_context = ctypes.c_void_p
