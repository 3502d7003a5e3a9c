// Loads and stores with a cache policy: cuda.ldca/ldcg/ldcs/ldlu/ldcv(array, index) and
// cuda.stcg/stcs/stwb/stwt(array, index, value), on arrays (an index per dimension) and
// CPointers (one integer). Each is a `cutwin.cache.load` / `cutwin.cache.store` of the
// element's bits: the GPU backend emits PTX's `ld.global.<policy>` for it
// (backend_gpu/cache_hints.cpp); on the simulator, which has no caches, a plain access.
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerCacheHintBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
using P = ir::CachePolicy;
struct CacheHint {
  const char *name; ///< cuda.<name>
  ir::CachePolicy policy;
  bool store;
};
const CacheHint kHints[] = {{"ldca", P::Ca, false}, {"ldcg", P::Cg, false}, {"ldcs", P::Cs, false},
                            {"ldlu", P::Lu, false}, {"ldcv", P::Cv, false}, {"stcg", P::Cg, true},
                            {"stcs", P::Cs, true},  {"stwb", P::Wb, true},  {"stwt", P::Wt, true}};
} // namespace

namespace fe {

ExprInfo typeCacheHintBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                              const Builtin &b);

std::span<const Builtin> cacheHintBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (unsigned i = 0; i < std::size(kHints); ++i)
      r.add(std::string("cuda.") + kHints[i].name, i, &typeCacheHintBuiltin, &ir::lowerCacheHintBuiltin);
  });
  return rows.rows();
}

ExprInfo typeCacheHintBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                              const Builtin &b) {
  const CacheHint &h = kHints[b.op];
  std::string what = h.name;
  cx.checkArity(c, b.name, args.size(), h.store ? 3 : 2, h.store ? 3 : 2);
  const Type &at = args[0].type;
  if (!at.isArray() || at.isRecordArray())
    cx.error(c.args[0]->loc, what + " operates on arrays or pointers. Got type " + at.str());
  if (!isInteger(at.scalar) && !isFloat(at.scalar))
    cx.error(c.args[0]->loc, what + " requires array of integer or float type, got " + scalarName(at.scalar));
  ExprInfo info;
  const Type &it = args[1].type;
  // numba-cuda's messages, which its tests match
  if (it.isScalar() && isInteger(it.scalar)) {
    if (!at.pointer && at.ndim != 1)
      cx.error(c.args[1]->loc, "Expected " + std::to_string(at.ndim) + " indices, got a scalar");
    info.operandTypes.push_back(it.scalar);
  } else if (it.isTuple()) {
    if (at.pointer)
      cx.error(c.args[1]->loc,
               "Pointers only support scalar indexing, got tuple of " + std::to_string(it.elems.size()));
    if (it.elems.size() != at.ndim)
      cx.error(c.args[1]->loc,
               "Expected " + std::to_string(at.ndim) + " indices, got " + std::to_string(it.elems.size()));
    for (const Type &e : it.elems) {
      if (!e.isScalar() || !isInteger(e.scalar))
        cx.error(c.args[1]->loc, it.str() + " is not a valid index");
      info.operandTypes.push_back(e.scalar);
    }
  } else {
    cx.error(c.args[1]->loc, it.str() + " is not a valid index");
  }
  if (h.store) {
    if (!args[2].type.isScalar() || isComplex(args[2].type.scalar))
      cx.error(c.args[2]->loc, what + ": the value is a number, not " + args[2].type.str());
    info.operandTypes.push_back(at.scalar);
    info.type = Type::none();
  } else {
    info.type = Type::scalarOf(at.scalar);
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerCacheHintBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  const CacheHint &h = kHints[ci.function->op];
  const Type &at = cx.info(*c.args[0]).type;
  Value *arr = cx.lowerExpr(*c.args[0]);
  const fe::Expr &ie = *c.args[1];
  Value *iv = cx.lowerExpr(ie);
  std::vector<Value *> idx;
  if (cx.info(ie).type.isTuple())
    for (unsigned k = 0; k < cx.info(ie).type.elems.size(); ++k)
      idx.push_back(irb.CreateExtractValue(iv, {k}));
  else
    idx.push_back(iv);
  std::vector<Scalar> idxTypes(ci.operandTypes.begin(), ci.operandTypes.begin() + idx.size());
  Value *value = h.store ? cx.lowerAs(*c.args[2], Type::scalarOf(at.scalar)) : nullptr;
  Value *addr = cx.elementAddress(arr, at, idx, idxTypes, c.loc);
  if (addr->getType()->getPointerAddressSpace() != 0)
    addr = irb.CreateAddrSpaceCast(addr, PointerType::get(cx.context(), 0));
  cx.setLoc(c.loc);
  unsigned bits = fe::bitWidth(at.scalar);
  llvm::Type *bitsType = IntegerType::get(cx.context(), bits);
  Value *policy = irb.getInt32(unsigned(h.policy)), *width = irb.getInt32(bits);
  if (h.store) {
    Value *v = irb.CreateZExt(irb.CreateBitCast(value, bitsType), irb.getInt64Ty());
    irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::CacheStore), {addr, v, policy, width});
    return nullptr;
  }
  Value *r = irb.CreateCall(getIntrinsic(cx.module(), Intrinsic::CacheLoad), {addr, policy, width});
  return irb.CreateBitCast(irb.CreateTrunc(r, bitsType), cx.scalarType(at.scalar));
}

} // namespace ir
} // namespace cutwin
