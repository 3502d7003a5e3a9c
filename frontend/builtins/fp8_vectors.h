/// CUDA's two- and four-element 8-bit floats (fp8x2_e4m3, fp8x4_e8m0, ...; fp8_vectors.cpp):
/// what the vector types' constructors need to convert them back to float32 vectors.
#pragma once

#include "frontend/sema/types.h"

#include <optional>

namespace llvm {
class Value;
}

namespace cutwin::ir {
class LoweringContext;
}

namespace cutwin::fe {

struct Fp8VectorShape {
  Scalar element; ///< FP8E5M2, FP8E4M3 or FP8E8M0
  unsigned count; ///< 2 or 4
};

/// The element type and count of an fp8 vector type, or nullopt for any other type.
std::optional<Fp8VectorShape> fp8VectorShape(const Type &t);

/// cuda_fp8.h's `operator float2` / `operator float4`: the float32 vector of the value's
/// elements (exact), a value of `Type::namedTuple("float32xN", ...)`'s LLVM type `to`.
llvm::Value *fp8VectorToFloat32(ir::LoweringContext &cx, llvm::Value *v, Fp8VectorShape shape,
                                const Type &to);

} // namespace cutwin::fe
