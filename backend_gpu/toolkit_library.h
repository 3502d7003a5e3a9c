/// Finding a CUDA toolkit library (libNVVM, NVRTC) at run time, so that cutwin builds and
/// runs where the toolkit is absent and says so instead of failing to start.
#pragma once

#include <initializer_list>

namespace cutwin::gpu {

/// dlopen()s the first that loads of: $`envVar`, each of `underHome` below $CUDA_HOME,
/// the configured toolkit and /usr/local/cuda, then each plain `names` entry (the loader's
/// search path). Null if none does.
void *openToolkitLibrary(const char *envVar, std::initializer_list<const char *> underHome,
                         std::initializer_list<const char *> names);

/// The toolkit's root directory: $CUDA_HOME, else the one cutwin was configured with.
const char *toolkitHome();

} // namespace cutwin::gpu
