/// bfloat16 as numba-cuda's __nv_bfloat16: its 16 bits (an i16), which the lowering widens
/// to float32 (exactly) to compute with and rounds back to nearest, ties to even. Every
/// operation is then correctly rounded, as the GPU's bf16 instructions are: float32 holds
/// the sum, difference, product or quotient of two bfloat16 values to within a rounding
/// that cannot move the final one (24 >= 2 x 8 + 2 bits), and wider sources (float64,
/// 64-bit integers) reach float32 rounded to odd, which keeps the final rounding exact.
/// Both backends run the same instructions.
#pragma once

#include "frontend/builtins/half.h" // fe::HalfRounding: CUDA's _rn, _rz, _rd, _ru

#include <llvm/IR/IRBuilder.h>

#include <cstdint>

namespace cutwin::ir {

/// The bfloat16 nearest to x (ties to even; NaN is the canonical 0x7fff), on the host: the
/// bits of a constant.
uint16_t bfloat16Bits(double x);
/// The bfloat16 nearest to the integer of this magnitude and sign, on the host.
uint16_t bfloat16BitsOfInteger(uint64_t magnitude, bool negative);

/// The float32 of a bfloat16 (exact).
llvm::Value *bfloat16ToFloat(llvm::IRBuilderBase &b, llvm::Value *bits);
/// The bfloat16 nearest to a float32 (NaN: 0x7fff, what the GPU's cvt.rn.bf16.f32 gives).
llvm::Value *floatToBfloat16(llvm::IRBuilderBase &b, llvm::Value *x);
/// A float32 to bfloat16 in a rounding mode (NaN: 0x7fff in every mode).
llvm::Value *floatToBfloat16(llvm::IRBuilderBase &b, llvm::Value *x, fe::HalfRounding mode);
/// float64 to float32 rounded to odd (toward zero, the last bit set when inexact): a
/// rounding to bfloat16 after it, in any mode, is the one of the float64 itself.
llvm::Value *doubleToFloatOdd(llvm::IRBuilderBase &b, llvm::Value *x);
/// x * y + z of three float32 holding bfloat16 values, rounded once to a bfloat16 (the
/// GPU's fma.rn.bf16).
llvm::Value *fmaBfloat16(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y, llvm::Value *z);
/// A float64 to bfloat16, rounded once (to nearest unless `mode` says otherwise).
llvm::Value *doubleToBfloat16(llvm::IRBuilderBase &b, llvm::Value *x,
                              fe::HalfRounding mode = fe::HalfRounding::Nearest);
/// An integer of any width to bfloat16, rounded once.
llvm::Value *integerToBfloat16(llvm::IRBuilderBase &b, llvm::Value *v, bool isSigned,
                               fe::HalfRounding mode = fe::HalfRounding::Nearest);

} // namespace cutwin::ir
