/// Module scope of a kernel file: what each top-level name means to kernels (imported
/// modules and functions, numba type objects, compile-time constants, @cuda.jit kernels and
/// device functions) and which names belong to host code kernels cannot use.
#pragma once

#include "frontend/diagnostics.h"
#include "frontend/sema/builtins.h"
#include "frontend/syntax/ast.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cutwin::fe {

/// One declared signature: an expression of the decorator, or text the host program
/// passed (reported at `loc` on error).
struct SignatureDecl {
  const Expr *expr = nullptr;
  std::string text;
  SourceLoc loc;
};

/// `@cuda.jit(...)` options.
struct JitOptions {
  bool device = false;
  bool debug = false;
  bool fastmath = false;
  bool lineinfo = false;
  bool cache = false;
  bool inlineAlways = false;
  int opt = 3;
  std::optional<bool> boundscheck;
  /// Explicit signatures (string or type-object form), in the decorator's order.
  std::vector<SignatureDecl> signatures;
  /// Files linked with the kernel (`link=[...]`): .cu, .ptx, ... (paths as given).
  std::vector<std::string> link;
  /// Where `link=` is an expression the compiler cannot evaluate (line 0: it is not).
  SourceLoc linkComputedAt;
};

/// A signature `ret(args...)`; `ret` is None for kernels and `void`.
struct Signature {
  Type ret;
  std::vector<Type> args;
  bool hasReturn = false; ///< false for a bare argument tuple ("(float32[:], int32)")
};

/// What the host program knows of a module's top-level names (the Python package passes
/// the live values of the globals kernels use and the functions it compiled). Host values
/// win over what the source says.
struct HostBindings {
  std::map<std::string, ConstValue> constants;
  /// Functions compiled with jit, with their options; signatures as numba signature text.
  std::map<std::string, JitOptions> functions;
};

struct Symbol {
  enum class Kind {
    Entity,   ///< module, builtin function, type object
    Constant, ///< compile-time value
    JitFunction,
    Foreign,  ///< a device function in a linked file (cuda.declare_device)
    HostOnly, ///< defined by host code: not usable in kernels (reason says why)
  };
  Kind kind = Kind::HostOnly;
  SourceLoc loc;
  Entity entity;
  ConstValue value;
  const FunctionDefStmt *def = nullptr;
  JitOptions options;
  std::string reason;
  /// Foreign: `cuda.declare_device(name, signature)` - the function's name in the linked
  /// code and its numba signature.
  std::string foreignName;
  Signature foreignSignature;
  std::vector<std::string> foreignLink; ///< declare_device(..., link=[...]): linked with its callers
};

class ModuleScope {
public:
  /// Reads the top level of `module`; throws CompileError for malformed jit decorators.
  ModuleScope(std::shared_ptr<const SourceFile> file, std::shared_ptr<const Module> module,
              const HostBindings &host = {});

  const SourceFile &file() const { return *file_; }
  std::shared_ptr<const SourceFile> fileRef() const { return file_; }
  const Module &module() const { return *module_; }

  const Symbol *lookup(const std::string &name) const;
  /// The @cuda.jit function `name` (kernel or device function), or null.
  const Symbol *jitFunction(const std::string &name) const;
  /// Names of all kernels (jit functions without device=True), in source order.
  std::vector<std::string> kernelNames() const;

  /// Resolves a signature expression (string literal or type-object form).
  Signature parseSignature(const Expr &sig) const;
  Signature parseSignature(const SignatureDecl &d) const {
    return d.expr ? parseSignature(*d.expr) : parseSignatureText(d.text, d.loc);
  }
  /// Resolves a signature given as text, reported at `loc` of this file on error.
  Signature parseSignatureText(const std::string &text, SourceLoc loc) const;
  /// A type expression in a signature or a dtype argument: `float32`, `float32[:, ::1]`,
  /// `np.float64`, `numba.types.int32`. nullopt if `e` is not a type.
  std::optional<Type> typeFromExpr(const Expr &e, const SourceFile &file) const;
  /// Evaluates a compile-time constant expression over module constants.
  std::optional<ConstValue> evalConstant(const Expr &e) const;
  /// The entity a module-level expression names (`cuda`, `cuda.shared`, `np.float32`).
  std::optional<Entity> resolveEntity(const Expr &e) const;

private:
  void bind(const std::string &name, Symbol s) {
    if (!host_.constants.count(name)) // the host's value wins
      symbols_[name] = std::move(s);
  }
  void readImport(const ImportStmt &s);
  void readImportFrom(const ImportFromStmt &s);
  void readAssign(const AssignStmt &s);
  /// `name = cuda.declare_device("f", "float32(float32)")`; false if `value` is not one.
  bool readDeclareDevice(const std::string &name, SourceLoc loc, const Expr &value);
  /// A `link=` value: one string literal or a list/tuple of them. Anything else is an
  /// error naming `what`, or nullopt when `what` is null.
  std::optional<std::vector<std::string>> fileList(const Expr &e, const char *what) const;
  void readFunction(const FunctionDefStmt &f);
  std::optional<JitOptions> jitDecorator(const Expr &d) const;
  Signature signatureFromExpr(const Expr &e, const SourceFile &file) const;

  std::shared_ptr<const SourceFile> file_;
  std::shared_ptr<const Module> module_;
  HostBindings host_;
  std::map<std::string, Symbol> symbols_;
  std::vector<std::string> jitOrder_;
};

} // namespace cutwin::fe
