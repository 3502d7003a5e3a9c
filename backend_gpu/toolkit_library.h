/// Finding a CUDA library (libNVVM, NVRTC, the driver) at run time and binding its
/// functions, so that cutwin builds and runs where the toolkit or the driver is absent and
/// says so instead of failing to start.
#pragma once

#include <initializer_list>
#include <string>

namespace cutwin::gpu {

/// dlopen()s the first that loads of: $`envVar`, each of `underHome` below $CUDA_HOME,
/// the configured toolkit and /usr/local/cuda, then each plain `names` entry (the loader's
/// search path). Null if none does.
void *openToolkitLibrary(const char *envVar, std::initializer_list<const char *> underHome,
                         std::initializer_list<const char *> names);

/// The toolkit's root directory: $CUDA_HOME, else the one cutwin was configured with.
const char *toolkitHome();

/// Binds functions of a library opened at run time to pointers of their C types:
/// `bind(table.create, "nvvmCreateProgram")`; error() then names the first one missing.
class SymbolBinder {
public:
  SymbolBinder(void *library, std::string libraryName) : library_(library), name_(std::move(libraryName)) {}
  template <class F> void operator()(F &slot, const char *symbol) {
    slot = reinterpret_cast<F>(lookup(symbol));
  }
  /// Empty when every symbol bound, else "<library> lacks <the first missing symbol>".
  const std::string &error() const { return error_; }

private:
  void *lookup(const char *symbol);
  void *library_;
  std::string name_, error_;
};

} // namespace cutwin::gpu
