// libcutwin_core.so: the C++ core (frontend, simulator, GPU backend, runtime) as one shared
// library. Its code is the static libraries, linked into it whole (and glibc_baseline.cpp).
