#include "frontend/sema/numpy_ufuncs.h"

#include <map>

namespace cutwin::fe {

namespace {

using K = Ufunc::Kind;

const std::vector<Ufunc> &table() {
  static const std::vector<Ufunc> t = {
      {"sin", 1, K::Math, "sin"},
      {"cos", 1, K::Math, "cos"},
      {"tan", 1, K::Math, "tan"},
      {"arcsin", 1, K::Math, "asin"},
      {"arccos", 1, K::Math, "acos"},
      {"arctan", 1, K::Math, "atan"},
      {"sinh", 1, K::Math, "sinh"},
      {"cosh", 1, K::Math, "cosh"},
      {"tanh", 1, K::Math, "tanh"},
      {"arcsinh", 1, K::Math, "asinh"},
      {"arccosh", 1, K::Math, "acosh"},
      {"arctanh", 1, K::Math, "atanh"},
      {"exp", 1, K::Math, "exp"},
      {"expm1", 1, K::Math, "expm1"},
      {"log", 1, K::Math, "log"},
      {"log2", 1, K::Math, "log2"},
      {"log10", 1, K::Math, "log10"},
      {"log1p", 1, K::Math, "log1p"},
      {"sqrt", 1, K::Math, "sqrt"},
      {"fabs", 1, K::Math, "fabs"},
      {"floor", 1, K::Math, "floor"},
      {"ceil", 1, K::Math, "ceil"},
      {"trunc", 1, K::Math, "trunc"},
      {"degrees", 1, K::Math, "degrees"},
      {"rad2deg", 1, K::Math, "degrees"},
      {"radians", 1, K::Math, "radians"},
      {"deg2rad", 1, K::Math, "radians"},
      {"isnan", 1, K::Math, "isnan"},
      {"isinf", 1, K::Math, "isinf"},
      {"isfinite", 1, K::Math, "isfinite"},
      {"arctan2", 2, K::Math, "atan2"},
      {"hypot", 2, K::Math, "hypot"},
      {"copysign", 2, K::Math, "copysign"},
      {"fmod", 2, K::Math, "fmod"},
      {"exp2", 1, K::Math, "exp2"},
      {"cbrt", 1, K::Math, "cbrt"},
      {"rint", 1, K::Math, "rint"},
      {"nextafter", 2, K::Math, "nextafter"},
      {"add", 2, K::Operator, "", BinOp::Add},
      {"subtract", 2, K::Operator, "", BinOp::Sub},
      {"multiply", 2, K::Operator, "", BinOp::Mul},
      {"divide", 2, K::Operator, "", BinOp::Div},
      {"true_divide", 2, K::Operator, "", BinOp::Div},
      {"floor_divide", 2, K::Operator, "", BinOp::FloorDiv},
      {"remainder", 2, K::Operator, "", BinOp::Mod},
      {"mod", 2, K::Operator, "", BinOp::Mod},
      {"power", 2, K::Operator, "", BinOp::Pow},
      {"maximum", 2, K::Maximum},
      {"minimum", 2, K::Minimum},
      {"fmax", 2, K::FMax},
      {"fmin", 2, K::FMin},
      {"negative", 1, K::Negative},
      {"absolute", 1, K::Absolute},
      {"abs", 1, K::Absolute},
      {"bitwise_and", 2, K::Operator, "", BinOp::BitAnd},
      {"bitwise_or", 2, K::Operator, "", BinOp::BitOr},
      {"bitwise_xor", 2, K::Operator, "", BinOp::BitXor},
      {"left_shift", 2, K::Operator, "", BinOp::LShift},
      {"right_shift", 2, K::Operator, "", BinOp::RShift},
      {"invert", 1, K::Invert},
      {"bitwise_not", 1, K::Invert},
      {"equal", 2, K::Compare, "", BinOp::Add, CmpOp::Eq},
      {"not_equal", 2, K::Compare, "", BinOp::Add, CmpOp::NotEq},
      {"less", 2, K::Compare, "", BinOp::Add, CmpOp::Lt},
      {"less_equal", 2, K::Compare, "", BinOp::Add, CmpOp::LtE},
      {"greater", 2, K::Compare, "", BinOp::Add, CmpOp::Gt},
      {"greater_equal", 2, K::Compare, "", BinOp::Add, CmpOp::GtE},
      {"logical_and", 2, K::Logical, "and"},
      {"logical_or", 2, K::Logical, "or"},
      {"logical_xor", 2, K::Logical, "xor"},
      {"logical_not", 1, K::Logical, "not"},
  };
  return t;
}

} // namespace

const Ufunc *numpyUfunc(const std::string &name) {
  for (const Ufunc &u : table())
    if (name == u.name)
      return &u;
  return nullptr;
}

std::string complexMathCounterpart(const std::string &math) {
  static const std::map<std::string, std::string> m = {
      {"sin", "sin"},   {"cos", "cos"},     {"tan", "tan"},     {"asin", "asin"},
      {"acos", "acos"}, {"atan", "atan"},   {"sinh", "sinh"},   {"cosh", "cosh"},
      {"tanh", "tanh"}, {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"},
      {"exp", "exp"},   {"log", "log"},     {"log10", "log10"}, {"log2", "log2"},
      {"sqrt", "sqrt"}, {"isnan", "isnan"}, {"isinf", "isinf"}, {"isfinite", "isfinite"},
  };
  auto it = m.find(math);
  return it == m.end() ? "" : it->second;
}

std::optional<ScalarCase> ufuncCase(const Ufunc &u, const std::vector<Scalar> &in) {
  if (in.size() != u.nin)
    return std::nullopt;
  bool complexIn = false;
  for (Scalar s : in)
    complexIn |= isComplex(s);
  switch (u.kind) {
  case K::Math:
    if (complexIn) { // NumPy's complex loops: cmath's functions
      std::string m = complexMathCounterpart(u.math);
      if (u.nin != 1 || m.empty())
        return std::nullopt;
      bool predicate = m == "isnan" || m == "isinf" || m == "isfinite";
      return ScalarCase{{in[0]}, predicate ? Scalar::Bool : in[0]};
    }
    return mathCase(u.math, in);
  case K::Operator:
    if (complexIn && (u.op == BinOp::BitAnd || u.op == BinOp::BitOr || u.op == BinOp::BitXor ||
                      u.op == BinOp::LShift || u.op == BinOp::RShift))
      return std::nullopt;
    return typeBinOp(u.op, in[0], in[1]);
  case K::Compare: {
    Scalar t = npPromote(in[0], in[1]);
    if (isInteger(in[0]) && isInteger(in[1]) && isSigned(in[0]) != isSigned(in[1]) && !isInteger(t))
      return ScalarCase{{in[0], in[1]}, Scalar::Bool}; // int64 vs uint64: compared exactly
    return ScalarCase{{t, t}, Scalar::Bool};
  }
  case K::Logical: return ScalarCase{in, Scalar::Bool};
  case K::Invert:
    if (!isInteger(in[0]) && in[0] != Scalar::Bool)
      return std::nullopt;
    return ScalarCase{{in[0]}, in[0]};
  case K::Negative:
    if (complexIn)
      return ScalarCase{{in[0]}, in[0]};
    return typeUnaryOp(UnaryOp::Neg, in[0]);
  case K::Absolute: return ScalarCase{{in[0]}, complexIn ? partOf(in[0]) : in[0]};
  default: { // maximum, minimum, fmax, fmin: in the promoted type
    Scalar t = npPromote(in[0], in[1]);
    return ScalarCase{{t, t}, t};
  }
  }
}

} // namespace cutwin::fe
