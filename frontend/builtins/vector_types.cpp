// Vector types: numba-cuda's `cuda.float32x4(...)`, `cuda.int16x2(...)`, ... (ten element
// types, one to four elements) and CUDA's names for them (`cuda.double4`, `cuda.short2`,
// ...). A vector is a named tuple of its type (`float32x4`) with fields x, y, z, w: read as
// `v.x`, passed to device functions and returned like any tuple. A constructor takes its
// elements in order from numbers (converted to the element type) and from vectors of the
// same element type (their elements), as many as the vector has: `float32x4(v2, 1.0, 2.0)`.
// `float32x2(v)` / `float32x4(v)` of an 8-bit float vector (fp8x2_e4m3, ...) converts it
// (cuda_fp8.h's operator float2 / float4; fp8_vectors.cpp).
#include "frontend/builtins/builtin.h"
#include "frontend/builtins/fp8_vectors.h"
#include "frontend/lower/lowering_context.h"
#include "frontend/sema/typing_context.h"

namespace cutwin {

namespace ir {
llvm::Value *lowerVectorConstructor(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci);
}

namespace fe {

namespace {

constexpr Scalar kElements[] = {Scalar::I8,  Scalar::I16, Scalar::I32, Scalar::I64, Scalar::U8,
                                Scalar::U16, Scalar::U32, Scalar::U64, Scalar::F32, Scalar::F64};
/// CUDA's names of the element types (those of C's types on every platform numba-cuda runs on).
constexpr std::pair<const char *, Scalar> kAliases[] = {
    {"char", Scalar::I8},      {"short", Scalar::I16},     {"int", Scalar::I32},    {"long", Scalar::I64},
    {"longlong", Scalar::I64}, {"uchar", Scalar::U8},      {"ushort", Scalar::U16}, {"uint", Scalar::U32},
    {"ulong", Scalar::U64},    {"ulonglong", Scalar::U64}, {"float", Scalar::F32},  {"double", Scalar::F64}};
constexpr const char *kFields[] = {"x", "y", "z", "w"};

/// A row's op: the element type's index in kElements times 4, plus the count less one.
unsigned opOf(Scalar element, unsigned count) {
  unsigned i = 0;
  while (kElements[i] != element)
    ++i;
  return i * 4 + count - 1;
}
Scalar elementOf(unsigned op) { return kElements[op / 4]; }
unsigned countOf(unsigned op) { return op % 4 + 1; }

/// numba-cuda's name of the vector type: "float32x4".
std::string vectorTypeName(Scalar element, unsigned count) {
  return std::string(scalarName(element)) + "x" + std::to_string(count);
}

Type vectorType(Scalar element, unsigned count) {
  return Type::namedTuple(vectorTypeName(element, count), std::vector<std::string>(kFields, kFields + count),
                          std::vector<Type>(count, Type::scalarOf(element)));
}

} // namespace

ExprInfo typeVectorConstructor(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b);

std::span<const Builtin> vectorTypeBuiltins() {
  static const BuiltinRows rows([](BuiltinRows &r) {
    for (Scalar element : kElements)
      for (unsigned n = 1; n <= 4; ++n)
        r.add("cuda." + vectorTypeName(element, n), opOf(element, n), &typeVectorConstructor,
              &ir::lowerVectorConstructor);
    for (auto &[alias, element] : kAliases)
      for (unsigned n = 1; n <= 4; ++n)
        r.add(std::string("cuda.") + alias + std::to_string(n), opOf(element, n), &typeVectorConstructor,
              &ir::lowerVectorConstructor);
  });
  return rows.rows();
}

ExprInfo typeVectorConstructor(TypingContext &cx, const CallExpr &c, const std::vector<ExprInfo> &args,
                               const Builtin &b) {
  Scalar element = elementOf(b.op);
  unsigned count = countOf(b.op);
  if (!c.keywords.empty())
    cx.error(c.loc, std::string(b.name) + "() takes its elements as positional arguments");
  ExprInfo info;
  info.type = vectorType(element, count);
  if (auto fp8 = args.size() == 1 ? fp8VectorShape(args[0].type) : std::nullopt) {
    if (element != Scalar::F32 || count != fp8->count)
      cx.error(c.args[0]->loc, std::string(b.name) + "() does not convert a " + args[0].type.path +
                                   " (a float32x" + std::to_string(fp8->count) + " does)");
    return info;
  }
  unsigned elements = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type &t = args[i].type;
    bool vector = t.isTuple() && t.path.rfind(std::string(scalarName(element)) + "x", 0) == 0 &&
                  t.fields.size() == t.elems.size() && !t.elems.empty() && t.elems[0].isScalar(element);
    if (vector)
      elements += unsigned(t.elems.size());
    else if (t.isScalar() && !isComplex(t.scalar))
      elements += 1;
    else
      cx.error(c.args[i]->loc, std::string(b.name) + "() takes numbers and " + scalarName(element) +
                                   " vectors, not " + t.str());
  }
  if (elements != count)
    cx.error(c.loc, std::string(b.name) + "() takes " + std::to_string(count) +
                        " elements in all (numbers, and the elements of vectors), got " +
                        std::to_string(elements));
  return info;
}

} // namespace fe

namespace ir {

using namespace llvm;

Value *lowerVectorConstructor(LoweringContext &cx, const fe::CallExpr &c, const fe::ExprInfo &ci) {
  IRBuilder<> &irb = cx.builder();
  const Type &vt = ci.type;
  Type element = vt.elems[0];
  if (c.args.size() == 1)
    if (auto fp8 = fe::fp8VectorShape(cx.info(*c.args[0]).type))
      return fe::fp8VectorToFloat32(cx, cx.lowerExpr(*c.args[0]), *fp8, vt);
  Value *v = UndefValue::get(cx.llvmType(vt));
  unsigned k = 0;
  for (const fe::ExprPtr &a : c.args) {
    const Type &at = cx.info(*a).type;
    Value *x = cx.lowerExpr(*a);
    if (at.isScalar()) {
      v = irb.CreateInsertValue(v, cx.convert(x, at, element), {k++});
      continue;
    }
    for (unsigned j = 0; j < at.elems.size(); ++j) // a vector: its elements, in order
      v = irb.CreateInsertValue(v, irb.CreateExtractValue(x, {j}), {k++});
  }
  return v;
}

} // namespace ir
} // namespace cutwin
