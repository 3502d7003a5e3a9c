/// Reports a local variable read where no assignment can have happened yet on any path
/// (CPython would raise UnboundLocalError there; compiled code would read garbage).
/// Conservative: a read that some path reaches after an assignment is accepted.
#pragma once

#include "frontend/diagnostics.h"
#include "frontend/syntax/ast.h"

#include <set>
#include <string>

namespace cutwin::fe {

void checkUseBeforeAssignment(const FunctionDefStmt &def, const std::set<std::string> &locals,
                              const SourceFile &file);

} // namespace cutwin::fe
