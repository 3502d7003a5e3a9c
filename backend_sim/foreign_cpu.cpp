#include "backend_sim/foreign_cpu.h"

#include "cutwin/errors.h"
#include "frontend/ir/linked_files.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

namespace cutwin::sim {

namespace fs = std::filesystem;

namespace {

/// Defines CUDA's declaration specifiers away, so that portable device code compiles as C++.
const char *const kPrelude = R"(// cutwin: CUDA C++ device code compiled for the simulator's CPU
#pragma once
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __CUTWIN_SIMULATOR__ 1
)";

bool isSource(const fs::path &p) {
  auto e = p.extension().string();
  return e == ".cu" || e == ".cpp" || e == ".cc" || e == ".cxx" || e == ".c";
}

/// The source the simulator compiles for a linked file, or empty.
fs::path cpuSource(const fs::path &file) {
  if (isSource(file))
    return file;
  for (const char *ext : {".cu", ".cpp", ".cc", ".cxx", ".c"}) {
    fs::path sibling = file;
    sibling.replace_extension(ext);
    std::error_code ec;
    if (fs::is_regular_file(sibling, ec))
      return sibling;
  }
  return {};
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path cacheDir() {
  if (const char *d = std::getenv("CUTWIN_CACHE_DIR"))
    return fs::path(d) / "foreign";
  if (const char *d = std::getenv("XDG_CACHE_HOME"))
    return fs::path(d) / "cutwin" / "foreign";
  if (const char *h = std::getenv("HOME"))
    return fs::path(h) / ".cache" / "cutwin" / "foreign";
  return fs::temp_directory_path() / "cutwin-foreign";
}

std::string compiler() {
  if (const char *c = std::getenv("CUTWIN_CXX"))
    return c;
  if (const char *c = std::getenv("CXX"))
    return c;
  return "c++";
}

uint64_t fnv1a(const std::string &s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Compiles the linked sources together into one shared library (cached) and opens it:
/// one library, as the GPU links every file into one program, so that a function in one
/// file can call one defined in another.
void *openCompiled(std::vector<fs::path> sources) {
  static std::mutex mu;
  static std::map<std::string, void *> opened;
  std::lock_guard<std::mutex> lock(mu);
  std::sort(sources.begin(), sources.end()); // a set of files is one library, whatever its order
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  std::string cxx = compiler();
  const std::string flags = "-x c++ -std=c++17 -O2 -ffp-contract=off -fPIC -shared";
  uint64_t hash = fnv1a(cxx + flags + kPrelude);
  std::string files, includes, names;
  for (const fs::path &src : sources) {
    hash = fnv1a(src.filename().string() + '\0' + readFile(src), hash);
    files += " " + shellQuote(src.string());
    includes += " -I" + shellQuote(src.parent_path().string());
    names += (names.empty() ? "" : ", ") + src.string();
  }
  std::string key = std::to_string(hash);
  if (auto it = opened.find(key); it != opened.end())
    return it->second;
  fs::path dir = cacheDir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path lib = dir / (sources.front().stem().string() + "-" + key + ".so");
  if (!fs::is_regular_file(lib, ec)) {
    fs::path prelude = dir / "cutwin_cpu_prelude.h";
    std::ofstream(prelude) << kPrelude;
    fs::path tmp = lib;
    tmp += ".tmp" + std::to_string(::getpid());
    fs::path log = tmp;
    log += ".log";
    std::string cmd = shellQuote(cxx) + " " + flags + " -include " + shellQuote(prelude.string()) + includes +
                      files + " -o " + shellQuote(tmp.string()) + " > " + shellQuote(log.string()) + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::string out = readFile(log);
    fs::remove(log, ec);
    if (rc != 0) {
      fs::remove(tmp, ec);
      throw CompileError(
          sources.front().string(), {}, "",
          "simulator: " + cxx + " could not compile " + names +
              " for the CPU (linked with link=[...]; only portable C++ device code runs on the "
              "simulator):\n" +
              out);
    }
    fs::rename(tmp, lib, ec);
    if (ec)
      throw Error("simulator: cannot store " + lib.string() + ": " + ec.message());
  }
  void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h)
    throw Error(std::string("simulator: cannot load ") + lib.string() + ": " + dlerror());
  opened[key] = h; // kept for the life of the process: kernels may hold its functions
  return h;
}

} // namespace

std::map<std::string, uint64_t> foreignFunctionsForCpu(const ForeignRequest &req) {
  std::vector<fs::path> sources;
  std::vector<std::string> sourceless;
  for (const std::string &f : req.files) {
    fs::path src = cpuSource(f);
    if (src.empty())
      sourceless.push_back(f);
    else
      sources.push_back(src);
  }
  void *lib = sources.empty() ? nullptr : openCompiled(sources);
  std::map<std::string, uint64_t> out;
  for (auto &[name, site] : req.functions) {
    void *addr = lib ? dlsym(lib, name.c_str()) : nullptr;
    if (!addr) {
      std::string msg = site + ": kernel '" + req.kernel + "' calls foreign device function '" + name +
                        "', which has no CPU version for the simulator: ";
      if (!sourceless.empty())
        msg += sourceless.front() + " is GPU code only; put a C++/CUDA source of the same name beside it (" +
               fs::path(sourceless.front()).stem().string() + ".cu or .cpp) or link the source itself";
      else
        msg += "no linked source defines it as extern \"C\"";
      throw Error(msg);
    }
    out[name] = reinterpret_cast<uint64_t>(addr);
  }
  return out;
}

ForeignRequest foreignRequestOf(const ir::KernelInfo &info) {
  ForeignRequest r;
  if (info.foreign.empty())
    return r;
  r.kernel = info.name;
  r.files = ir::resolveLinkedFiles(info);
  for (auto &[name, loc] : info.foreign)
    r.functions[name] = ir::foreignCallSite(info, name);
  return r;
}

} // namespace cutwin::sim
