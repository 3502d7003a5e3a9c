/// CUDA's 8-bit floats as numba-cuda's fp8_e5m2, fp8_e4m3 and fp8_e8m0 (cuda_fp8.h): held
/// as their 8 bits (an i8). Every conversion computes what cuda_fp8.hpp computes on an
/// sm_90 GPU - its software routines where the header has them, and the same results
/// where it uses the GPU's cvt instructions (cvt.rn.satfinite.e4m3x2/e5m2x2.f32 rounds to
/// nearest, ties to even, saturates to the largest finite value and makes every NaN 0x7f;
/// the routine it replaces gives the same bits) - with integer and float operations both
/// backends run alike.
#pragma once

#include "frontend/sema/types.h"

#include <llvm/IR/IRBuilder.h>

#include <functional>

namespace cutwin::ir {

/// A conversion between two scalar types that are not both 8-bit floats, for the steps
/// through float32, bfloat16 and the integers (the lowering's convertScalar).
using ScalarConvert = std::function<llvm::Value *(llvm::Value *, fe::Scalar from, fe::Scalar to)>;

/// `to(v)` where `from` or `to` is an 8-bit float: the constructors and conversion
/// operators of __nv_fp8_e5m2/e4m3/e8m0.
llvm::Value *convertFp8(llvm::IRBuilderBase &b, llvm::Value *v, fe::Scalar from, fe::Scalar to,
                        const ScalarConvert &convert);

// The storage-level conversions numba-cuda binds (cvt_float_to_fp8, ...): bits in, bits out.
/// __nv_cvt_double_to_fp8 (E4M3 or E5M2).
llvm::Value *doubleToFp8Bits(llvm::IRBuilderBase &b, llvm::Value *x, bool satfinite, bool e4m3);
/// __nv_cvt_float_to_fp8.
llvm::Value *floatToFp8Bits(llvm::IRBuilderBase &b, llvm::Value *x, bool satfinite, bool e4m3);
/// __nv_cvt_fp8_to_halfraw: the float16 bits (i16) of an E4M3 or E5M2 value (exact).
llvm::Value *fp8ToHalfBits(llvm::IRBuilderBase &b, llvm::Value *bits, bool e4m3);
/// __nv_cvt_bfloat16raw_to_e8m0 (rounding toward zero or up).
llvm::Value *bfloat16ToE8m0Bits(llvm::IRBuilderBase &b, llvm::Value *raw, bool satfinite, bool roundUp);
/// __nv_cvt_float_to_e8m0.
llvm::Value *floatToE8m0Bits(llvm::IRBuilderBase &b, llvm::Value *x, bool satfinite, bool roundUp);
/// __nv_cvt_double_to_e8m0.
llvm::Value *doubleToE8m0Bits(llvm::IRBuilderBase &b, llvm::Value *x, bool satfinite, bool roundUp);
/// __nv_cvt_e8m0_to_bf16raw: the bfloat16 bits (i16) of an E8M0 value (exact).
llvm::Value *e8m0ToBfloat16Bits(llvm::IRBuilderBase &b, llvm::Value *bits);

} // namespace cutwin::ir
