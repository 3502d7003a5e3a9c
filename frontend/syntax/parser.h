/// Recursive-descent parser for the Python subset, building the tree in ast.h.
///
/// Module level is lenient: a top-level statement the subset cannot express (host code
/// such as a class or a comprehension) becomes an UnsupportedStmt, so a file that mixes
/// host code and kernels still compiles. Inside `@...jit` functions every construct must
/// parse, and errors name file:line:col and what was expected.
#pragma once

#include "frontend/diagnostics.h"
#include "frontend/syntax/ast.h"

namespace cutwin::fe {

Module parseModule(const SourceFile &file);
/// Parses a file holding one expression (a signature string such as "void(float32[:])").
ExprPtr parseExpression(const SourceFile &file);

} // namespace cutwin::fe
