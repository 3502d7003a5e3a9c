// Array methods that make views or copies in kernels: a.reshape(shape), a.view(dtype),
// a.transpose(axes) (and the attribute a.T), a.copy(), and numba's carray/farray, which
// view a CPointer's data as an array. Views share the array's data; their shapes and byte
// strides follow numba-cuda's rules (arrayobj: normalize_reshape_value, _compatible_view,
// _change_dtype), and so do their errors, raised as numba raises them.
#include "frontend/builtins/array_methods.h"

#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

#include <algorithm>
#include <numeric>

namespace cutwin {

namespace ir {
llvm::Value *lowerArrayMethod(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace {
enum class ArrayMethodOp : unsigned { Reshape, View, Transpose, Copy, CArray, FArray };
}

namespace fe {

ExprInfo typeArrayMethod(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b);

std::span<const Builtin> arrayMethodBuiltins() {
  auto row = [](const char *name, ArrayMethodOp op) {
    return Builtin{name, unsigned(op), &typeArrayMethod, &ir::lowerArrayMethod};
  };
  static const Builtin table[] = {
      row("array.reshape", ArrayMethodOp::Reshape),
      row("array.view", ArrayMethodOp::View),
      row("array.transpose", ArrayMethodOp::Transpose),
      row("array.copy", ArrayMethodOp::Copy),
      {"cuda.carray", unsigned(ArrayMethodOp::CArray), &typeArrayMethod, &ir::lowerArrayMethod, true},
      {"cuda.farray", unsigned(ArrayMethodOp::FArray), &typeArrayMethod, &ir::lowerArrayMethod, true},
  };
  return table;
}

namespace {

/// The element type a dtype argument names: a scalar type object or a NumPy dtype name.
Scalar dtypeArgument(TypingContext &cx, const Expr &e, const ExprInfo &a, const std::string &what) {
  if (a.constant && a.constant->kind == ConstValue::Kind::Str) {
    if (auto s = scalarFromName(a.constant->s))
      return *s;
    cx.error(e.loc, what + ": invalid NumPy dtype '" + a.constant->s + "'");
  }
  if (a.type.kind != TypeKind::TypeObject || a.type.typeObjectIsVoid || !a.type.elems.empty())
    cx.error(e.loc, what + " takes a scalar dtype such as np.int32, not " + a.type.str());
  return a.type.scalar;
}

/// The number of dimensions a shape argument gives: an integer (1) or a tuple of integers.
unsigned shapeRank(TypingContext &cx, const Expr &e, const Type &t, const std::string &what) {
  if (t.isInt())
    return 1;
  if (t.isTuple() && std::all_of(t.elems.begin(), t.elems.end(), [](const Type &x) { return x.isInt(); }))
    return unsigned(t.elems.size());
  cx.error(e.loc, what + " takes a shape of integers (an int or a tuple of ints), not " + t.str());
}

ExprInfo typeCArray(TypingContext &cx, const CallExpr &c, bool fortran) {
  std::string what = fortran ? "farray()" : "carray()";
  const Expr *ptr = c.args.size() > 0 ? c.args[0].get() : nullptr;
  const Expr *shape = c.args.size() > 1 ? c.args[1].get() : nullptr;
  const Expr *dtype = c.args.size() > 2 ? c.args[2].get() : nullptr;
  if (c.args.size() > 3)
    cx.error(c.loc, what + " takes a pointer, a shape and a dtype");
  for (const auto &k : c.keywords) {
    if (k.name == "shape" && !shape)
      shape = k.value.get();
    else if (k.name == "dtype" && !dtype)
      dtype = k.value.get();
    else
      cx.error(k.loc, what + " got an unexpected keyword argument '" + k.name + "'");
  }
  if (!ptr || !shape)
    cx.error(c.loc, what + " needs a pointer and a shape");
  ExprInfo p = cx.typeExpr(*ptr);
  if (!p.type.isArray() || !p.type.pointer)
    cx.error(ptr->loc, what + " takes a CPointer (a pointer argument), not " + p.type.str());
  ExprInfo s = cx.typeExpr(*shape);
  unsigned ndim = shapeRank(cx, *shape, s.type, what);
  if (dtype) { // numba: the dtype must be the pointer's own
    Scalar d = dtypeArgument(cx, *dtype, cx.typeExpr(*dtype), what);
    if (d != p.type.scalar)
      cx.error(dtype->loc, what + ": mismatching dtype '" + std::string(scalarName(d)) +
                               "' for pointer type '" + p.type.str() + "'");
  }
  ExprInfo info;
  info.type = Type::array(p.type.scalar, ndim, fortran ? Layout::F : Layout::C);
  return info;
}

} // namespace

ExprInfo typeArrayMethod(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                         const Builtin &b) {
  ArrayMethodOp op = ArrayMethodOp(b.op);
  if (op == ArrayMethodOp::CArray || op == ArrayMethodOp::FArray)
    return typeCArray(cx, c, op == ArrayMethodOp::FArray);
  const ExprInfo recv = cx.typeExpr(methodReceiver(c));
  const Type &at = recv.type;
  std::string what = std::string(b.name) + "()";
  if (!at.isArray() || at.pointer)
    cx.error(c.loc, what + " needs an array, not " + at.str());
  ExprInfo info;
  switch (op) {
  case ArrayMethodOp::Reshape: {
    if (at.layout == Layout::A) // numba's rule: views of unknown layout are refused
      cx.error(c.loc, "reshape() supports contiguous array only (this one is " + at.str() + ")");
    if (args.empty())
      cx.error(c.loc, "reshape() takes a shape");
    unsigned ndim = 0;
    for (size_t k = 0; k < args.size(); ++k) {
      if (args.size() > 1 && !args[k].type.isInt())
        cx.error(c.args[k]->loc, "reshape() takes a tuple of ints or ints, not " + args[k].type.str());
      ndim += shapeRank(cx, *c.args[k], args[k].type, "reshape()");
    }
    info.type = at;
    info.type.ndim = uint8_t(ndim);
    return info;
  }
  case ArrayMethodOp::View: {
    cx.checkArity(c, what, args.size(), 1, 1);
    if (at.isRecordArray())
      cx.error(c.loc, "view() of an array of records is not supported in kernels");
    info.type = at;
    info.type.scalar = dtypeArgument(cx, *c.args[0], args[0], "view()");
    return info;
  }
  case ArrayMethodOp::Transpose: {
    // numba: no axes (or None) reverses them; otherwise a permutation, here a constant one
    ConstValue perm;
    perm.kind = ConstValue::Kind::Tuple;
    bool reverse = args.empty() || (args.size() == 1 && args[0].type.kind == TypeKind::None);
    if (!reverse) {
      std::vector<int64_t> given;
      if (args.size() == 1 && args[0].type.isTuple()) {
        if (!args[0].constant)
          cx.error(c.args[0]->loc, "transpose() takes its axes as constants in kernels");
        for (const ConstValue &e : args[0].constant->elems)
          given.push_back(e.i);
      } else
        for (const auto &e : c.args) {
          auto n = cx.constInt(*e);
          if (!n)
            cx.error(e->loc, "transpose() takes its axes as constants in kernels");
          given.push_back(*n);
        }
      if (given.size() != at.ndim)
        cx.error(c.loc, "transpose() of a " + std::to_string(at.ndim) + "-d array takes " +
                            std::to_string(at.ndim) + " axes, not " + std::to_string(given.size()));
      std::vector<bool> seen(at.ndim);
      for (int64_t a : given) {
        int64_t w = a < 0 ? a + at.ndim : a;
        if (w < 0 || w >= int64_t(at.ndim) || seen[size_t(w)])
          cx.error(c.loc, "transpose(): the axes are not a permutation of the array's dimensions");
        seen[size_t(w)] = true;
        perm.elems.push_back(ConstValue::ofInt(w));
      }
    } else {
      for (unsigned k = at.ndim; k-- > 0;)
        perm.elems.push_back(ConstValue::ofInt(k));
    }
    info.type = at;
    bool identity = true;
    for (unsigned k = 0; k < at.ndim; ++k)
      identity &= perm.elems[k].i == int64_t(k);
    if (!identity)
      info.type.layout =
          reverse && at.layout != Layout::A ? (at.layout == Layout::C ? Layout::F : Layout::C) : Layout::A;
    info.constant = perm;
    return info;
  }
  case ArrayMethodOp::Copy: {
    cx.checkArity(c, what, args.size(), 0, 0);
    // numba allocates the copy on the device heap (NRT); cutwin's copies live in the
    // thread's local memory, so their shape must be known when the kernel is compiled.
    if (!recv.constant || (recv.constant->kind != ConstValue::Kind::Array &&
                           recv.constant->kind != ConstValue::Kind::DeviceArray))
      cx.error(c.loc, "copy() in kernels needs an array whose shape is known when the kernel is compiled (a "
                      "global NumPy array); copy other arrays into a cuda.local.array");
    info.type = at;
    info.type.layout = Layout::C;
    info.type.space = MemSpace::Local;
    ConstValue dims;
    dims.kind = ConstValue::Kind::Tuple;
    for (int64_t d : recv.constant->shape)
      dims.elems.push_back(ConstValue::ofInt(d));
    info.constant = dims;
    return info;
  }
  case ArrayMethodOp::CArray:
  case ArrayMethodOp::FArray: break;
  }
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *permutedView(LoweringContext &cx, Value *arr, const Type &rt, const std::vector<unsigned> &perm) {
  std::vector<Value *> shape, strides;
  for (unsigned k : perm) {
    shape.push_back(cx.arrayField(arr, 1, k));
    strides.push_back(cx.arrayField(arr, 2, k));
  }
  return cx.buildArray(rt, cx.arrayField(arr, 0, 0), shape, strides);
}

namespace {

/// The i64 values of a shape argument (an int or a tuple of ints).
void shapeValues(LoweringContext &cx, const fe::Expr &e, std::vector<Value *> &out) {
  const Type &t = cx.info(e).type;
  Value *v = cx.lowerExpr(e);
  if (t.isInt()) {
    out.push_back(cx.convertScalar(v, t.scalar, Scalar::I64));
    return;
  }
  for (unsigned k = 0; k < t.elems.size(); ++k)
    out.push_back(cx.convertScalar(cx.builder().CreateExtractValue(v, {k}), t.elems[k].scalar, Scalar::I64));
}

/// C-order byte strides of `shape` for elements of `itemsize` bytes (F order with `fortran`).
std::vector<Value *> contiguousStrides(LoweringContext &cx, const std::vector<Value *> &shape,
                                       uint64_t itemsize, bool fortran) {
  auto &b = cx.builder();
  std::vector<Value *> strides(shape.size());
  Value *s = b.getInt64(itemsize);
  for (size_t n = 0; n < shape.size(); ++n) {
    size_t k = fortran ? n : shape.size() - 1 - n;
    strides[k] = s;
    s = b.CreateMul(s, shape[k]);
  }
  return strides;
}

Value *lowerReshape(LoweringContext &cx, const fe::CallExpr &c, Value *arr, const Type &at, const Type &rt) {
  auto &b = cx.builder();
  std::vector<Value *> dims;
  for (const auto &a : c.args)
    shapeValues(cx, *a, dims);
  cx.setLoc(c.loc);
  Value *size = b.getInt64(1);
  for (unsigned k = 0; k < at.ndim; ++k)
    size = b.CreateMul(size, cx.arrayField(arr, 1, k));
  // numba's normalize_reshape_value: one negative extent is inferred from the others
  Value *negatives = b.getInt64(0), *known = b.getInt64(1);
  for (Value *d : dims) {
    Value *neg = b.CreateICmpSLT(d, b.getInt64(0));
    negatives = b.CreateAdd(negatives, b.CreateZExt(neg, b.getInt64Ty()));
    known = b.CreateMul(known, b.CreateSelect(neg, b.getInt64(1), d));
  }
  cx.raiseExceptionIf(b.CreateICmpUGT(negatives, b.getInt64(1)), c.loc,
                      "ValueError: multiple negative shape values");
  Value *knownZero = b.CreateICmpEQ(known, b.getInt64(0));
  Value *divisor = b.CreateSelect(knownZero, b.getInt64(1), known);
  Value *inferred = b.CreateSelect(knownZero, b.getInt64(0), b.CreateSDiv(size, divisor));
  Value *fits = b.CreateSelect(knownZero, b.CreateICmpEQ(size, b.getInt64(0)),
                               b.CreateICmpEQ(b.CreateSRem(size, divisor), b.getInt64(0)));
  Value *bad = b.CreateSelect(b.CreateICmpEQ(negatives, b.getInt64(0)), b.CreateICmpNE(size, known),
                              b.CreateNot(fits));
  cx.raiseExceptionIf(bad, c.loc, "ValueError: total size of new array must be unchanged");
  for (Value *&d : dims)
    d = b.CreateSelect(b.CreateICmpSLT(d, b.getInt64(0)), inferred, d);
  if (at.layout == fe::Layout::F && at.ndim > 1) {
    // numba reshapes in C order without copying: an F-contiguous array that is not also
    // C-contiguous raises, as numba_attempt_nocopy_reshape fails for it
    Value *contiguous = b.getTrue(), *expect = b.getInt64(at.itemSize());
    for (unsigned k = at.ndim; k-- > 0;) {
      Value *n = cx.arrayField(arr, 1, k);
      contiguous = b.CreateAnd(contiguous, b.CreateOr(b.CreateICmpEQ(n, b.getInt64(1)),
                                                      b.CreateICmpEQ(cx.arrayField(arr, 2, k), expect)));
      expect = b.CreateMul(expect, n);
    }
    cx.raiseExceptionIf(b.CreateAnd(b.CreateNot(contiguous), b.CreateICmpNE(size, b.getInt64(0))), c.loc,
                        "NotImplementedError: incompatible shape for array");
  }
  return cx.buildArray(rt, cx.arrayField(arr, 0, 0), dims, contiguousStrides(cx, dims, at.itemSize(), false));
}

Value *lowerView(LoweringContext &cx, const fe::CallExpr &c, Value *arr, const Type &at, const Type &rt) {
  auto &b = cx.builder();
  uint64_t oldSize = at.itemSize(), newSize = rt.itemSize();
  std::vector<Value *> shape, strides;
  for (unsigned k = 0; k < at.ndim; ++k) {
    shape.push_back(cx.arrayField(arr, 1, k));
    strides.push_back(cx.arrayField(arr, 2, k));
  }
  if (oldSize != newSize) {
    if (at.ndim == 0)
      cx.raiseExceptionIf(b.getTrue(), c.loc,
                          "ValueError: Changing the dtype of a 0d array is only supported if the itemsize "
                          "is unchanged");
    else {
      // numba's _compatible_view: the last axis must be contiguous, sizes must divide
      unsigned last = at.ndim - 1;
      Value *size = b.getInt64(1);
      for (Value *n : shape)
        size = b.CreateMul(size, n);
      Value *strided = b.CreateAnd(
          b.CreateAnd(b.CreateICmpNE(shape[last], b.getInt64(1)), b.CreateICmpNE(size, b.getInt64(0))),
          b.CreateICmpNE(strides[last], b.getInt64(oldSize)));
      cx.raiseExceptionIf(strided, c.loc,
                          "ValueError: To change to a dtype of a different size, the last axis must be "
                          "contiguous");
      if (newSize < oldSize && oldSize % newSize != 0)
        cx.raiseExceptionIf(b.getTrue(), c.loc,
                            "ValueError: When changing to a smaller dtype, its size must be a divisor of "
                            "the size of original dtype");
      if (newSize > oldSize)
        cx.raiseExceptionIf(
            b.CreateICmpNE(b.CreateURem(b.CreateMul(shape[last], b.getInt64(oldSize)), b.getInt64(newSize)),
                           b.getInt64(0)),
            c.loc,
            "ValueError: When changing to a larger dtype, its size must be a divisor of the total size in "
            "bytes of the last axis of the array.");
      // numba's _change_dtype: the contiguous end (last axis for C, first for F; an A
      // array counts as the one its strides show) takes the new element size
      Value *cEnd = b.getInt1(at.layout == fe::Layout::C), *fEnd = b.getInt1(at.layout == fe::Layout::F);
      if (at.layout == fe::Layout::A) {
        cEnd = b.CreateICmpEQ(strides[last], b.getInt64(oldSize));
        fEnd = b.CreateAnd(b.CreateNot(cEnd), b.CreateICmpEQ(strides[0], b.getInt64(oldSize)));
        cx.raiseExceptionIf(b.CreateNot(b.CreateOr(cEnd, fEnd)), c.loc,
                            "ValueError: new type not compatible with array");
      }
      auto resized = [&](unsigned i) {
        Value *bytes = b.CreateMul(shape[i], b.getInt64(oldSize));
        return b.CreateUDiv(bytes, b.getInt64(newSize));
      };
      Value *cDim = resized(last), *fDim = resized(0);
      Value *fFits = b.CreateICmpEQ(
          b.CreateURem(b.CreateMul(shape[0], b.getInt64(oldSize)), b.getInt64(newSize)), b.getInt64(0));
      cx.raiseExceptionIf(b.CreateAnd(fEnd, b.CreateNot(fFits)), c.loc,
                          "ValueError: new type not compatible with array");
      // (a 1-D array's ends are its one axis: either select picks it)
      shape[last] = b.CreateSelect(cEnd, cDim, shape[last]);
      strides[last] = b.CreateSelect(cEnd, b.getInt64(newSize), strides[last]);
      shape[0] = b.CreateSelect(fEnd, fDim, shape[0]);
      strides[0] = b.CreateSelect(fEnd, b.getInt64(newSize), strides[0]);
    }
  }
  return cx.buildArray(rt, cx.arrayField(arr, 0, 0), shape, strides);
}

Value *lowerCopy(LoweringContext &cx, const fe::CallExpr &c, Value *arr, const Type &at,
                 const fe::ExprInfo &ci) {
  auto &b = cx.builder();
  uint64_t count = 1;
  std::vector<Value *> shape;
  for (const fe::ConstValue &d : ci.constant->elems) {
    count *= uint64_t(d.i);
    shape.push_back(b.getInt64(uint64_t(d.i)));
  }
  const Type &rt = ci.type;
  AllocaInst *data = cx.newLocalArrayStorage(at, count, 16);
  Value *copy = cx.buildArray(rt, data, shape, contiguousStrides(cx, shape, at.itemSize(), false));
  std::vector<Scalar> idxTypes(at.ndim, Scalar::I64);
  cx.forEachElement(arr, at, [&](ArrayRef<Value *> idx) {
    Value *src = cx.elementAddress(arr, at, idx, idxTypes, c.loc);
    Value *dst = cx.elementAddress(copy, rt, idx, idxTypes, c.loc);
    if (at.isRecordArray())
      b.CreateMemCpy(dst, MaybeAlign(1), src, MaybeAlign(1), at.itemSize());
    else
      cx.storeElement(dst, cx.loadElement(src, at.scalar), at.scalar);
  });
  return copy;
}

} // namespace

Value *lowerArrayMethod(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  ArrayMethodOp op = ArrayMethodOp(ci.function->op);
  if (op == ArrayMethodOp::CArray || op == ArrayMethodOp::FArray) {
    Value *ptr = cx.lowerExpr(*c.args[0]);
    const fe::Expr *shapeArg = c.args.size() > 1 ? c.args[1].get() : nullptr;
    for (const auto &k : c.keywords)
      if (k.name == "shape")
        shapeArg = k.value.get();
    std::vector<Value *> shape;
    shapeValues(cx, *shapeArg, shape);
    cx.setLoc(c.loc);
    return cx.buildArray(ci.type, cx.arrayField(ptr, 0, 0), shape,
                         contiguousStrides(cx, shape, ci.type.itemSize(), op == ArrayMethodOp::FArray));
  }
  const fe::Expr &recv = fe::methodReceiver(c);
  const Type &at = cx.info(recv).type;
  Value *arr = cx.lowerExpr(recv);
  switch (op) {
  case ArrayMethodOp::Reshape: return lowerReshape(cx, c, arr, at, ci.type);
  case ArrayMethodOp::View: cx.setLoc(c.loc); return lowerView(cx, c, arr, at, ci.type);
  case ArrayMethodOp::Transpose: {
    std::vector<unsigned> perm;
    for (const fe::ConstValue &k : ci.constant->elems)
      perm.push_back(unsigned(k.i));
    return permutedView(cx, arr, ci.type, perm);
  }
  case ArrayMethodOp::Copy: cx.setLoc(c.loc); return lowerCopy(cx, c, arr, at, ci);
  case ArrayMethodOp::CArray:
  case ArrayMethodOp::FArray: break;
  }
  return nullptr;
}

} // namespace ir
} // namespace cutwin
