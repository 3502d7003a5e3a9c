#include "frontend/builtins/builtin.h"

#include <map>
#include <sstream>
#include <string>

namespace cutwin::fe {

// The families' tables, each defined in its file here (declared nowhere else, so that a new
// family recompiles only its file and this list).
std::span<const Builtin> threadIndexBuiltins();
std::span<const Builtin> syncBuiltins();
std::span<const Builtin> warpBuiltins();
std::span<const Builtin> atomicBuiltins();
std::span<const Builtin> bitBuiltins();
std::span<const Builtin> arithmeticBuiltins();
std::span<const Builtin> conversionBuiltins();
std::span<const Builtin> iterationBuiltins();
std::span<const Builtin> memoryBuiltins();
std::span<const Builtin> mathBuiltins();
std::span<const Builtin> cmathBuiltins();
std::span<const Builtin> ufuncBuiltins();
std::span<const Builtin> operatorBuiltins();
std::span<const Builtin> randomBuiltins();
std::span<const Builtin> printBuiltins();
std::span<const Builtin> debugBuiltins();
std::span<const Builtin> halfBuiltins();
std::span<const Builtin> bfloat16Builtins();
std::span<const Builtin> cacheHintBuiltins();
std::span<const Builtin> vectorTypeBuiltins();
std::span<const Builtin> reductionBuiltins();
std::span<const Builtin> fp8Builtins();
std::span<const Builtin> fp8VectorBuiltins();
std::span<const Builtin> arrayMethodBuiltins();

std::span<const BuiltinFamily> builtinFamilies() {
  static const BuiltinFamily families[] = {
      {"thread index", "thread_index.cpp", threadIndexBuiltins},
      {"sync", "sync.cpp", syncBuiltins},
      {"warp", "warp.cpp", warpBuiltins},
      {"atomics", "atomics.cpp", atomicBuiltins},
      {"bits", "bits.cpp", bitBuiltins},
      {"arithmetic", "arithmetic.cpp", arithmeticBuiltins},
      {"conversions", "conversions.cpp", conversionBuiltins},
      {"iteration", "iteration.cpp", iterationBuiltins},
      {"memory", "memory.cpp", memoryBuiltins},
      {"math", "math.cpp", mathBuiltins},
      {"cmath", "cmath.cpp", cmathBuiltins},
      {"ufuncs", "ufuncs.cpp", ufuncBuiltins},
      {"operators", "operators.cpp", operatorBuiltins},
      {"random", "random.cpp", randomBuiltins},
      {"print", "print.cpp", printBuiltins},
      {"debug", "debug.cpp", debugBuiltins},
      {"half", "half.cpp", halfBuiltins},
      {"bfloat16", "bfloat16.cpp", bfloat16Builtins},
      {"cache hints", "cache_hints.cpp", cacheHintBuiltins},
      {"vector types", "vector_types.cpp", vectorTypeBuiltins},
      {"reductions", "reductions.cpp", reductionBuiltins},
      {"fp8", "fp8.cpp", fp8Builtins},
      {"fp8 vectors", "fp8_vectors.cpp", fp8VectorBuiltins},
      {"array methods", "array_methods.cpp", arrayMethodBuiltins},
  };
  return families;
}

const Builtin *findBuiltin(std::string_view name) {
  static const std::map<std::string, const Builtin *, std::less<>> byName = [] {
    std::map<std::string, const Builtin *, std::less<>> m;
    for (const BuiltinFamily &family : builtinFamilies())
      for (const Builtin &b : family.rows())
        m.emplace(b.name, &b);
    return m;
  }();
  constexpr std::string_view libdevice = "cuda.libdevice.";
  if (name.starts_with(libdevice))
    return libdeviceBuiltin(name.substr(libdevice.size()));
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

std::string builtinTableMarkdown() {
  std::ostringstream out;
  out << "| family | file | functions |\n|---|---|---|\n";
  for (const BuiltinFamily &family : builtinFamilies()) {
    out << "| " << family.name << " | `frontend/builtins/" << family.file << "` | ";
    const char *sep = "";
    for (const Builtin &b : family.rows()) {
      out << sep << "`" << b.name << "`";
      sep = ", ";
    }
    out << " |\n";
  }
  out << "| libdevice | `frontend/builtins/libdevice.cpp` | `cuda.libdevice.<name>`: every function of "
         "libdevice (its rows are made from the bitcode on first use) |\n";
  return out.str();
}

} // namespace cutwin::fe
