#include "frontend/ir/file_identity.h"

#include <dlfcn.h>
#include <sys/stat.h>

namespace cutwin::ir {

std::string fileIdentity(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return path;
  return path + ";" + std::to_string(st.st_ino) + ";" + std::to_string(st.st_size) + ";" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

std::string identityOfFileHolding(const void *address) {
  Dl_info where{};
  std::string file = ::dladdr(address, &where) && where.dli_fname ? where.dli_fname : "";
  struct stat st {};
  if (file.empty() || ::stat(file.c_str(), &st) != 0)
    file = "/proc/self/exe"; // (a program's name as it was started, from another directory)
  if (::stat(file.c_str(), &st) != 0)
    return "";
  return fileIdentity(file);
}

} // namespace cutwin::ir
