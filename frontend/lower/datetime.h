/// NumPy's datetime64 and timedelta64 as numba computes them: an int64 count of the type's
/// unit, NaT the smallest int64. Conversions between units multiply (NaT stays NaT);
/// arithmetic gives NaT where an operand is NaT; comparisons with NaT are false, except
/// `!=`. Both backends run these integer operations.
#pragma once

#include "frontend/sema/types.h"
#include "frontend/syntax/ast.h"

#include <llvm/IR/IRBuilder.h>

namespace cutwin::ir {

/// A datetime64 (or timedelta64) in another unit of its group (or the same type).
llvm::Value *convertTime(llvm::IRBuilderBase &b, llvm::Value *v, fe::Scalar from, fe::Scalar to);
/// `l op r` of operands typed la and rb (typeBinOp's time cases), the result typed `res`.
llvm::Value *timeBinary(llvm::IRBuilderBase &b, fe::BinOp op, llvm::Value *l, llvm::Value *r, fe::Scalar la,
                        fe::Scalar rb, fe::Scalar res);
/// `l op r` of two values of one time type (i1).
llvm::Value *timeCompare(llvm::IRBuilderBase &b, fe::CmpOp op, llvm::Value *l, llvm::Value *r);

} // namespace cutwin::ir
