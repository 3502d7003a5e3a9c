#include "backend_gpu/toolkit_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#ifndef CUTWIN_CUDA_HOME_DIR
#define CUTWIN_CUDA_HOME_DIR "/usr/local/cuda"
#endif

namespace cutwin::gpu {

const char *toolkitHome() {
  const char *home = std::getenv("CUDA_HOME");
  return home ? home : CUTWIN_CUDA_HOME_DIR;
}

void *openToolkitLibrary(const char *envVar, std::initializer_list<const char *> underHome,
                         std::initializer_list<const char *> names) {
  std::vector<std::string> candidates;
  if (const char *p = std::getenv(envVar))
    candidates.push_back(p);
  for (const char *home :
       {static_cast<const char *>(std::getenv("CUDA_HOME")), CUTWIN_CUDA_HOME_DIR, "/usr/local/cuda"})
    if (home)
      for (const char *sub : underHome)
        candidates.push_back(std::string(home) + sub);
  for (const char *n : names)
    candidates.push_back(n);
  for (auto &c : candidates)
    if (void *h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))
      return h;
  return nullptr;
}

void *SymbolBinder::lookup(const char *symbol) {
  void *p = dlsym(library_, symbol);
  if (!p && error_.empty())
    error_ = name_ + " lacks " + symbol;
  return p;
}

} // namespace cutwin::gpu
