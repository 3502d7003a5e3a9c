#include "frontend/sema/operator_module.h"

#include <map>

namespace cutwin::fe {

const OperatorFunction *operatorFunction(const std::string &name) {
  using K = OperatorFunction::Kind;
  static const std::map<std::string, OperatorFunction> table = [] {
    std::map<std::string, OperatorFunction> t;
    const std::pair<const char *, BinOp> binary[] = {
        {"add", BinOp::Add},     {"sub", BinOp::Sub},           {"mul", BinOp::Mul},
        {"truediv", BinOp::Div}, {"floordiv", BinOp::FloorDiv}, {"mod", BinOp::Mod},
        {"pow", BinOp::Pow},     {"lshift", BinOp::LShift},     {"rshift", BinOp::RShift},
        {"and_", BinOp::BitAnd}, {"or_", BinOp::BitOr},         {"xor", BinOp::BitXor},
    };
    for (auto &[n, op] : binary) {
      OperatorFunction f{K::Binary};
      f.bin = op;
      t[n] = f;
      std::string inplace = std::string("i") + n; // iadd, iand_ -> iand
      if (inplace.back() == '_')
        inplace.pop_back();
      t[inplace] = f;
    }
    const std::pair<const char *, CmpOp> compare[] = {{"eq", CmpOp::Eq}, {"ne", CmpOp::NotEq},
                                                      {"lt", CmpOp::Lt}, {"le", CmpOp::LtE},
                                                      {"gt", CmpOp::Gt}, {"ge", CmpOp::GtE}};
    for (auto &[n, op] : compare) {
      OperatorFunction f{K::Compare};
      f.cmp = op;
      t[n] = f;
    }
    const std::pair<const char *, UnaryOp> unary[] = {
        {"neg", UnaryOp::Neg}, {"pos", UnaryOp::Pos}, {"invert", UnaryOp::Invert}, {"inv", UnaryOp::Invert}};
    for (auto &[n, op] : unary) {
      OperatorFunction f{K::Unary};
      f.unary = op;
      t[n] = f;
    }
    t["not_"] = OperatorFunction{K::Not};
    return t;
  }();
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

} // namespace cutwin::fe
