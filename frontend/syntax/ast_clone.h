/// Deep copies of syntax trees, for steps that make several versions of one piece of code
/// (literal_unroll's copies of a loop body, one per tuple element). A copy keeps every
/// node's source location, so diagnostics and line tables point at the code as written.
#pragma once

#include "frontend/syntax/ast.h"

#include <map>
#include <string>

namespace cutwin::fe {

/// Variable names replaced in a copy: each use and assignment of a key names its value.
using NameMap = std::map<std::string, std::string>;

ExprPtr cloneExpr(const Expr &e, const NameMap &renames = {});
StmtPtr cloneStmt(const Stmt &s, const NameMap &renames = {});
Block cloneBlock(const Block &b, const NameMap &renames = {});

} // namespace cutwin::fe
