/// The float16 operations of numba-cuda's cuda.fp16 module (CUDA's cuda_fp16.h), shared by
/// its functions (half.cpp), float16 operators and math.* on float16.
#pragma once

#include <llvm/ADT/ArrayRef.h>

#include <optional>
#include <string>

namespace llvm {
class Value;
class IRBuilderBase;
} // namespace llvm

namespace cutwin::fe {

/// What one cuda.fp16 function computes (half.cpp says how).
enum class HalfKind {
  Add,
  Sub,
  Mul,
  Div,
  Fma, // round to nearest; Div as CUDA's __hdiv
  AddSat,
  SubSat,
  MulSat,
  FmaSat,  // clamped to [0, 1], NaN to +0
  FmaRelu, // negative results to +0
  Neg,
  Abs,
  Eq,
  Ne,
  Ge,
  Gt,
  Le,
  Lt, // ordered: false with a NaN
  Equ,
  Neu,
  Geu,
  Gtu,
  Leu,
  Ltu, // unordered: true with a NaN
  Max,
  Min,
  MaxNan,
  MinNan, // +0 > -0; a NaN loses (Max/Min) or wins (..Nan)
  IsInf,
  IsNan, // __hisinf: -1, 0 or 1
  Sin,
  Cos,
  Exp,
  Exp2,
  Exp10,
  Log,
  Log2,
  Log10,
  Rcp,
  Rsqrt,
  Sqrt,
  Tanh,
  TanhApprox,
  Ceil,
  Floor,
  Trunc,
  Rint,
  Convert, // to or from float16 in a rounding mode
  BitCast, // __half_as_short and back
};

/// The rounding of a conversion: CUDA's _rn, _rz, _rd, _ru.
enum class HalfRounding { Nearest, Zero, Down, Up };

/// numba-cuda's float16 overloads of the math module (math.sin on float16 is hsin), or
/// nullopt for a math function float16 reaches through float32.
std::optional<HalfKind> halfMathKind(const std::string &name);

} // namespace cutwin::fe

namespace cutwin::ir {

class LoweringContext;
enum class ApproxUnit : unsigned; // frontend/ir/intrinsics.h

/// A cuda.fp16 operation on float16 values (comparisons give i1, __hisinf i32), as the
/// header's device code computes it (half.cpp).
llvm::Value *halfOp(LoweringContext &cx, fe::HalfKind kind, llvm::ArrayRef<llvm::Value *> args);
/// float16 a / b: __hdiv.
llvm::Value *halfDivide(LoweringContext &cx, llvm::Value *a, llvm::Value *b);
/// max/min of two 16-bit floats (float16 or bfloat16) as the GPU's max/min and their .NaN
/// forms: `a`, `b` their bits (i16), `x`, `y` their values to compare; +0 above -0, a NaN
/// loses (or, with `nanWins`, gives the canonical NaN 0x7fff). The result's bits.
llvm::Value *maxMinBits(llvm::IRBuilderBase &irb, llvm::Value *a, llvm::Value *b, llvm::Value *x,
                        llvm::Value *y, bool max, bool nanWins);
/// One of the GPU's float32 approximation units (`cutwin.approx`).
llvm::Value *approx(LoweringContext &cx, ApproxUnit unit, llvm::Value *x);

} // namespace cutwin::ir
