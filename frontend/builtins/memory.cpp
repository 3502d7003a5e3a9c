// Memory: cuda.shared.array and cuda.local.array (arrays of a constant shape in the
// block's shared memory or the thread's frame; a zero-length shared array views the
// launch's dynamic shared memory) and cuda.const.array_like (a global array in constant
// memory, which every global host array already is here). And cffi's ffi.from_buffer(a):
// the address of a global array's data as a CPointer (numba's cffi support).
#include "frontend/builtins/builtin.h"
#include "frontend/ir/intrinsics.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerMemoryBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
llvm::Value *lowerFromBuffer(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
} // namespace ir

namespace {
enum class MemoryOp : unsigned { SharedArray, LocalArray, ConstArrayLike, FromBuffer };
}

namespace fe {

ExprInfo typeMemoryBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                           const Builtin &b);
ExprInfo typeArrayAlloc(TypingContext &cx, const CallExpr &c, MemSpace space);

std::span<const Builtin> memoryBuiltins() {
  auto row = [](const char *name, MemoryOp op, BuiltinLowerRule lower) {
    return Builtin{name, unsigned(op), &typeMemoryBuiltin, lower, /*rawArguments=*/true};
  };
  static const Builtin table[] = {
      row("cuda.shared.array", MemoryOp::SharedArray, &ir::lowerMemoryBuiltin),
      row("cuda.local.array", MemoryOp::LocalArray, &ir::lowerMemoryBuiltin),
      row("cuda.const.array_like", MemoryOp::ConstArrayLike, nullptr), // the constant array itself
      row("cffi.from_buffer", MemoryOp::FromBuffer, &ir::lowerFromBuffer),
  };
  return table;
}

ExprInfo typeMemoryBuiltin(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &,
                           const Builtin &b) {
  switch (MemoryOp(b.op)) {
  case MemoryOp::SharedArray: return typeArrayAlloc(cx, c, MemSpace::Shared);
  case MemoryOp::LocalArray: return typeArrayAlloc(cx, c, MemSpace::Local);
  case MemoryOp::ConstArrayLike: {
    // numba copies a global host array into constant memory; here every global host
    // array already is one, so this names the same constant.
    if (c.args.size() != 1 || !c.keywords.empty())
      cx.error(c.loc, "cuda.const.array_like() takes one global array");
    ExprInfo a = cx.typeExpr(*c.args[0]);
    if (!a.constant || a.constant->kind != ConstValue::Kind::Array)
      cx.error(c.args[0]->loc, "cuda.const.array_like() needs a global NumPy array (known when the kernel is "
                               "compiled), got " +
                                   a.type.str());
    return a;
  }
  case MemoryOp::FromBuffer: {
    if (c.args.size() != 1 || !c.keywords.empty())
      cx.error(c.loc, "ffi.from_buffer() takes one array");
    ExprInfo a = cx.typeExpr(*c.args[0]);
    if (!a.type.isArray() || a.type.isRecordArray() || a.type.pointer || a.type.space != MemSpace::Global)
      cx.error(c.args[0]->loc, "ffi.from_buffer() takes an array in global memory, not " + a.type.str());
    ExprInfo info;
    info.type = Type::pointerTo(a.type.scalar);
    return info;
  }
  }
  return {};
}

ExprInfo typeArrayAlloc(TypingContext &cx, const CallExpr &c, MemSpace space) {
  const char *what = space == MemSpace::Shared ? "cuda.shared.array" : "cuda.local.array";
  const Expr *shape = nullptr, *dtype = nullptr, *alignment = nullptr;
  if (c.args.size() > 3)
    cx.error(c.loc, std::string(what) + "() takes a shape, a dtype and an alignment");
  if (c.args.size() > 2)
    alignment = c.args[2].get();
  if (c.args.size() > 0)
    shape = c.args[0].get();
  if (c.args.size() > 1)
    dtype = c.args[1].get();
  for (auto &k : c.keywords) {
    if (k.name == "shape" && !shape)
      shape = k.value.get();
    else if (k.name == "dtype" && !dtype)
      dtype = k.value.get();
    else if (k.name == "alignment")
      alignment = k.value.get();
    else
      cx.error(k.loc, std::string(what) + "() got an unexpected keyword argument '" + k.name + "'");
  }
  if (!shape || !dtype)
    cx.error(c.loc, std::string(what) + "() needs a shape and a dtype");

  ConstValue dims;
  dims.kind = ConstValue::Kind::Tuple;
  auto shapeVal = [&]() -> std::optional<ConstValue> {
    // Locals are never compile-time constants: numba requires literals or globals.
    if (auto n = cx.constInt(*shape))
      return ConstValue::ofInt(*n);
    if (auto *t = asTupleLike(shape)) {
      ConstValue tv;
      tv.kind = ConstValue::Kind::Tuple;
      for (auto &e : t->elts) {
        auto n = cx.constInt(*e);
        if (!n)
          return std::nullopt;
        tv.elems.push_back(ConstValue::ofInt(*n));
      }
      return tv;
    }
    if (auto *nm = dyn<NameExpr>(shape); nm && (!cx.isRunTimeLocal(nm->id)))
      if (auto v = cx.constantOf(*shape); v && v->kind == ConstValue::Kind::Tuple)
        return v;
    return std::nullopt;
  }();
  if (!shapeVal)
    cx.error(shape->loc, std::string(what) +
                             "() shape must be a constant integer or tuple of integers (a literal or "
                             "a module-level constant)");
  if (shapeVal->kind == ConstValue::Kind::Int)
    dims.elems.push_back(*shapeVal);
  else
    dims = *shapeVal;
  if (dims.elems.empty() || dims.elems.size() > 3)
    cx.error(shape->loc, std::string(what) + "() supports 1 to 3 dimensions");
  for (auto &d : dims.elems) {
    if (d.kind != ConstValue::Kind::Int)
      cx.error(shape->loc, std::string(what) + "() shape entries must be integers");
    if (d.i < 0 || (d.i == 0 && (space != MemSpace::Shared || dims.elems.size() != 1)))
      cx.error(shape->loc, std::string(what) + "() dimensions must be positive, got " + std::to_string(d.i));
  }
  ExprInfo dt = cx.typeExpr(*dtype);
  if (dt.constant && dt.constant->kind == ConstValue::Kind::Str) { // dtype="int32", as NumPy names it
    auto sc = scalarFromName(dt.constant->s);
    if (!sc)
      cx.error(dtype->loc, std::string(what) + "(): Invalid NumPy dtype specified: '" + dt.constant->s + "'");
    dt.type = Type::typeObject(*sc);
  }
  if (dt.type.kind != TypeKind::TypeObject || dt.type.typeObjectIsVoid)
    cx.error(dtype->loc, std::string(what) + "() dtype must be a numba or NumPy scalar type such as "
                                             "float32 or np.int32, or a record type");
  ExprInfo info;
  bool record = !dt.type.elems.empty() && dt.type.elems[0].isRecord();
  if (!record && !dt.type.elems.empty())
    cx.error(dtype->loc,
             std::string(what) + "() dtype must be a scalar or record type, not " + dt.type.elems[0].str());
  info.type = record
                  ? Type::recordArray(dt.type.elems[0].record, unsigned(dims.elems.size()), Layout::C, space)
                  : Type::array(dt.type.scalar, unsigned(dims.elems.size()), Layout::C, space);
  info.constant = dims;
  if (alignment) { // numba: a power of two, and a multiple of the element size
    auto a = cx.constInt(*alignment);
    uint64_t item = info.type.itemSize();
    if (!a || *a <= 0 || (*a & (*a - 1)) != 0)
      cx.error(alignment->loc, std::string(what) + "() alignment must be a constant power of two");
    if (uint64_t(*a) % item != 0)
      cx.error(alignment->loc, std::string(what) + "() alignment " + std::to_string(*a) +
                                   " is not a multiple of the element size " + std::to_string(item));
    info.alignment = uint32_t(*a);
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerFromBuffer(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  // the array's first element's address; a CPointer has no extent (C's p[i])
  Value *arr = cx.lowerExpr(*c.args[0]);
  Value *zero = cx.builder().getInt64(0);
  return cx.buildArray(ci.type, cx.arrayField(arr, 0, 0), {zero}, {zero});
}

Value *lowerMemoryBuiltin(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &) {
  const fe::ExprInfo &ci = cx.info(c);
  const Type &t = ci.type;
  auto *i64 = llvm::Type::getInt64Ty(cx.context());
  uint64_t count = 1;
  std::vector<uint64_t> dims;
  for (auto &d : ci.constant->elems) {
    dims.push_back(uint64_t(d.i));
    count *= uint64_t(d.i);
  }
  if (t.space == fe::MemSpace::Shared && count == 0)
    return cx.lowerDynamicShared(t);
  Value *data;
  if (t.space == fe::MemSpace::Shared) {
    // One shared buffer per call site, as numba allocates them.
    GlobalVariable *g = cx.newSharedVariable(cx.arrayStorageType(t, count), "shared");
    g->setAlignment(Align(std::max<uint64_t>(16, ci.alignment)));
    // Where it was declared and its element size and shape, for the simulator's sanitizer
    // reports ("element [3, 1] of the shared array of line 12"): !{line, itemsize, dims...}
    std::vector<Metadata *> md{ConstantAsMetadata::get(cx.builder().getInt64(c.loc.line)),
                               ConstantAsMetadata::get(cx.builder().getInt64(t.itemSize()))};
    for (uint64_t d : dims)
      md.push_back(ConstantAsMetadata::get(cx.builder().getInt64(d)));
    g->setMetadata(ir::kSharedArrayMetadata, MDNode::get(cx.context(), md));
    data = g;
  } else {
    data = cx.newLocalArrayStorage(t, count, ci.alignment);
  }
  std::vector<Value *> shape, strides;
  uint64_t stride = t.itemSize();
  std::vector<uint64_t> st(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    st[k] = stride;
    stride *= dims[k];
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    shape.push_back(ConstantInt::get(i64, dims[k]));
    strides.push_back(ConstantInt::get(i64, st[k]));
  }
  return cx.buildArray(t, data, shape, strides);
}

} // namespace ir
} // namespace cutwin
