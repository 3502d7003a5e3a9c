/// The simulator's JIT: one ORC LLJIT per process with JITLink, every kernel in its own
/// JITDylib, registered with GDB's JIT interface so that `break kernel.py:N` works.
#pragma once

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace llvm::orc {
class LLJIT;
class JITDylib;
} // namespace llvm::orc

namespace cutwin::sim {

class Jit {
public:
  static Jit &get();

  const llvm::DataLayout &dataLayout() const { return layout_; }
  const std::string &triple() const { return triple_; }
  /// The code this JIT makes: triple, CPU and its features (CUTWIN_SIM_CPU's or the host's).
  std::string targetIdentity() const;
  /// For optimisation passes (TTI); not used to generate code. One per host thread: a
  /// TargetMachine caches subtargets without a lock, so concurrent compiles cannot share one.
  llvm::TargetMachine &targetMachine();

  /// Compiles and links `m` (its undefined functions found in `externals` first, then in
  /// the process); returns the addresses of the requested symbols (0 if absent). With
  /// `object`, also hands back the object file the module became: relocatable, its host
  /// symbols and externals resolved at each link (loadObject links it again).
  std::vector<uint64_t> load(llvm::orc::ThreadSafeModule m, const std::vector<std::string> &symbols,
                             const std::map<std::string, uint64_t> &externals = {},
                             std::string *object = nullptr);
  /// Links an object file load() handed back, in a JITDylib of its own, as load() links a
  /// module (a kernel cache on disk keeps them); cutwin::Error if it is none.
  std::vector<uint64_t> loadObject(const std::string &object, const std::vector<std::string> &symbols,
                                   const std::map<std::string, uint64_t> &externals = {});

private:
  Jit();
  /// A JITDylib for one kernel: `externals`, then the host's symbols (under mu_).
  llvm::orc::JITDylib &kernelDylib(const std::map<std::string, uint64_t> &externals);
  std::vector<uint64_t> lookup(llvm::orc::JITDylib &jd, const std::vector<std::string> &symbols);
  std::string *capture_ = nullptr; ///< where the object file being linked goes (load(), under mu_)
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  llvm::orc::JITDylib *host_ = nullptr;
  std::optional<llvm::orc::JITTargetMachineBuilder> machine_; ///< what targetMachine() makes
  llvm::DataLayout layout_{""};
  std::string triple_;
  std::mutex mu_;
  unsigned counter_ = 0;
};

} // namespace cutwin::sim
