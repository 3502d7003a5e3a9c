// Printing of the syntax tree, for --dump-after=parse and for tests.
#include "frontend/syntax/ast.h"

#include <iomanip>
#include <sstream>

namespace cutwin::fe {

const char *binOpSymbol(BinOp op) {
  switch (op) {
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::FloorDiv: return "//";
  case BinOp::Mod: return "%";
  case BinOp::Pow: return "**";
  case BinOp::LShift: return "<<";
  case BinOp::RShift: return ">>";
  case BinOp::BitAnd: return "&";
  case BinOp::BitOr: return "|";
  case BinOp::BitXor: return "^";
  case BinOp::MatMul: return "@";
  }
  return "?";
}

const char *unaryOpSymbol(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Pos: return "+";
  case UnaryOp::Invert: return "~";
  case UnaryOp::Not: return "not ";
  }
  return "?";
}

const char *cmpOpSymbol(CmpOp op) {
  switch (op) {
  case CmpOp::Eq: return "==";
  case CmpOp::NotEq: return "!=";
  case CmpOp::Lt: return "<";
  case CmpOp::LtE: return "<=";
  case CmpOp::Gt: return ">";
  case CmpOp::GtE: return ">=";
  case CmpOp::Is: return "is";
  case CmpOp::IsNot: return "is not";
  case CmpOp::In: return "in";
  case CmpOp::NotIn: return "not in";
  }
  return "?";
}

namespace {

/// Fully parenthesised, so that a dump shows how precedence was resolved.
void printExpr(const Expr &e, std::ostream &os) {
  switch (e.kind) {
  case ExprKind::Name: os << static_cast<const NameExpr &>(e).id; return;
  case ExprKind::Constant: {
    auto &c = static_cast<const ConstantExpr &>(e);
    switch (c.type) {
    case ConstantExpr::Type::Int: os << c.intValue; break;
    case ConstantExpr::Type::Float: os << std::setprecision(17) << c.floatValue; break;
    case ConstantExpr::Type::Imag: os << c.floatValue << "j"; break;
    case ConstantExpr::Type::Bool: os << (c.boolValue ? "True" : "False"); break;
    case ConstantExpr::Type::Str: os << std::quoted(c.strValue); break;
    case ConstantExpr::Type::None: os << "None"; break;
    case ConstantExpr::Type::Ellipsis: os << "..."; break;
    }
    return;
  }
  case ExprKind::BinOp: {
    auto &b = static_cast<const BinOpExpr &>(e);
    os << "(";
    printExpr(*b.lhs, os);
    os << " " << binOpSymbol(b.op) << " ";
    printExpr(*b.rhs, os);
    os << ")";
    return;
  }
  case ExprKind::UnaryOp: {
    auto &u = static_cast<const UnaryOpExpr &>(e);
    os << "(" << unaryOpSymbol(u.op);
    printExpr(*u.operand, os);
    os << ")";
    return;
  }
  case ExprKind::BoolOp: {
    auto &b = static_cast<const BoolOpExpr &>(e);
    os << "(";
    for (size_t i = 0; i < b.values.size(); ++i) {
      if (i)
        os << (b.isAnd ? " and " : " or ");
      printExpr(*b.values[i], os);
    }
    os << ")";
    return;
  }
  case ExprKind::Compare: {
    auto &c = static_cast<const CompareExpr &>(e);
    os << "(";
    printExpr(*c.left, os);
    for (size_t i = 0; i < c.ops.size(); ++i) {
      os << " " << cmpOpSymbol(c.ops[i]) << " ";
      printExpr(*c.comparators[i], os);
    }
    os << ")";
    return;
  }
  case ExprKind::IfExp: {
    auto &i = static_cast<const IfExpExpr &>(e);
    os << "(";
    printExpr(*i.body, os);
    os << " if ";
    printExpr(*i.test, os);
    os << " else ";
    printExpr(*i.orelse, os);
    os << ")";
    return;
  }
  case ExprKind::Call: {
    auto &c = static_cast<const CallExpr &>(e);
    printExpr(*c.func, os);
    os << "(";
    bool first = true;
    for (auto &a : c.args) {
      if (!first)
        os << ", ";
      first = false;
      printExpr(*a, os);
    }
    for (auto &k : c.keywords) {
      if (!first)
        os << ", ";
      first = false;
      os << k.name << "=";
      printExpr(*k.value, os);
    }
    os << ")";
    return;
  }
  case ExprKind::Attribute: {
    auto &a = static_cast<const AttributeExpr &>(e);
    printExpr(*a.value, os);
    os << "." << a.attr;
    return;
  }
  case ExprKind::Subscript: {
    auto &s = static_cast<const SubscriptExpr &>(e);
    printExpr(*s.value, os);
    os << "[";
    printExpr(*s.index, os);
    os << "]";
    return;
  }
  case ExprKind::Slice: {
    auto &s = static_cast<const SliceExpr &>(e);
    if (s.lower)
      printExpr(*s.lower, os);
    os << ":";
    if (s.upper)
      printExpr(*s.upper, os);
    if (s.step) {
      os << ":";
      printExpr(*s.step, os);
    }
    return;
  }
  case ExprKind::Tuple:
  case ExprKind::List: {
    auto &t = static_cast<const TupleExpr &>(e);
    bool list = e.kind == ExprKind::List;
    os << (list ? "[" : "(");
    for (size_t i = 0; i < t.elts.size(); ++i) {
      if (i)
        os << ", ";
      printExpr(*t.elts[i], os);
    }
    if (!list && t.elts.size() == 1)
      os << ",";
    os << (list ? "]" : ")");
    return;
  }
  case ExprKind::Starred:
    os << "*";
    printExpr(*static_cast<const StarredExpr &>(e).value, os);
    return;
  case ExprKind::StarElement: {
    auto &s = static_cast<const StarElementExpr &>(e);
    os << "(*";
    printExpr(*s.tuple, os);
    os << ")[" << s.index << "]";
    return;
  }
  }
}

void printBlock(const Block &b, std::ostream &os, int indent);

void printStmt(const Stmt &s, std::ostream &os, int indent) {
  std::string pad(indent * 4, ' ');
  os << pad;
  switch (s.kind) {
  case StmtKind::Expr: printExpr(*static_cast<const ExprStmt &>(s).value, os); break;
  case StmtKind::Assign: {
    auto &a = static_cast<const AssignStmt &>(s);
    for (auto &t : a.targets) {
      printExpr(*t, os);
      os << " = ";
    }
    printExpr(*a.value, os);
    break;
  }
  case StmtKind::AugAssign: {
    auto &a = static_cast<const AugAssignStmt &>(s);
    printExpr(*a.target, os);
    os << " " << binOpSymbol(a.op) << "= ";
    printExpr(*a.value, os);
    break;
  }
  case StmtKind::AnnAssign: {
    auto &a = static_cast<const AnnAssignStmt &>(s);
    printExpr(*a.target, os);
    os << ": ";
    printExpr(*a.annotation, os);
    if (a.value) {
      os << " = ";
      printExpr(*a.value, os);
    }
    break;
  }
  case StmtKind::If: {
    auto &i = static_cast<const IfStmt &>(s);
    os << "if ";
    printExpr(*i.test, os);
    os << ":  # line " << s.loc.line << "\n";
    printBlock(i.body, os, indent + 1);
    if (!i.orelse.empty()) {
      os << pad << "else:\n";
      printBlock(i.orelse, os, indent + 1);
    }
    return;
  }
  case StmtKind::For: {
    auto &f = static_cast<const ForStmt &>(s);
    os << "for ";
    printExpr(*f.target, os);
    os << " in ";
    printExpr(*f.iter, os);
    os << ":  # line " << s.loc.line << "\n";
    printBlock(f.body, os, indent + 1);
    if (!f.orelse.empty()) {
      os << pad << "else:\n";
      printBlock(f.orelse, os, indent + 1);
    }
    return;
  }
  case StmtKind::While: {
    auto &w = static_cast<const WhileStmt &>(s);
    os << "while ";
    printExpr(*w.test, os);
    os << ":  # line " << s.loc.line << "\n";
    printBlock(w.body, os, indent + 1);
    if (!w.orelse.empty()) {
      os << pad << "else:\n";
      printBlock(w.orelse, os, indent + 1);
    }
    return;
  }
  case StmtKind::Break: os << "break"; break;
  case StmtKind::Continue: os << "continue"; break;
  case StmtKind::Pass: os << "pass"; break;
  case StmtKind::Return: {
    auto &r = static_cast<const ReturnStmt &>(s);
    os << "return";
    if (r.value) {
      os << " ";
      printExpr(*r.value, os);
    }
    break;
  }
  case StmtKind::Assert: {
    auto &a = static_cast<const AssertStmt &>(s);
    os << "assert ";
    printExpr(*a.test, os);
    if (a.msg) {
      os << ", ";
      printExpr(*a.msg, os);
    }
    break;
  }
  case StmtKind::Raise: {
    auto &r = static_cast<const RaiseStmt &>(s);
    os << "raise";
    if (r.exc) {
      os << " ";
      printExpr(*r.exc, os);
    }
    break;
  }
  case StmtKind::Global: {
    os << "global";
    for (auto &n : static_cast<const GlobalStmt &>(s).names)
      os << " " << n;
    break;
  }
  case StmtKind::FunctionDef: {
    auto &f = static_cast<const FunctionDefStmt &>(s);
    for (auto &d : f.decorators) {
      os << "@";
      printExpr(*d, os);
      os << "\n" << pad;
    }
    os << "def " << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i)
      os << (i ? ", " : "") << f.params[i].name;
    os << "):  # line " << s.loc.line << "\n";
    printBlock(f.body, os, indent + 1);
    return;
  }
  case StmtKind::Import: {
    os << "import ";
    auto &im = static_cast<const ImportStmt &>(s);
    for (size_t i = 0; i < im.names.size(); ++i)
      os << (i ? ", " : "") << im.names[i].name
         << (im.names[i].asname.empty() ? "" : " as " + im.names[i].asname);
    break;
  }
  case StmtKind::ImportFrom: {
    auto &im = static_cast<const ImportFromStmt &>(s);
    os << "from " << std::string(im.level, '.') << im.module << " import ";
    for (size_t i = 0; i < im.names.size(); ++i)
      os << (i ? ", " : "") << im.names[i].name
         << (im.names[i].asname.empty() ? "" : " as " + im.names[i].asname);
    break;
  }
  case StmtKind::Unsupported:
    os << "# host code not read (" << static_cast<const UnsupportedStmt &>(s).reason << ")";
    break;
  }
  os << "\n";
}

void printBlock(const Block &b, std::ostream &os, int indent) {
  for (auto &s : b)
    printStmt(*s, os, indent);
}

} // namespace

void dumpModule(const Module &m, std::ostream &os) { printBlock(m.body, os, 0); }

std::string exprToString(const Expr &e) {
  std::ostringstream os;
  printExpr(e, os);
  return os.str();
}

} // namespace cutwin::fe
