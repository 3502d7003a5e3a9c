// NumPy's whole-array reductions in kernels: np.sum, np.prod, np.mean, np.var, np.std,
// np.min/amin, np.max/amax, np.all, np.any, np.nanmin, np.nanmax, np.nanmean, np.nansum,
// np.nanprod, np.count_nonzero, and the array methods of the same names (a.sum(), ...).
// Result types and the order of accumulation are numba's (numba-cuda's arraymath: one pass
// in C order from the type's zero or one, `c / a.size` for the mean, `var ** 0.5` for the
// standard deviation), so the simulator and the GPU give numba's results bit for bit.
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

#include <llvm/IR/Constants.h>

#include <limits>

namespace cutwin::fe {

ExprInfo typeReduction(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                       const Builtin &b);
llvm::Value *lowerReduction(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &info);

namespace {

enum class ReductionOp : unsigned {
  Sum,
  Prod,
  Mean,
  Var,
  Std,
  Min,
  Max,
  All,
  Any,
  NanMin,
  NanMax,
  NanMean,
  NanSum,
  NanProd,
  CountNonzero,
};

using S = Scalar;

bool isMethod(const Builtin &b) { return std::string_view(b.name).starts_with("array."); }

/// numba's _expand_integer: integers widen to the machine word, booleans count as int64.
S expanded(S d) {
  if (d == S::Bool)
    return S::I64;
  if (isInteger(d))
    return isSigned(d) ? S::I64 : S::U64;
  return d;
}

/// The accumulator's type (ExprInfo::operandTypes[0]) and the result's.
std::pair<S, S> reductionTypes(ReductionOp op, S d) {
  switch (op) {
  case ReductionOp::Sum:
  case ReductionOp::Prod: return {expanded(d), expanded(d)};
  case ReductionOp::NanSum:
  case ReductionOp::NanProd: {
    S t = isInteger(d) || d == S::Bool ? S::I64 : d; // numba: intp for every integer
    return {t, t};
  }
  case ReductionOp::Mean: {
    S acc = isInteger(d) || d == S::Bool ? S::F64 : d;
    return {acc, isComplex(acc) ? S::C128 : S::F64}; // c / a.size (an int64) is a float64
  }
  case ReductionOp::NanMean: return {isComplex(d) ? S::C128 : S::F64, isComplex(d) ? S::C128 : S::F64};
  case ReductionOp::Var:
  case ReductionOp::Std: return {S::F64, S::F64};
  case ReductionOp::Min:
  case ReductionOp::Max:
  case ReductionOp::NanMin:
  case ReductionOp::NanMax: return {d, d};
  case ReductionOp::All:
  case ReductionOp::Any: return {S::Bool, S::Bool};
  case ReductionOp::CountNonzero: return {S::I64, S::I64};
  }
  return {d, d};
}

} // namespace

std::span<const Builtin> reductionBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    struct Name {
      const char *name;
      ReductionOp op;
      bool method; ///< also an array method
    };
    static const Name names[] = {
        {"sum", ReductionOp::Sum, true},
        {"prod", ReductionOp::Prod, true},
        {"mean", ReductionOp::Mean, true},
        {"var", ReductionOp::Var, true},
        {"std", ReductionOp::Std, true},
        {"min", ReductionOp::Min, true},
        {"amin", ReductionOp::Min, false},
        {"max", ReductionOp::Max, true},
        {"amax", ReductionOp::Max, false},
        {"all", ReductionOp::All, true},
        {"any", ReductionOp::Any, true},
        {"nanmin", ReductionOp::NanMin, false},
        {"nanmax", ReductionOp::NanMax, false},
        {"nanmean", ReductionOp::NanMean, false},
        {"nansum", ReductionOp::NanSum, false},
        {"nanprod", ReductionOp::NanProd, false},
        {"count_nonzero", ReductionOp::CountNonzero, false},
    };
    for (const Name &n : names) {
      r.add(std::string("numpy.") + n.name, unsigned(n.op), &typeReduction, &lowerReduction);
      if (n.method)
        r.add(std::string("array.") + n.name, unsigned(n.op), &typeReduction, &lowerReduction);
    }
  });
  return rows.rows();
}

ExprInfo typeReduction(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                       const Builtin &b) {
  std::string_view name(b.name);
  std::string what = (isMethod(b) ? "array." : "np.") + std::string(name.substr(name.find('.') + 1)) + "()";
  cx.checkArity(c, what, args.size(), isMethod(b) ? 0 : 1, isMethod(b) ? 0 : 1);
  Type t = isMethod(b) ? cx.typeExpr(methodReceiver(c)).type : args[0].type;
  if (!t.isArray() || t.isRecordArray())
    cx.error(isMethod(b) ? c.loc : c.args[0]->loc, what + " needs an array of numbers, not " + t.str());
  ReductionOp op = ReductionOp(b.op);
  bool ordered = op == ReductionOp::Min || op == ReductionOp::Max || op == ReductionOp::NanMin ||
                 op == ReductionOp::NanMax;
  if (ordered && isComplex(t.scalar))
    cx.error(c.loc, what + " of complex numbers is not supported in kernels");
  auto [acc, result] = reductionTypes(op, t.scalar);
  ExprInfo info;
  info.type = Type::scalarOf(result);
  info.operandTypes = {acc};
  return info;
}

llvm::Value *lowerReduction(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &info) {
  using llvm::Value;
  auto &b = cx.builder();
  const Builtin &row = *info.function;
  ReductionOp op = ReductionOp(row.op);
  const Expr &arrExpr = isMethod(row) ? methodReceiver(c) : *c.args[0];
  const Type &at = cx.info(arrExpr).type;
  Value *arr = cx.lowerExpr(arrExpr);
  cx.setLoc(c.loc);
  S d = at.scalar, acc = info.operandTypes[0], result = info.type.scalar;

  auto arith = [&](BinOp o, Value *x, Value *y, S t) { return cx.binary(o, x, y, t); };
  auto isNan = [&](Value *v, S t) -> Value * {
    if (isComplex(t))
      return b.CreateOr(cx.compare(CmpOp::NotEq, cx.realPart(v), cx.realPart(v), partOf(t)),
                        cx.compare(CmpOp::NotEq, cx.imagPart(v), cx.imagPart(v), partOf(t)));
    if (!isFloat(t))
      return b.getFalse();
    return cx.compare(CmpOp::NotEq, v, v, t);
  };
  auto number = [&](double v, S t) {
    ConstValue k = isFloat(t) || isComplex(t) ? ConstValue::ofFloat(v) : ConstValue::ofInt(int64_t(v));
    return cx.convert(cx.constant(k, k.type()), k.type(), Type::scalarOf(t));
  };
  // One pass over the elements in C order; `step` updates the accumulators.
  auto eachValue = [&](const std::function<void(Value *)> &step) {
    cx.forEachElement(arr, at, [&](llvm::ArrayRef<Value *> idx) {
      std::vector<S> idxTypes(idx.size(), S::I64);
      step(cx.loadElement(cx.elementAddress(arr, at, idx, idxTypes, c.loc), d));
    });
  };
  auto variable = [&](S t, Value *init, const char *name) {
    llvm::AllocaInst *slot = cx.entryAlloca(cx.scalarType(t), name);
    b.CreateStore(init, slot);
    return slot;
  };
  auto load = [&](llvm::AllocaInst *slot) { return b.CreateLoad(slot->getAllocatedType(), slot); };
  Value *size = b.getInt64(1); // (a 0-d array holds one element)
  for (unsigned k = 0; k < at.ndim; ++k)
    size = b.CreateMul(size, cx.arrayField(arr, 1, k));

  switch (op) {
  case ReductionOp::Sum:
  case ReductionOp::Prod:
  case ReductionOp::NanSum:
  case ReductionOp::NanProd:
  case ReductionOp::Mean: {
    bool product = op == ReductionOp::Prod || op == ReductionOp::NanProd;
    bool skipNan = op == ReductionOp::NanSum || op == ReductionOp::NanProd;
    auto *sum = variable(acc, number(product ? 1 : 0, acc), "reduce.acc");
    eachValue([&](Value *v) {
      Value *next = arith(product ? BinOp::Mul : BinOp::Add, load(sum), cx.convertScalar(v, d, acc), acc);
      if (skipNan)
        next = b.CreateSelect(isNan(v, d), load(sum), next);
      b.CreateStore(next, sum);
    });
    if (op != ReductionOp::Mean)
      return load(sum);
    return arith(BinOp::Div, cx.convertScalar(load(sum), acc, result), cx.convertScalar(size, S::I64, result),
                 result); // numba's `c / a.size`
  }
  case ReductionOp::NanMean: {
    auto *sum = variable(acc, number(0, acc), "reduce.acc");
    auto *count = variable(S::I64, b.getInt64(0), "reduce.count");
    eachValue([&](Value *v) {
      Value *nan = isNan(v, d);
      Value *next = arith(BinOp::Add, load(sum), cx.convertScalar(v, d, acc), acc);
      b.CreateStore(b.CreateSelect(nan, load(sum), next), sum);
      b.CreateStore(b.CreateSelect(nan, load(count), b.CreateAdd(load(count), b.getInt64(1))), count);
    });
    // np.divide: no ZeroDivisionError for an all-NaN array (NaN)
    return arith(BinOp::Div, load(sum), cx.convertScalar(load(count), S::I64, acc), acc);
  }
  case ReductionOp::Var:
  case ReductionOp::Std: {
    // m = a.mean(); ssd += real(val * conj(val)) for val = v - m; ssd / a.size
    S meanT = isComplex(d) ? S::C128 : S::F64;
    S meanAcc = isInteger(d) || d == S::Bool ? S::F64 : d;
    auto *sum = variable(meanAcc, number(0, meanAcc), "reduce.acc");
    eachValue([&](Value *v) {
      b.CreateStore(arith(BinOp::Add, load(sum), cx.convertScalar(v, d, meanAcc), meanAcc), sum);
    });
    Value *mean = arith(BinOp::Div, cx.convertScalar(load(sum), meanAcc, meanT),
                        cx.convertScalar(size, S::I64, meanT), meanT);
    auto *ssd = variable(S::F64, number(0, S::F64), "reduce.ssd");
    eachValue([&](Value *v) {
      Value *val = arith(BinOp::Sub, cx.convertScalar(v, d, meanT), mean, meanT);
      Value *sq = isComplex(meanT)
                      ? arith(BinOp::Add, arith(BinOp::Mul, cx.realPart(val), cx.realPart(val), S::F64),
                              arith(BinOp::Mul, cx.imagPart(val), cx.imagPart(val), S::F64), S::F64)
                      : arith(BinOp::Mul, val, val, S::F64);
      b.CreateStore(arith(BinOp::Add, load(ssd), sq, S::F64), ssd);
    });
    Value *var = arith(BinOp::Div, load(ssd), cx.convertScalar(size, S::I64, S::F64), S::F64);
    if (op == ReductionOp::Var)
      return var;
    return cx.power(var, number(0.5, S::F64), S::F64, S::F64, S::F64); // numba's `a.var() ** 0.5`
  }
  case ReductionOp::Min:
  case ReductionOp::Max:
  case ReductionOp::NanMin:
  case ReductionOp::NanMax: {
    bool isMin = op == ReductionOp::Min || op == ReductionOp::NanMin;
    bool skipNan = op == ReductionOp::NanMin || op == ReductionOp::NanMax;
    cx.raiseExceptionIf(b.CreateICmpEQ(size, b.getInt64(0)), c.loc,
                        std::string("ValueError: zero-size array to reduction operation ") +
                            (isMin ? "minimum" : "maximum") + " which has no identity");
    // Starting from the identity of a strict comparison (+-inf, the integer limits) gives
    // numba's result, which starts from the first element; np.nan* starts from NaN, which
    // the first number replaces.
    Value *init;
    if (isFloat(d))
      init = number(skipNan ? std::numeric_limits<double>::quiet_NaN()
                            : (isMin ? 1 : -1) * std::numeric_limits<double>::infinity(),
                    d);
    else if (d == S::Bool)
      init = b.getInt1(isMin);
    else {
      auto *it = llvm::cast<llvm::IntegerType>(cx.scalarType(d));
      init =
          isMin ? (isSigned(d) ? llvm::ConstantInt::get(it, llvm::APInt::getSignedMaxValue(it->getBitWidth()))
                               : llvm::ConstantInt::get(it, llvm::APInt::getMaxValue(it->getBitWidth())))
                : (isSigned(d) ? llvm::ConstantInt::get(it, llvm::APInt::getSignedMinValue(it->getBitWidth()))
                               : llvm::ConstantInt::get(it, 0));
    }
    auto *best = variable(d, init, "reduce.best");
    CmpOp better = isMin ? CmpOp::Lt : CmpOp::Gt;
    eachValue([&](Value *v) {
      Value *cur = load(best);
      Value *take;
      if (skipNan) // numba: `if not isnan(v) and not (best < v): best = v` (for nanmin)
        take = b.CreateAnd(b.CreateNot(isNan(v, d)), b.CreateNot(cx.compare(better, cur, v, d)));
      else // the first NaN is the result
        take =
            b.CreateAnd(b.CreateNot(isNan(cur, d)), b.CreateOr(isNan(v, d), cx.compare(better, v, cur, d)));
      b.CreateStore(b.CreateSelect(take, v, cur), best);
    });
    return load(best);
  }
  case ReductionOp::All:
  case ReductionOp::Any: {
    bool all = op == ReductionOp::All;
    auto *r = variable(S::Bool, b.getInt1(all), "reduce.truth");
    eachValue([&](Value *v) {
      Value *t = cx.truth(v, Type::scalarOf(d));
      b.CreateStore(all ? b.CreateAnd(load(r), t) : b.CreateOr(load(r), t), r);
    });
    return load(r);
  }
  case ReductionOp::CountNonzero: {
    auto *n = variable(S::I64, b.getInt64(0), "reduce.count");
    eachValue([&](Value *v) {
      b.CreateStore(b.CreateAdd(load(n), b.CreateZExt(cx.truth(v, Type::scalarOf(d)), b.getInt64Ty())), n);
    });
    return load(n);
  }
  }
  return nullptr;
}

} // namespace cutwin::fe
