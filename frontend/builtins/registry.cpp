#include "frontend/builtins/builtin.h"

#include <map>
#include <string>

namespace cutwin::fe {

const Builtin *findBuiltin(std::string_view name) {
  static const std::map<std::string, const Builtin *, std::less<>> byName = [] {
    std::map<std::string, const Builtin *, std::less<>> m;
    for (std::span<const Builtin> family :
         {threadIndexBuiltins(), syncBuiltins(), warpBuiltins(), atomicBuiltins(), bitBuiltins(),
          arithmeticBuiltins(), conversionBuiltins(), iterationBuiltins(), memoryBuiltins(), mathBuiltins(),
          cmathBuiltins(), ufuncBuiltins(), operatorBuiltins(), randomBuiltins(), printBuiltins(),
          debugBuiltins(), halfBuiltins(), cacheHintBuiltins()})
      for (const Builtin &b : family)
        m.emplace(b.name, &b);
    return m;
  }();
  constexpr std::string_view libdevice = "cuda.libdevice.";
  if (name.starts_with(libdevice))
    return libdeviceBuiltin(name.substr(libdevice.size()));
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

} // namespace cutwin::fe
