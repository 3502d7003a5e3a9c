#include "frontend/ir/linked_files.h"

#include "cutwin/errors.h"

#include <algorithm>
#include <filesystem>

namespace cutwin::ir {

namespace fs = std::filesystem;

std::string foreignCallSite(const ir::KernelInfo &info, const std::string &name) {
  auto it = info.foreign.find(name);
  if (it == info.foreign.end())
    return info.file;
  return info.file + ":" + std::to_string(it->second.line) + ":" + std::to_string(it->second.col);
}

std::vector<std::string> resolveLinkedFiles(const ir::KernelInfo &info) {
  std::vector<std::string> out;
  fs::path kernelDir = fs::path(info.file).parent_path();
  for (const std::string &f : info.link) {
    fs::path p(f);
    std::vector<fs::path> tries = {p};
    if (p.is_relative() && !kernelDir.empty())
      tries.push_back(kernelDir / p);
    std::error_code ec;
    auto found = std::find_if(tries.begin(), tries.end(),
                              [&](const fs::path &t) { return fs::is_regular_file(t, ec); });
    if (found == tries.end())
      throw Error("kernel '" + info.name + "': link file '" + f +
                  "' not found (looked in the working directory" +
                  (kernelDir.empty() ? std::string() : " and in " + kernelDir.string()) + ")");
    out.push_back(fs::absolute(*found).lexically_normal().string());
  }
  if (out.empty() && !info.foreign.empty()) {
    const std::string &name = info.foreign.begin()->first;
    throw Error(foreignCallSite(info, name) + ": kernel '" + info.name + "' calls foreign device function '" +
                name +
                "' (cuda.declare_device) but links no file that defines it: add link=[...] to its "
                "@cuda.jit");
  }
  return out;
}

} // namespace cutwin::ir
