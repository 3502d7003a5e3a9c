/// numba's variable versions: a local variable assigned in places whose values never meet
/// is several variables, each typed on its own, as numba's SSA makes it (`for v in pairs:`
/// then `for v in triples:` gives `v` a two- and a three-element type). The assignments of
/// a name that reach a common read (through any path, loops included) are one version; a
/// version is renamed `name$k` (k = 1, 2, ... in source order; the version holding the
/// parameter, or else the first, keeps the name). A step of the typer, before it reads the
/// function. The lowering gives versions of one name and one type one slot (their values
/// never overlap), so the debugger shows them as the one variable they are in the source.
#pragma once

#include "frontend/syntax/ast.h"

#include <memory>
#include <string>

namespace cutwin::fe {

/// A copy of `def` with the versions after the first of each name renamed, or null where
/// every name is one version.
std::unique_ptr<FunctionDefStmt> splitVariableVersions(const FunctionDefStmt &def);

/// The name a variable has in the source: `v` for `v$1` (and for literal_unroll's `v.1`).
std::string sourceName(const std::string &local);

} // namespace cutwin::fe
