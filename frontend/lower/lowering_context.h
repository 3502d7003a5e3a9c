/// What a builtin family's lowering rule (frontend/builtins/) may use of the lowering: the
/// builder and the function being built, and the operations every family shares (values,
/// conversions, arithmetic, arrays, complex numbers). The rules are free functions of their
/// family's file over this interface, so that a new family declares nothing in the lowerer's
/// own header and recompiles only its file and the list of families; what one family
/// lowers for others (float16 operations, math functions, cmath) is declared in that
/// family's header. Lowerer (lowerer.h) implements it.
#pragma once

#include "frontend/lower/lower.h"

#include <llvm/IR/IRBuilder.h>

#include <functional>

namespace cutwin::ir {

using fe::Scalar;
using fe::Type;

class LoweringContext {
public:
  // ---- the IR being built
  virtual llvm::IRBuilder<> &builder() = 0;
  virtual llvm::Module &module() = 0;
  llvm::LLVMContext &context() { return module().getContext(); }
  /// The function being lowered (new blocks go into it).
  virtual llvm::Function &function() = 0;
  /// The kernel's facts: how it is compiled (fastmath, debug) and what it uses.
  virtual KernelInfo &kernelInfo() = 0;
  /// A variable in the function's entry block.
  virtual llvm::AllocaInst *entryAlloca(llvm::Type *t, const llvm::Twine &name) = 0;
  /// A fresh shared-memory variable of this call site (one per site, as numba allocates
  /// them), named after the function and `what`.
  virtual llvm::GlobalVariable *newSharedVariable(llvm::Type *t, const std::string &what) = 0;
  /// The memory of `count` elements of the array type `t` (records as their bytes).
  virtual llvm::Type *arrayStorageType(const Type &t, uint64_t count) = 0;
  /// A thread's arrayStorageType in the entry block, aligned to `alignment` and at least
  /// 16: local arrays and copies.
  virtual llvm::AllocaInst *newLocalArrayStorage(const Type &t, uint64_t count, uint64_t alignment) = 0;
  /// The source location of the instructions emitted next.
  virtual void setLoc(SourceLoc loc) = 0;
  /// The kernel's number for a source site (barriers and errors name it).
  virtual unsigned site(SourceLoc loc, const char *what) = 0;

  // ---- expressions and values
  virtual const fe::ExprInfo &info(const fe::Expr &e) const = 0;
  virtual llvm::Value *lowerExpr(const fe::Expr &e) = 0;
  /// Lowers `e` and converts the result to `to`.
  virtual llvm::Value *lowerAs(const fe::Expr &e, const Type &to) = 0;
  virtual llvm::Value *constant(const fe::ConstValue &v, const Type &t) = 0;
  virtual llvm::Value *convert(llvm::Value *v, const Type &from, const Type &to) = 0;
  virtual llvm::Value *convertScalar(llvm::Value *v, Scalar from, Scalar to) = 0;
  /// Python's truth of a value (i1).
  virtual llvm::Value *truth(llvm::Value *v, const Type &t) = 0;
  virtual llvm::Type *llvmType(const Type &t) = 0;
  virtual llvm::Type *scalarType(Scalar s) = 0;
  virtual llvm::Type *memType(Scalar s) = 0; ///< in memory: bool is i8

  // ---- arithmetic as Python and numba compute it
  virtual llvm::Value *binary(fe::BinOp op, llvm::Value *a, llvm::Value *b, Scalar t) = 0;
  virtual llvm::Value *shift(fe::BinOp op, llvm::Value *a, llvm::Value *b, Scalar t) = 0;
  virtual llvm::Value *compare(fe::CmpOp op, llvm::Value *a, llvm::Value *b, Scalar t) = 0;
  /// `l op r` with operands of types la and rb converted to the result type `res` as
  /// Python's operators do.
  virtual llvm::Value *binaryOperation(fe::BinOp op, llvm::Value *l, llvm::Value *r, Scalar la, Scalar rb,
                                       Scalar res) = 0;
  /// -x, +x, ~x on a value already of the result type `t`.
  virtual llvm::Value *unaryOperation(fe::UnaryOp op, llvm::Value *v, Scalar t) = 0;
  virtual llvm::Value *power(llvm::Value *a, llvm::Value *b, Scalar ta, Scalar tb, Scalar result) = 0;
  /// Floating-point a / b and sqrt(x) (with fastmath, float32 takes libdevice's
  /// approximations).
  virtual llvm::Value *fdiv(llvm::Value *a, llvm::Value *b) = 0;
  virtual llvm::Value *fsqrt(llvm::Value *x) = 0;
  /// `__nv_<stem>` (with the `f` of float32 forms when `t` is float32), returning `t` or
  /// `ret` where given.
  virtual llvm::Value *libdeviceCall(const std::string &stem, Scalar t, llvm::ArrayRef<llvm::Value *> args,
                                     llvm::Type *ret = nullptr) = 0;

  // ---- complex numbers
  virtual llvm::Value *makeComplex(llvm::Value *re, llvm::Value *im, Scalar c) = 0;
  virtual llvm::Value *realPart(llvm::Value *z) = 0;
  virtual llvm::Value *imagPart(llvm::Value *z) = 0;
  virtual llvm::Value *complexBinary(fe::BinOp op, llvm::Value *x, llvm::Value *y, Scalar t) = 0;
  virtual llvm::Value *complexCompare(fe::CmpOp op, llvm::Value *x, llvm::Value *y) = 0;
  virtual llvm::Value *complexAbs(llvm::Value *z, Scalar t) = 0;

  // ---- arrays
  /// Address of a[idx...] (every dimension indexed) with wraparound and bounds checks.
  virtual llvm::Value *elementAddress(llvm::Value *arr, const Type &at, llvm::ArrayRef<llvm::Value *> idx,
                                      llvm::ArrayRef<Scalar> idxTypes, SourceLoc loc) = 0;
  virtual llvm::Value *loadElement(llvm::Value *addr, Scalar dtype) = 0;
  virtual void storeElement(llvm::Value *addr, llvm::Value *v, Scalar dtype) = 0;
  /// Field `field` of an array value (0 data, 1 shape, 2 strides), of dimension `dim`.
  virtual llvm::Value *arrayField(llvm::Value *arr, unsigned field, unsigned dim) = 0;
  virtual llvm::Value *buildArray(const Type &t, llvm::Value *data, llvm::ArrayRef<llvm::Value *> shape,
                                  llvm::ArrayRef<llvm::Value *> strides) = 0;
  /// Runs `body` with the indices of every element of `arr` (C order), in a loop.
  virtual void forEachElement(llvm::Value *arr, const Type &t,
                              const std::function<void(llvm::ArrayRef<llvm::Value *>)> &body) = 0;
  /// `cuda.shared.array(0, dtype)`: a view of the launch's dynamic shared memory.
  virtual llvm::Value *lowerDynamicShared(const Type &t) = 0;

  // ---- errors
  /// Raises the exception `detail` names ("ValueError: ...") where `cond` holds, as numba's
  /// compiled code raises it: the kernel stops with it, naming the source line.
  virtual void raiseExceptionIf(llvm::Value *cond, SourceLoc loc, const std::string &detail) = 0;

  // ---- the thread
  /// threadIdx/blockIdx/blockDim/gridDim (`reg`) in dimension `dim`.
  virtual llvm::Value *specialRegister(fe::Access reg, unsigned dim) = 0;
  virtual llvm::Value *laneId() = 0; ///< cuda.laneid (i32)
  /// A stop of the debugger here (debug kernels); `reason` is empty for a breakpoint.
  virtual void stopHere(SourceLoc loc, const std::string &reason, StopKind kind = StopKind::Breakpoint) = 0;

protected:
  ~LoweringContext() = default;
};

} // namespace cutwin::ir
