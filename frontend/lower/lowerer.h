/// Internal to lowering: the state of lowering one module. Functions are in
/// lower_function.cpp, types in lower_types.cpp, statements in lower_stmt.cpp, expressions
/// in lower_expr.cpp, arrays in lower_array.cpp, calls in lower_call.cpp, debug frames in
/// lower_debug.cpp. The builtin families (frontend/builtins/) see it as a LoweringContext.
#pragma once

#include "frontend/builtins/builtin.h"
#include "frontend/lower/lowering_context.h"

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <map>
#include <optional>

namespace cutwin::ir {

/// A fresh module for `fn` with the KernelInfo kernels and exported device functions share,
/// and the steps after lowering them: linked files, verification (lower_function.cpp).
KernelIR startKernelIR(const fe::Typer &typer, const fe::FunctionSpec &fn, const LowerOptions &opts,
                       const std::string &irName);
void finishKernelIR(const fe::Typer &typer, KernelIR &out);

class Lowerer final : public LoweringContext {
public:
  Lowerer(const fe::Typer &typer, const LowerOptions &opts, KernelIR &out);
  /// Lowering that ended in a CompileError still finalizes the debug info builder: its
  /// temporary nodes are not the context's and would leak.
  ~Lowerer();
  void lowerKernelEntry(const fe::FunctionSpec &kernel);
  /// The wrapper of a device function compiled on its own (lower_export.cpp).
  void lowerExportEntry(const fe::FunctionSpec &fn, ExportAbi abi, const std::string &name, const Type &ret);

  /// A stop of the debugger here (a `cutwin.breakpoint` with this function's variables);
  /// `reason` is empty for a breakpoint, else the error about to be raised.
  void stopHere(SourceLoc loc, const std::string &reason, StopKind kind = StopKind::Breakpoint) override;
  /// Debug kernels: this function's frame record for the debugger (docs/ir.md), made at its
  /// entry and pushed on the thread's debug stack; popped at its exit after a return event.
  void enterDebugFrame();
  void leaveDebugFrame();
  /// Debug kernels: a statement starts at `loc` (its site becomes the frame's current one).
  void lineEvent(SourceLoc loc);

private:
  // ---- the IR being built (LoweringContext)
  llvm::IRBuilder<> &builder() override { return b_; }
  llvm::Module &module() override { return mod_; }
  llvm::Function &function() override { return *fn_; }
  KernelInfo &kernelInfo() override { return out_.info; }
  llvm::GlobalVariable *newSharedVariable(llvm::Type *t, const std::string &what) override;
  llvm::Type *arrayStorageType(const Type &t, uint64_t count) override;
  llvm::AllocaInst *newLocalArrayStorage(const Type &t, uint64_t count, uint64_t alignment) override;

  // ---- types (lower_types.cpp)
  llvm::Type *llvmType(const Type &t) override;
  llvm::Type *scalarType(Scalar s) override;
  llvm::Type *memType(Scalar s) override; ///< in memory: bool is i8
  llvm::StructType *arrayType(const Type &t);
  unsigned addrSpace(fe::MemSpace s) const;

  // ---- functions (lower_function.cpp) and statements (lower_stmt.cpp)
  llvm::Function *declareFunction(const fe::FunctionSpec &spec);
  void lowerBody(const fe::FunctionSpec &spec, llvm::Function *fn);
  /// Lowers the bodies of the device functions declared so far (and those they call).
  void lowerPendingBodies();
  void lowerBlock(const fe::Block &b);
  /// Lowers `b`, then branches to `next` unless the block already ended (break, return).
  void lowerBlockThenBranch(const fe::Block &b, llvm::BasicBlock *next);
  void lowerStmt(const fe::Stmt &s);
  void lowerAssign(const fe::Expr &target, llvm::Value *v, const Type &vt);
  void lowerAugAssign(const fe::AugAssignStmt &a);
  void lowerIf(const fe::IfStmt &s);
  void lowerWhile(const fe::WhileStmt &s);
  void lowerFor(const fe::ForStmt &s);
  /// A for loop over arrays, tuples, enumerate(...) and zip(...) (lower_iter.cpp): a
  /// counter from 0 to the iterable's length, the element computed from it.
  void lowerForEach(const fe::ForStmt &s);
  /// The blocks of a `for` loop: `cond` (at the header) decides whether the body runs,
  /// `bind` assigns the target at the body's start, `advance` steps at the latch; the
  /// `else` block runs when `cond` fails, `break` skips it.
  void lowerLoop(const fe::ForStmt &s, const std::function<llvm::Value *()> &cond,
                 const std::function<void()> &bind, const std::function<void()> &advance);
  struct Iteration {
    llvm::Value *length;                                 ///< int64
    std::function<llvm::Value *(llvm::Value *)> element; ///< of the counter (int64)
  };
  Iteration iteration(const fe::Expr &iterable);
  void lowerReturn(const fe::ReturnStmt &s);
  void lowerAssert(const fe::AssertStmt &s);
  void lowerRaise(const fe::RaiseStmt &s);
  llvm::AllocaInst *entryAlloca(llvm::Type *t, const llvm::Twine &name) override;
  llvm::AllocaInst *localSlot(const std::string &name);
  void setGlueLoc();
  void setLoc(SourceLoc loc) override;
  /// Starts a fresh block if the current one already ended (after break/return).
  void ensureInsertable();
  bool terminated() const;
  llvm::DIType *diType(const Type &t);
  llvm::DIType *diArrayType(const Type &t);
  void declareCudaVariable();
  /// The debug-info file of a source path (one per file the kernel's functions come from).
  llvm::DIFile *fileFor(const std::string &path);

  // ---- expressions (lower_expr.cpp)
  const fe::ExprInfo &info(const fe::Expr &e) const override { return spec_->info(e); }
  llvm::Value *lowerExpr(const fe::Expr &e) override;
  /// The expression's own value: an Optional stays one (lowerExpr unwraps it where typing said).
  llvm::Value *lowerValue(const fe::Expr &e);
  /// An Optional's value; None raises numba's TypeError where checks are on.
  llvm::Value *unwrapOptional(llvm::Value *optional, const Type &value, SourceLoc loc);
  /// Lowers `e` and converts the result to `to`.
  llvm::Value *lowerAs(const fe::Expr &e, const Type &to) override;
  llvm::Value *constant(const fe::ConstValue &v, const Type &t) override;
  llvm::Value *convert(llvm::Value *v, const Type &from, const Type &to) override;
  llvm::Value *convertScalar(llvm::Value *v, Scalar from, Scalar to) override;
  llvm::Value *truth(llvm::Value *v, const Type &t) override;
  llvm::Value *binary(fe::BinOp op, llvm::Value *a, llvm::Value *b, Scalar t) override;
  llvm::Value *intFloorDivMod(bool wantMod, llvm::Value *a, llvm::Value *b, Scalar t);
  llvm::Value *floatFloorDivMod(bool wantMod, llvm::Value *a, llvm::Value *b, Scalar t);
  llvm::Value *shift(fe::BinOp op, llvm::Value *a, llvm::Value *b, Scalar t) override;
  llvm::Value *power(llvm::Value *a, llvm::Value *b, Scalar ta, Scalar tb, Scalar result) override;
  llvm::Value *lowerBinOp(const fe::BinOpExpr &b);
  llvm::Value *lowerUnary(const fe::UnaryOpExpr &u);
  llvm::Value *lowerBoolOp(const fe::BoolOpExpr &b);
  llvm::Value *lowerCompare(const fe::CompareExpr &c);
  /// The scalars of a tuple value, nested tuples flattened, with their types.
  void tupleLeaves(llvm::Value *tuple, const Type &t, std::vector<std::pair<llvm::Value *, Type>> &out);
  llvm::Value *compare(fe::CmpOp op, llvm::Value *a, llvm::Value *b, Scalar t) override;
  llvm::Value *lowerIfExp(const fe::IfExpExpr &i);
  llvm::Value *lowerAttribute(const fe::AttributeExpr &a);
  llvm::Value *lowerTuple(const fe::TupleExpr &t);
  llvm::Value *lowerSubscript(const fe::SubscriptExpr &s);
  /// threadIdx/blockIdx/blockDim/gridDim (`reg`) in dimension `dim`.
  llvm::Value *specialRegister(fe::Access reg, unsigned dim) override;
  llvm::Value *laneId() override; ///< cuda.laneid (i32)
  /// `__nv_<stem>` (with the `f` of float32 forms when `t` is float32), returning `t` or
  /// `ret` where given (llrint's int64).
  llvm::Value *libdeviceCall(const std::string &stem, Scalar t, llvm::ArrayRef<llvm::Value *> args,
                             llvm::Type *ret = nullptr) override;
  /// Floating-point a / b and sqrt(x): with fastmath, float32 takes libdevice's
  /// approximations (__nv_fast_fdividef, __nv_sqrtf without precise sqrt), as numba-cuda's
  /// fastmath does through libNVVM's -prec-div=0 -prec-sqrt=0; every backend then runs the
  /// same instructions.
  llvm::Value *fdiv(llvm::Value *a, llvm::Value *b) override;
  llvm::Value *fsqrt(llvm::Value *x) override;

  // ---- complex numbers (lower_complex.cpp)
  llvm::Value *makeComplex(llvm::Value *re, llvm::Value *im, Scalar c) override;
  llvm::Value *realPart(llvm::Value *z) override;
  llvm::Value *imagPart(llvm::Value *z) override;
  /// Conversions to or from a complex type (real -> complex, complex -> complex or bool).
  llvm::Value *convertComplex(llvm::Value *v, Scalar from, Scalar to);
  llvm::Value *complexBinary(fe::BinOp op, llvm::Value *x, llvm::Value *y, Scalar t) override;
  llvm::Value *complexCompare(fe::CmpOp op, llvm::Value *x, llvm::Value *y) override;
  llvm::Value *complexAbs(llvm::Value *z, Scalar t) override;
  /// z ** w = exp(w log z); 0 ** w is 1 for w == 0, else 0.
  llvm::Value *complexPower(llvm::Value *z, llvm::Value *w, Scalar t);

  // ---- arrays (lower_array.cpp)
  /// Address of a[idx...] (every dimension indexed) with wraparound and bounds checks.
  llvm::Value *elementAddress(llvm::Value *arr, const Type &at, llvm::ArrayRef<llvm::Value *> idx,
                              llvm::ArrayRef<Scalar> idxTypes, SourceLoc loc) override;
  /// a[i] with fewer indices than dimensions: a view of the rest.
  llvm::Value *subArray(llvm::Value *arr, const Type &at, llvm::ArrayRef<llvm::Value *> idx,
                        llvm::ArrayRef<Scalar> idxTypes, const Type &resultType, SourceLoc loc);
  llvm::Value *normalizeIndex(llvm::Value *idx, Scalar t, llvm::Value *extent, unsigned axis, SourceLoc loc);
  llvm::Value *loadElement(llvm::Value *addr, Scalar dtype) override;
  void storeElement(llvm::Value *addr, llvm::Value *v, Scalar dtype) override;
  /// `cuda.shared.array(0, dtype)`: a view of the launch's dynamic shared memory.
  llvm::Value *lowerDynamicShared(const Type &t) override;
  /// A host array frozen into the kernel: an addrspace(4) constant global, as an array value.
  llvm::Value *lowerConstArray(const fe::ConstValue &v, SourceLoc loc);
  llvm::Value *arrayField(llvm::Value *arr, unsigned field, unsigned dim) override;
  llvm::Value *buildArray(const Type &t, llvm::Value *data, llvm::ArrayRef<llvm::Value *> shape,
                          llvm::ArrayRef<llvm::Value *> strides) override;
  /// Computes element address and the indices of a subscript expression used as a target.
  llvm::Value *subscriptAddress(const fe::SubscriptExpr &s, Type &elemType);
  /// The index values of `a[i]` or `a[i, j, ...]`.
  std::vector<llvm::Value *> lowerIndices(const fe::SubscriptExpr &s);
  // Slicing (lower_slice.cpp).
  bool isSliceSubscript(const fe::SubscriptExpr &s) const;
  llvm::Value *sliceView(const fe::SubscriptExpr &s);
  /// Runs `body` with the indices of every element of `arr` (C order), in a loop.
  void forEachElement(llvm::Value *arr, const Type &t,
                      const std::function<void(llvm::ArrayRef<llvm::Value *>)> &body) override;
  /// [lowest, highest) byte addresses of the view's elements.
  std::pair<llvm::Value *, llvm::Value *> byteSpan(llvm::Value *arr, const Type &t);
  /// `target = v` where target is a view (`a[i:j]`, a row): fills it or copies an array.
  void storeIntoView(const fe::SubscriptExpr &target, llvm::Value *v, const Type &vt, SourceLoc loc);

  /// Fills the view `dst` with a number or copies the array `v` of its shape into it.
  void copyIntoView(llvm::Value *dst, const Type &view, llvm::Value *v, const Type &vt, SourceLoc loc);

  // ---- records (lower_record.cpp)
  llvm::Value *recordFieldAddress(llvm::Value *rec, const Type &rt, unsigned field);
  /// A field's value: a number, a view of a nested array, or a nested record's address.
  llvm::Value *recordField(llvm::Value *rec, const Type &rt, unsigned field);
  void copyRecord(llvm::Value *dst, llvm::Value *src, const fe::RecordLayout &r);
  /// Where a number lives: its address, type and the alignment its accesses may assume.
  struct ScalarPlace {
    llvm::Value *addr;
    Scalar scalar;
    uint64_t align;
  };
  /// The place of a record's numeric field named by `target` (`r.x`, `r["x"]`).
  ScalarPlace recordFieldPlace(const fe::Expr &target);
  /// `target = v` where target is a record's field or a record (`a[i] = r`).
  void storeIntoRecord(const fe::Expr &target, llvm::Value *v, const Type &vt, SourceLoc loc);
  /// `a[i] = "text"`, `r.s = b"text"`: a constant string into a NumPy string element or field.
  void storeString(const fe::Expr &target, const std::string &text);

  // ---- calls (lower_call.cpp)
  llvm::Value *lowerCall(const fe::CallExpr &c);
  llvm::Value *binaryOperation(fe::BinOp op, llvm::Value *l, llvm::Value *r, Scalar la, Scalar rb,
                               Scalar res) override;
  /// -x, +x, ~x on a value already of the result type `t`.
  llvm::Value *unaryOperation(fe::UnaryOp op, llvm::Value *v, Scalar t) override;
  llvm::Value *lowerDeviceCall(const fe::CallExpr &c, const fe::ExprInfo &ci);
  /// A call to a cuda.declare_device function: numba's ABI, `i32 name(T *ret, args...)`.
  llvm::Value *lowerForeignCall(const fe::CallExpr &c, const fe::ExprInfo &ci);

  // ---- errors and sites
  unsigned site(SourceLoc loc, const char *what) override;
  /// Branches to a cold block raising `kind` when `cond` is true.
  /// Raises the Python exception `detail` names ("ValueError: text") where `cond` holds.
  void raiseExceptionIf(llvm::Value *cond, SourceLoc loc, const std::string &detail) override;
  /// With debug=True, ZeroDivisionError where `op` (/, // or %) has a zero divisor of type `t`.
  void raiseOnZeroDivisor(fe::BinOp op, llvm::Value *divisor, Scalar t, SourceLoc loc);
  void raiseIf(llvm::Value *cond, KernelErrorKind kind, unsigned site, llvm::Value *a, llvm::Value *b,
               llvm::Value *c);
  void raiseNow(KernelErrorKind kind, unsigned site, llvm::Value *a, llvm::Value *b, llvm::Value *c);

  struct LoopTargets {
    llvm::BasicBlock *breakTo, *continueTo;
  };

  const fe::Typer &typer_;
  const LowerOptions &opts_;
  KernelIR &out_;
  llvm::LLVMContext &ctx_;
  llvm::Module &mod_;
  llvm::IRBuilder<> b_;
  std::unique_ptr<llvm::DIBuilder> dib_;
  bool diFinalized_ = false;
  llvm::DIFile *diFile_ = nullptr;
  std::map<std::string, llvm::DIFile *> diFiles_;
  llvm::DICompileUnit *diCU_ = nullptr;

  std::map<const fe::FunctionSpec *, llvm::Function *> functions_;
  std::vector<const fe::FunctionSpec *> pending_;

  // per function
  const fe::FunctionSpec *spec_ = nullptr;
  /// The tuples unpacked into the call being lowered (`f(*t)`), each evaluated once for
  /// all of its elements: by the starred expression.
  std::unordered_map<const fe::Expr *, llvm::Value *> unpackedTuples_;
  llvm::Function *fn_ = nullptr;
  llvm::DISubprogram *diSub_ = nullptr;
  llvm::BasicBlock *allocaBlock_ = nullptr;
  llvm::BasicBlock *exitBlock_ = nullptr;
  llvm::AllocaInst *retSlot_ = nullptr;
  llvm::AllocaInst *debugFrame_ = nullptr;                     ///< debug kernels: the function's frame record
  std::shared_ptr<const std::vector<DebugLocal>> debugLocals_; ///< ... and its variables
  llvm::Value *errRecord_ = nullptr;
  std::map<std::string, llvm::AllocaInst *> slots_;
  std::vector<LoopTargets> loops_;
  unsigned sharedCounter_ = 0;
  /// Constant arrays emitted so far (one global per host array), and their bytes.
  std::map<const std::vector<uint8_t> *, llvm::GlobalVariable *> constArrays_;
  uint64_t constBytes_ = 0;
};

} // namespace cutwin::ir
