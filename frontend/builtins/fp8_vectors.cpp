// CUDA's two- and four-element 8-bit floats as numba-cuda binds them (cuda_fp8.h's
// __nv_fp8x2_e5m2 ... __nv_fp8x4_e8m0; `cuda.fp8.fp8x2_e4m3` & co. here, also
// numba.cuda._internal.cuda_fp8's names). A value is a record of one unsigned integer, field
// `__x` (uint16 for two elements, uint32 for four), holding the elements' bits, the first
// element in the lowest byte. The constructors: no arguments (all bits zero: numba's shim
// value-initialises with `new (self) T()`), or a float32 or float64 vector of as many
// elements (float32x2 / float64x2, float32x4 / float64x4), each element converted as the
// scalar constructor converts it - what cuda_fp8.hpp computes on an sm_90 GPU, where the
// vector conversions are the scalar ones element by element (round to nearest and saturate
// to the largest finite value; E8M0 rounds up). `cuda.float32x2(v)` / `cuda.float32x4(v)`
// convert back (cuda_fp8.h's operator float2 / float4, exact; vector_types.cpp).
#include "frontend/builtins/fp8_vectors.h"
#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin::fe {

ExprInfo typeFp8VectorConstructor(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                                  const Builtin &b);
llvm::Value *lowerFp8VectorConstructor(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &info);

namespace {

constexpr Scalar kElements[] = {Scalar::FP8E5M2, Scalar::FP8E4M3, Scalar::FP8E8M0};

/// A row's op: the element's index in kElements times 2, plus 1 for four elements.
unsigned opOf(Scalar element, unsigned count) {
  unsigned i = 0;
  while (kElements[i] != element)
    ++i;
  return i * 2 + (count == 4);
}
Fp8VectorShape shapeOf(unsigned op) { return {kElements[op / 2], op % 2 ? 4u : 2u}; }

/// "fp8x2_e4m3": numba-cuda's name of the type.
std::string typeName(Fp8VectorShape s) {
  std::string element = scalarName(s.element); // "fp8_e4m3"
  return "fp8x" + std::to_string(s.count) + element.substr(3);
}

Type fp8VectorType(Fp8VectorShape s) {
  return Type::namedTuple(typeName(s), {"__x"}, {Type::scalarOf(s.count == 2 ? Scalar::U16 : Scalar::U32)});
}

/// The float vector type `float32x2` / `float64x4` a constructor takes, if `t` is one of
/// `count` elements: its element type.
std::optional<Scalar> floatVectorElement(const Type &t, unsigned count) {
  for (Scalar s : {Scalar::F32, Scalar::F64})
    if (t.isTuple() && t.path == std::string(scalarName(s)) + "x" + std::to_string(count))
      return s;
  return std::nullopt;
}

} // namespace

std::optional<Fp8VectorShape> fp8VectorShape(const Type &t) {
  if (!t.isTuple() || t.fields.size() != 1 || t.fields[0] != "__x")
    return std::nullopt;
  for (Scalar element : kElements)
    for (unsigned count : {2u, 4u})
      if (t.path == typeName({element, count}))
        return Fp8VectorShape{element, count};
  return std::nullopt;
}

std::span<const Builtin> fp8VectorBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (Scalar element : kElements)
      for (unsigned count : {2u, 4u})
        r.add("cuda.fp8." + typeName({element, count}), opOf(element, count), &typeFp8VectorConstructor,
              &lowerFp8VectorConstructor);
  });
  return rows.rows();
}

ExprInfo typeFp8VectorConstructor(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                                  const Builtin &b) {
  Fp8VectorShape shape = shapeOf(b.op);
  std::string name = typeName(shape) + "()";
  cx.checkArity(c, name, args.size(), 0, 1);
  if (!c.keywords.empty())
    cx.error(c.loc, name + " takes no keyword arguments");
  if (args.size() == 1 && !floatVectorElement(args[0].type, shape.count)) {
    std::string n = std::to_string(shape.count);
    cx.error(c.args[0]->loc,
             name + " takes a float32x" + n + " or a float64x" + n + ", not " + args[0].type.str());
  }
  ExprInfo info;
  info.type = fp8VectorType(shape);
  return info;
}

llvm::Value *lowerFp8VectorConstructor(ir::LoweringContext &cx, const CallExpr &c, const ExprInfo &info) {
  auto &b = cx.builder();
  Fp8VectorShape shape = shapeOf(info.function->op);
  llvm::Type *bitsType = b.getIntNTy(8 * shape.count);
  llvm::Value *bits = llvm::ConstantInt::get(bitsType, 0);
  if (!c.args.empty()) {
    Scalar from = *floatVectorElement(cx.info(*c.args[0]).type, shape.count);
    llvm::Value *v = cx.lowerExpr(*c.args[0]);
    cx.setLoc(c.loc);
    for (unsigned k = 0; k < shape.count; ++k) {
      llvm::Value *e = cx.convertScalar(b.CreateExtractValue(v, {k}), from, shape.element); // its i8 bits
      bits = b.CreateOr(bits, b.CreateShl(b.CreateZExt(e, bitsType), 8 * k));
    }
  }
  return b.CreateInsertValue(llvm::UndefValue::get(cx.llvmType(info.type)), bits, {0});
}

llvm::Value *fp8VectorToFloat32(ir::LoweringContext &cx, llvm::Value *v, Fp8VectorShape shape,
                                const Type &to) {
  auto &b = cx.builder();
  llvm::Value *bits = b.CreateExtractValue(v, {0}), *r = llvm::UndefValue::get(cx.llvmType(to));
  for (unsigned k = 0; k < shape.count; ++k) {
    llvm::Value *e = b.CreateTrunc(b.CreateLShr(bits, 8 * k), b.getInt8Ty());
    r = b.CreateInsertValue(r, cx.convertScalar(e, shape.element, Scalar::F32), {k});
  }
  return r;
}

} // namespace cutwin::fe
