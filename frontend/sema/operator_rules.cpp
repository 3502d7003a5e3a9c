#include "frontend/sema/operator_rules.h"

#include "frontend/builtins/half.h"

#include <tuple>

namespace cutwin::fe {

using S = Scalar;

namespace {

const S kSigned[] = {S::I8, S::I16, S::I32, S::I64};
const S kUnsigned[] = {S::U8, S::U16, S::U32, S::U64};
const S kMachineInts[] = {S::I64, S::U64};

/// choose_result_int: at least 64 bits, signed if any input is.
S resultInt(std::initializer_list<S> in) {
  unsigned bits = 64;
  bool sgn = false;
  for (S s : in) {
    bits = std::max(bits, bitWidth(s));
    sgn = sgn || isSigned(s);
  }
  return intScalar(bits, sgn);
}

std::vector<ScalarCase> integerBinopCases() {
  std::vector<ScalarCase> c;
  for (S a : kMachineInts)
    for (S b : kMachineInts)
      c.push_back({{a, b}, resultInt({a, b})});
  return c;
}

void addReal(std::vector<ScalarCase> &c) {
  c.push_back({{S::F32, S::F32}, S::F32});
  c.push_back({{S::F64, S::F64}, S::F64});
}

/// numba-cuda's float16 and bfloat16 operators (+, -, *, /): half in, half out; the rest
/// promote.
void addHalf(std::vector<ScalarCase> &c) {
  c.push_back({{S::F16, S::F16}, S::F16});
  c.push_back({{S::BF16, S::BF16}, S::BF16});
}

/// bfloat16 with a 64-bit integer (a Python int among them): numba-cuda's overloads pick
/// int64 and truncate the bfloat16; cutwin computes in float64 instead.
bool bfloat16WithWideInteger(Scalar a, Scalar b) {
  auto wide = [](Scalar s) { return s == S::I64 || s == S::U64; };
  return (a == S::BF16 && wide(b)) || (b == S::BF16 && wide(a));
}

void addComplex(std::vector<ScalarCase> &c) {
  c.push_back({{S::C64, S::C64}, S::C64});
  c.push_back({{S::C128, S::C128}, S::C128});
}

} // namespace

std::optional<ScalarCase> resolveOverload(const std::vector<ScalarCase> &cases,
                                          const std::vector<Scalar> &actual, bool allowUnsafe) {
  std::optional<ScalarCase> best;
  std::tuple<int, int, int> bestRate{};
  for (auto &c : cases) {
    if (c.args.size() != actual.size())
      continue;
    int unsafe = 0, safe = 0, promote = 0;
    bool ok = true;
    for (size_t i = 0; i < actual.size() && ok; ++i) {
      switch (canConvert(actual[i], c.args[i])) {
      case Conversion::Exact: break;
      case Conversion::Promote: ++promote; break;
      case Conversion::Safe: ++safe; break;
      case Conversion::Unsafe:
        ++unsafe;
        ok = allowUnsafe;
        break;
      case Conversion::None: ok = false; break;
      }
    }
    if (!ok)
      continue;
    std::tuple<int, int, int> rate{unsafe, safe, promote};
    if (!best || rate < bestRate) {
      best = c;
      bestRate = rate;
    }
  }
  return best;
}

namespace {

/// The finer of two time units that convert to each other (years and months; weeks to
/// nanoseconds), as numba and NumPy pick the unit of a result.
std::optional<TimeUnit> commonUnit(Scalar a, Scalar b) {
  TimeUnit x = timeUnit(a), y = timeUnit(b);
  if ((x <= TimeUnit::M) != (y <= TimeUnit::M))
    return std::nullopt;
  return std::max(x, y);
}

/// numba's datetime64/timedelta64 arithmetic: datetime - datetime is a timedelta, datetime
/// +- timedelta a datetime, timedeltas add, subtract, scale by integers and divide into a
/// float64, in the finer unit of the two.
std::optional<ScalarCase> timeBinOp(BinOp op, Scalar a, Scalar b) {
  bool ta = isTimedelta(a), tb = isTimedelta(b), da = isDatetime(a), db = isDatetime(b);
  if (isTime(a) && isTime(b)) {
    auto u = commonUnit(a, b);
    if (!u)
      return std::nullopt;
    S d = datetimeOf(*u), t = timedeltaOf(*u);
    if (op == BinOp::Add && ta && tb)
      return ScalarCase{{t, t}, t};
    if (op == BinOp::Add && da && tb)
      return ScalarCase{{d, t}, d};
    if (op == BinOp::Add && ta && db)
      return ScalarCase{{t, d}, d};
    if (op == BinOp::Sub && da && db)
      return ScalarCase{{d, d}, t};
    if (op == BinOp::Sub && da && tb)
      return ScalarCase{{d, t}, d};
    if (op == BinOp::Sub && ta && tb)
      return ScalarCase{{t, t}, t};
    if (op == BinOp::Div && ta && tb)
      return ScalarCase{{t, t}, S::F64};
    return std::nullopt;
  }
  if (op == BinOp::Mul && ta && (isInteger(b) || b == S::Bool))
    return ScalarCase{{a, S::I64}, a};
  if (op == BinOp::Mul && tb && (isInteger(a) || a == S::Bool))
    return ScalarCase{{S::I64, b}, b};
  return std::nullopt;
}

} // namespace

std::optional<ScalarCase> typeBinOp(BinOp op, Scalar a, Scalar b) {
  if (isFp8(a) || isFp8(b)) // 8-bit floats have no operators (cuda_fp8.h defines none): convert first
    return std::nullopt;
  if (isTime(a) || isTime(b))
    return timeBinOp(op, a, b);
  bool arithmetic = op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Div ||
                    op == BinOp::FloorDiv || op == BinOp::Mod || op == BinOp::Pow;
  if (arithmetic && bfloat16WithWideInteger(a, b))
    return ScalarCase{{S::F64, S::F64}, S::F64};
  std::vector<ScalarCase> cases;
  bool allowUnsafe = true;
  switch (op) {
  case BinOp::Add:
  case BinOp::Sub:
  case BinOp::Mul:
    cases = integerBinopCases();
    addHalf(cases);
    addReal(cases);
    addComplex(cases);
    break;
  case BinOp::FloorDiv:
  case BinOp::Mod:
    cases = integerBinopCases();
    addReal(cases);
    break;
  case BinOp::Div:
    for (S x : kMachineInts)
      for (S y : kMachineInts)
        cases.push_back({{x, y}, S::F64});
    addHalf(cases);
    addReal(cases);
    addComplex(cases);
    break;
  case BinOp::Pow:
    cases = integerBinopCases();
    for (S e : {S::I32, S::I64, S::U64})
      cases.push_back({{S::F32, e}, S::F32});
    for (S e : {S::I32, S::I64, S::U64})
      cases.push_back({{S::F64, e}, S::F64});
    addReal(cases);
    addComplex(cases);
    break;
  case BinOp::LShift:
  case BinOp::RShift:
    allowUnsafe = false;
    for (S x : kSigned)
      for (S y : {S::U64, S::I64})
        cases.push_back({{x, y}, S::I64});
    for (S x : kUnsigned)
      for (S y : {S::U64, S::I64})
        cases.push_back({{x, y}, S::U64});
    break;
  case BinOp::BitAnd:
  case BinOp::BitOr:
  case BinOp::BitXor:
    allowUnsafe = false;
    cases.push_back({{S::Bool, S::Bool}, S::Bool});
    for (auto &c : integerBinopCases())
      cases.push_back(c);
    break;
  case BinOp::MatMul: return std::nullopt;
  }
  return resolveOverload(cases, {a, b}, allowUnsafe);
}

std::optional<ScalarCase> typeUnaryOp(UnaryOp op, Scalar a) {
  if (isFp8(a)) // 8-bit floats have no operators (cuda_fp8.h defines none): convert first
    return std::nullopt;
  if (isTime(a)) // -td, +td (NaT stays NaT)
    return isTimedelta(a) && (op == UnaryOp::Neg || op == UnaryOp::Pos) ? std::optional(ScalarCase{{a}, a})
                                                                        : std::nullopt;
  std::vector<ScalarCase> cases;
  if (op == UnaryOp::Invert) {
    cases.push_back({{S::Bool}, S::Bool});
    for (S x : kUnsigned)
      cases.push_back({{x}, resultInt({x})});
    for (S x : kSigned)
      cases.push_back({{x}, resultInt({x})});
    return resolveOverload(cases, {a}, false);
  }
  for (S x : kUnsigned)
    cases.push_back({{x}, resultInt({x})});
  for (S x : kSigned)
    cases.push_back({{x}, resultInt({x})});
  cases.push_back({{S::F16}, S::F16});
  cases.push_back({{S::BF16}, S::BF16});
  cases.push_back({{S::F32}, S::F32});
  cases.push_back({{S::F64}, S::F64});
  cases.push_back({{S::C64}, S::C64});
  cases.push_back({{S::C128}, S::C128});
  cases.push_back({{S::Bool}, S::I64});
  return resolveOverload(cases, {a});
}

std::optional<ScalarCase> typeCompare(CmpOp op, Scalar a, Scalar b) {
  if (isFp8(a) || isFp8(b)) // 8-bit floats have no operators (cuda_fp8.h defines none): convert first
    return std::nullopt;
  if (op != CmpOp::Eq && op != CmpOp::NotEq && op != CmpOp::Lt && op != CmpOp::LtE && op != CmpOp::Gt &&
      op != CmpOp::GtE)
    return std::nullopt;
  if (bfloat16WithWideInteger(a, b))
    return ScalarCase{{S::F64, S::F64}, S::Bool};
  if (isTime(a) || isTime(b)) { // two datetimes or two timedeltas, in the finer unit
    auto u = sameTimeKind(a, b) ? commonUnit(a, b) : std::nullopt;
    if (!u)
      return std::nullopt;
    S c = isDatetime(a) ? datetimeOf(*u) : timedeltaOf(*u);
    return ScalarCase{{c, c}, S::Bool};
  }
  std::vector<ScalarCase> cases;
  cases.push_back({{S::Bool, S::Bool}, S::Bool});
  for (S x : kSigned)
    cases.push_back({{x, x}, S::Bool});
  for (S x : kUnsigned)
    cases.push_back({{x, x}, S::Bool});
  cases.push_back({{S::F16, S::F16}, S::Bool});
  cases.push_back({{S::BF16, S::BF16}, S::Bool});
  cases.push_back({{S::F32, S::F32}, S::Bool});
  cases.push_back({{S::F64, S::F64}, S::Bool});
  if (op == CmpOp::Eq || op == CmpOp::NotEq) { // complex numbers are not ordered
    cases.push_back({{S::C64, S::C64}, S::Bool});
    cases.push_back({{S::C128, S::C128}, S::Bool});
  }
  return resolveOverload(cases, {a, b});
}

std::vector<ScalarCase> mathCases(const std::string &name) {
  std::vector<ScalarCase> c;
  auto unaryFloat = [&] {
    c.push_back({{S::I64}, S::F64});
    c.push_back({{S::U64}, S::F64});
    c.push_back({{S::F32}, S::F32});
    c.push_back({{S::F64}, S::F64});
  };
  if (name == "atan2" || name == "hypot") {
    c.push_back({{S::I64, S::I64}, S::F64});
    c.push_back({{S::U64, S::U64}, S::F64});
    c.push_back({{S::F32, S::F32}, S::F32});
    c.push_back({{S::F64, S::F64}, S::F64});
  } else if (name == "copysign" || name == "fmod" || name == "nextafter" || name == "remainder") {
    c.push_back({{S::F32, S::F32}, S::F32});
    c.push_back({{S::F64, S::F64}, S::F64});
  } else if (name == "pow") {
    c.push_back({{S::F32, S::F32}, S::F32});
    c.push_back({{S::F64, S::F64}, S::F64});
    c.push_back({{S::F32, S::I32}, S::F32});
    c.push_back({{S::F64, S::I32}, S::F64});
  } else if (name == "isnan" || name == "isinf" || name == "isfinite") {
    for (S x : {S::I64, S::U64, S::F32, S::F64})
      c.push_back({{x}, S::Bool});
  } else {
    unaryFloat();
    if (halfMathKind(name)) // numba-cuda's float16 overloads (after the others: bool stays float64)
      c.push_back({{S::F16}, S::F16});
  }
  return c;
}

std::optional<ScalarCase> mathCase(const std::string &name, const std::vector<Scalar> &in) {
  auto c = resolveOverload(mathCases(name), in);
  if (c && isFloat(c->result))
    for (size_t i = 0; i < c->args.size(); ++i)
      if (isInteger(c->args[i]) && !(name == "pow" && i == 1))
        c->args[i] = c->result;
  return c;
}

} // namespace cutwin::fe
