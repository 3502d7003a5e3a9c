// libcutwin_core.so: the C++ core (frontend, simulator, GPU backend, runtime) as one shared
// library. It has no code of its own: the static libraries are linked into it whole.
