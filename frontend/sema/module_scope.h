/// Scopes: what each free name of a kernel or device function means to it (a module, a
/// builtin, a type, a compile-time constant, another jit function, a foreign function, an
/// exception class) and which names belong to host code kernels cannot use.
///
/// A scope is built one of two ways. From a file alone (C++ and the CLI), its top-level
/// imports, assignments and decorated functions say what names mean. From the running
/// program (the Python package), the host resolved each name by value - the function's
/// globals, closure cells and builtins - and hands the meaning over (HostUnit): the source
/// is then only the function's body and its locations. A Program holds every scope a kernel
/// reaches; jit functions are known across them by key.
///
/// ModuleScope's code: module_scope.cpp (a file's imports, assignments and functions),
/// host_bindings.cpp (the host's values), signature_syntax.cpp (types and signatures as
/// kernels write them).
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
  bool inlineAlways = false; ///< inline='always' (or True): calls inlined by the frontend's inline step
  bool forceInline = false;  ///< forceinline=True: the function marked alwaysinline
  int opt = 3;
  std::optional<bool> boundscheck;
  std::optional<unsigned> sanitize; ///< sanitize=...: the simulator sanitizer's checks (ir::SanitizeCheck)
  /// Explicit signatures (string or type-object form), in the decorator's order.
  std::vector<SignatureDecl> signatures;
  /// Files linked with the kernel (`link=[...]`): .cu, .ptx, ... (paths as given).
  std::vector<std::string> link;
  /// launch_bounds: max threads per block[, min blocks per SM[, max cluster rank]].
  std::vector<int> launchBounds;
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

/// What the host program says one free name of a function is.
struct NameBinding {
  enum class Kind {
    Module,    ///< `path`: the module's import path ("math", "numba.cuda", "cutwin.cuda.random")
    Member,    ///< `path` + `attrs`: an object reached from a module ("math" . "sin")
    Constant,  ///< `value`
    Type,      ///< `text`: numba type text ("float32", "float32[:, ::1]", "void")
    Function,  ///< `text`: the key of the jit function (another HostUnit)
    Foreign,   ///< cuda.declare_device: `foreignName`, `text` its signature, `foreignLink`
    Exception, ///< `text`: the exception class's name (raised by the host under that class)
    HostOnly,  ///< `text`: why kernels cannot use it
  };
  Kind kind = Kind::HostOnly;
  std::string path;
  std::vector<std::string> attrs;
  ConstValue value;
  std::string text;
  std::string foreignName;
  std::vector<std::string> foreignLink;
  bool foreignCAbi = false; ///< Foreign: declare_device(..., abi="c"): `T name(args...)`
  /// Module the compiler does not know (a user's module): what the attributes the function
  /// reads from it are.
  std::map<std::string, NameBinding> members;
};

/// One jit function as the running program holds it: the source file it is reported under
/// (the text holds its `def` at its own line), and the meaning of each free name.
struct HostUnit {
  std::string key;      ///< unique in the program
  std::string function; ///< the def's name in the source
  JitOptions options;   ///< signatures as text
  std::map<std::string, NameBinding> names;
  std::map<std::string, ConstValue> defaults; ///< parameters' default values, as the host has them
};

class ModuleScope;

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
  /// JitFunction, Foreign: unique in the program (the name, for a file read alone). A
  /// reference to a function of another scope has the key and no `def`.
  std::string key;
  /// JitFunction with a def: the scope its body is typed in (its globals).
  const ModuleScope *home = nullptr;
  Entity entity;
  ConstValue value;
  const FunctionDefStmt *def = nullptr;
  JitOptions options;
  /// JitFunction of a host unit: its parameters' default values (a file read alone
  /// evaluates the default expressions instead).
  std::map<std::string, ConstValue> defaults;
  std::string reason;
  /// HostOnly: a jitted function whose source cannot be parsed; asking for it reports why.
  const UnsupportedStmt *unparsed = nullptr;
  /// Foreign: `cuda.declare_device(name, signature)` - the function's name in the linked
  /// code and its numba signature.
  std::string foreignName;
  Signature foreignSignature;
  std::vector<std::string> foreignLink; ///< declare_device(..., link=[...]): linked with its callers
  /// declare_device(..., abi="c"): called as `T name(args...)`, not numba's
  /// `int name(T *ret, args...)`.
  bool foreignCAbi = false;
};

class ModuleScope {
public:
  /// Reads the top level of `module`; throws CompileError for malformed jit decorators.
  ModuleScope(std::shared_ptr<const SourceFile> file, std::shared_ptr<const Module> module,
              const HostBindings &host = {});
  /// The scope of one function whose names the host resolved (see HostUnit).
  ModuleScope(std::shared_ptr<const SourceFile> file, std::shared_ptr<const Module> module,
              const HostUnit &unit);

  ModuleScope(const ModuleScope &) = delete; // symbols point at their scope
  ModuleScope &operator=(const ModuleScope &) = delete;

  const SourceFile &file() const { return *file_; }
  std::shared_ptr<const SourceFile> fileRef() const { return file_; }
  const Module &module() const { return *module_; }

  const Symbol *lookup(const std::string &name) const;
  /// Every symbol, by name (the Program registers the functions and foreign functions).
  const std::map<std::string, Symbol> &symbols() const { return symbols_; }
  /// An attribute of a user's module the host resolved (a Module type whose path starts
  /// with "namespace:"), or null.
  const Symbol *namespaceMember(const std::string &path, const std::string &attr) const;
  const std::map<std::string, std::map<std::string, Symbol>> &namespaces() const { return namespaces_; }
  /// The @cuda.jit function `name` (kernel or device function), or null.
  const Symbol *jitFunction(const std::string &name) const;
  /// The jit function named `name` this scope defines (with its def), or null: for a host
  /// unit, its one function.
  const Symbol *definedFunction(const std::string &name) const;
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
    if (!host_.constants.count(name)) { // the host's value wins
      if (s.kind == Symbol::Kind::JitFunction || s.kind == Symbol::Kind::Foreign) {
        s.key = name;
        s.home = this;
      }
      symbols_[name] = std::move(s);
    }
  }
  Symbol fromBinding(const std::string &name, const NameBinding &b, const std::string &unitKey);
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
  std::string ownKey_; ///< a host unit: the key of the function it defines
  /// User modules' attributes, by namespace path ("namespace:3").
  std::map<std::string, std::map<std::string, Symbol>> namespaces_;
};

/// Every scope a kernel reaches: the first is the kernel's (or the one file's); jit and
/// foreign functions are found by key in any of them.
class Program {
public:
  Program() = default;
  /// A program of one file read alone.
  explicit Program(std::unique_ptr<ModuleScope> scope) { add(std::move(scope)); }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  void add(std::unique_ptr<ModuleScope> scope);
  /// Checks that every function a scope refers to is defined by some scope.
  void link() const;

  const ModuleScope &primary() const { return *scopes_.front(); }
  const std::vector<std::unique_ptr<ModuleScope>> &scopes() const { return scopes_; }
  /// The jit function (with its def) or foreign function of `key`, or null.
  const Symbol *function(const std::string &key) const;
  /// The symbol a name's symbol stands for: a reference to another scope's function
  /// resolves to its definition; anything else is itself.
  const Symbol &definition(const Symbol &s) const;

private:
  std::vector<std::unique_ptr<ModuleScope>> scopes_;
  std::map<std::string, const Symbol *> functions_;
};

} // namespace cutwin::fe
