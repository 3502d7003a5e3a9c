/// Multiply-add contraction, decided once in the frontend (numerics policy): the GPU is
/// then compiled without further contraction, so both backends execute the same FMAs.
///
/// The rule reproduces what numba-cuda gets from NVVM's default (-fma=1), as measured on
/// an H200 (conformance case `fma_contraction`, goldens recorded with numba-cuda): a
/// product is fused only if it then disappears, i.e. every use of it is an addition or
/// subtraction that fuses it:
///   - `a*b + c`, `c + a*b`, `a*b - c`, `c - a*b` become `fma(a, b, c)`, `fma(a, b, c)`,
///     `fma(a, b, -c)`, `fma(-a, b, c)`;
///   - an addition of two such products fuses the left one, unless only the right one
///     can disappear;
///   - uses are counted after CSE (a product written twice is one product with two uses),
///     across basic blocks;
///   - a float32 product added to a float64 value (through a conversion) is not fused.
#pragma once

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace cutwin::ir {

/// Returns the number of FMAs formed.
unsigned contractMultiplyAdds(llvm::Module &m);

} // namespace cutwin::ir
