/// Type inference per launch signature, with numba's rules: every local variable gets one
/// type, the unification of all its assignments (found by iterating to a fixed point);
/// expressions are typed by numba's operator and builtin rules; device functions are
/// specialised per argument-type tuple.
#pragma once

#include "frontend/sema/module_scope.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cutwin::fe {

struct Builtin;

struct FunctionSpec;

/// What an attribute read or a subscript is, for the lowering.
enum class Access : uint8_t {
  None,
  ThreadIdx, ///< cuda.threadIdx.<d>, d in staticIndex (and the three below alike)
  BlockIdx,
  BlockDim,
  GridDim,
  LaneId,     ///< cuda.laneid
  TupleField, ///< a named tuple's field, staticIndex its position
  ArrayShape, ///< a.shape, a.strides, a.size
  ArrayStrides,
  ArraySize,
  RealPart, ///< z.real, z.imag
  ImagPart,
  TupleIndices, ///< a[t]: a tuple variable's elements index the dimensions
  Slices,       ///< a[i, j:k]: a view (sliceKinds)
  TupleStatic,  ///< t[k] with k a constant (staticIndex)
  TupleDynamic, ///< t[i] of a uniform tuple, i known at run time
  RecordField,  ///< r.x, r["x"]: a record's field, staticIndex its position
  Transpose,    ///< a.T: the view with the dimensions reversed
  EnumValue,    ///< m.value of an enum member: the member's value itself
  TupleSlice,   ///< t[i:j:k] with constant bounds: a tuple of the elements `elementIndices` names
};

/// What the typer learned about one expression.
struct ExprInfo {
  Type type;
  std::optional<ConstValue> constant;   ///< compile-time value (literals, globals, folded)
  const FunctionSpec *callee = nullptr; ///< device function called
  /// Device function calls: the expression passed for each parameter (positional or by
  /// keyword), or null where its default (the constant in boundDefaults) applies.
  std::vector<const Expr *> boundArgs;
  std::vector<std::optional<ConstValue>> boundDefaults;
  /// The registry's row of the builtin called (frontend/builtins/builtin.h), if it is one.
  const Builtin *function = nullptr;
  /// The cuda.declare_device function called, if it is one.
  const Symbol *foreign = nullptr;
  /// What an attribute read or a subscript does, where its types do not say.
  Access access = Access::None;
  /// Access::Slices: each index position's kind, 's' a slice and 'i' an integer.
  std::string sliceKinds;
  /// For operators and builtin calls: the scalar types operands are converted to.
  std::vector<Scalar> operandTypes;
  /// Tuple element selected by a constant index (after wrapping negatives); -1 otherwise.
  int64_t staticIndex = -1;
  /// Access::TupleSlice: the elements of the tuple taken, in order.
  std::vector<unsigned> elementIndices;
  /// cuda.shared.array / cuda.local.array(..., alignment=N): the bytes (0: the default).
  uint32_t alignment = 0;
  /// An Optional used where its value is needed (numba converts it): `type` is the value's
  /// type; the expression gives the Optional, which is checked for None, then unwrapped.
  bool unwrapsOptional = false;
};

/// One typed specialisation of a kernel or device function.
struct FunctionSpec {
  /// The function's definition as typed and lowered: the symbol's own, or the copy with
  /// its literal_unroll loops unrolled (`unrolled`) and then its variables' versions
  /// renamed (`versioned`; variable_versions.h), owned here.
  const FunctionDefStmt *def = nullptr;
  std::unique_ptr<FunctionDefStmt> unrolled, versioned;
  const Symbol *symbol = nullptr;
  bool isKernel = false;
  std::vector<Type> argTypes;
  /// Device functions: the compile-time value each argument had at the call (integers,
  /// booleans and tuples of them), which parameters the body never assigns keep - as
  /// numba's literal arguments do (a shared array shaped by a parameter). Part of the
  /// specialisation's identity.
  std::vector<std::optional<ConstValue>> argConstants;
  Type returnType;                    ///< None for kernels
  std::map<std::string, Type> locals; ///< parameters included
  std::unordered_map<const Expr *, ExprInfo> exprs;
  /// `if` statements whose condition is a compile-time constant, and its truth: only the
  /// branch taken is typed and lowered (numba prunes such branches, e.g. on a literal
  /// argument, so the other may not even type).
  std::unordered_map<const Stmt *, bool> constantBranches;
  /// The type each for loop assigns its target (an element of what it iterates).
  std::unordered_map<const Stmt *, Type> loopElements;
  /// The operation of each augmented assignment (`x += y`): its type and operand types.
  std::unordered_map<const Stmt *, ExprInfo> augOps;
  /// Calls with unpacked arguments (`f(a, *t)`): the call as typed and lowered in their
  /// place, `t`'s elements as arguments (StarElementExprs; `t` is evaluated once).
  std::unordered_map<const CallExpr *, std::unique_ptr<CallExpr>> expandedCalls;
  std::string irName; ///< name of the LLVM function
  /// Called (by itself or a function it calls) while it was being typed: its return type
  /// was taken before typing finished.
  mutable bool calledRecursively = false;

  const ExprInfo &info(const Expr &e) const;
  const JitOptions &options() const { return symbol->options; }
  /// The scope the function's names are resolved in, and its source file.
  const ModuleScope &scope() const { return *symbol->home; }
  const SourceFile &file() const { return symbol->home->file(); }
};

/// Owns the specialisations made while typing one kernel and what it calls.
class Typer {
public:
  explicit Typer(const Program &program) : program_(program) {}

  /// Types kernel `name` for `argTypes`; throws CompileError on any typing error.
  const FunctionSpec &typeKernel(const std::string &name, const std::vector<Type> &argTypes);
  /// Specialises a device function (cached per argument types).
  /// `fn` is the function's definition; errors are reported at `callLoc` of `file`.
  const FunctionSpec &typeDeviceFunction(const Symbol &fn, const SourceFile &file,
                                         const std::vector<Type> &argTypes, SourceLoc callLoc,
                                         const std::vector<std::optional<ConstValue>> &argConstants = {});

  /// The kernel's scope (the first of the program).
  const ModuleScope &scope() const { return program_.primary(); }
  const Program &program() const { return program_; }
  const std::vector<std::unique_ptr<FunctionSpec>> &specs() const { return specs_; }

private:
  FunctionSpec &specialize(const Symbol &fn, const std::vector<Type> &argTypes, bool isKernel,
                           const std::vector<std::optional<ConstValue>> &argConstants = {});

  const Program &program_;
  std::vector<std::unique_ptr<FunctionSpec>> specs_;
  std::vector<const FunctionSpec *> inProgress_;
  size_t created_ = 0; ///< specialisations made (numbers those specialised on constants)
};

/// Can an argument of type `actual` be passed where `formal` is declared? The conversion
/// kind (numba's rating), or None.
Conversion argConversion(const Type &actual, const Type &formal);

/// Types with no run-time value - type objects, builtin and jit functions, modules - which
/// device functions can still take as arguments (their specialisations differ per value).
bool isStaticType(const Type &t);

/// Types of a kernel's parameters from an explicit signature, checked against the def.
std::vector<Type> kernelArgTypesFromSignature(const ModuleScope &scope, const Symbol &kernel,
                                              const Signature &sig);

} // namespace cutwin::fe
