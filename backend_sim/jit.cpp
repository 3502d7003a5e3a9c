#include "backend_sim/jit.h"

#include "backend_sim/half_conversions.h"
#include "backend_sim/host_callbacks.h"
#include "backend_sim/libdevice_cpu.h"
#include "cutwin/errors.h"

#include <llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/DebugObjectManagerPlugin.h>
#include <llvm/ExecutionEngine/Orc/EPCDebugObjectRegistrar.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/ObjectTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/TargetProcess/JITLoaderGDB.h>
#include <llvm/IR/Instructions.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include <cstdlib>
#include <dlfcn.h>

namespace cutwin::sim {

using namespace llvm;
using namespace llvm::orc;

namespace {
template <class T> T unwrap(Expected<T> v, const char *what) {
  if (!v)
    throw cutwin::Error(std::string("simulator JIT: ") + what + ": " + llvm::toString(v.takeError()));
  return std::move(*v);
}

JITDylib &unwrapDylib(Expected<JITDylib &> v) {
  if (!v)
    throw cutwin::Error("simulator JIT: cannot create a JITDylib: " + llvm::toString(v.takeError()));
  return *v;
}

/// The processor kernels are compiled for: the host's, or CUTWIN_SIM_CPU (an LLVM CPU name
/// such as x86-64, x86-64-v3 or skylake-avx512, whose features this host must have). Results
/// do not depend on it (docs/simulator.md); the tests check that with the baseline x86-64.
JITTargetMachineBuilder targetFor(const char *cpu) {
  auto host = unwrap(JITTargetMachineBuilder::detectHost(), "host detection");
  if (!cpu || !*cpu || std::string(cpu) == "native")
    return host;
  JITTargetMachineBuilder chosen(host.getTargetTriple());
  chosen.setCPU(cpu);
  auto chosenTm = unwrap(chosen.createTargetMachine(), "target machine");
  const MCSubtargetInfo &want = *chosenTm->getMCSubtargetInfo();
  if (!want.isCPUStringValid(cpu))
    throw cutwin::Error(std::string("CUTWIN_SIM_CPU=") + cpu +
                        ": not a processor LLVM knows (try x86-64 or x86-64-v3)");
  // Every feature the host reports absent must be absent from the chosen processor too.
  StringMap<bool> hostFeatures;
  sys::getHostCPUFeatures(hostFeatures);
  std::string missing;
  for (const auto &f : hostFeatures)
    if (!f.getValue() && want.checkFeatures("+" + f.getKey().str()))
      missing += std::string(missing.empty() ? "" : ", ") + f.getKey().str();
  if (!missing.empty())
    throw cutwin::Error(std::string("CUTWIN_SIM_CPU=") + cpu +
                        " needs what this processor lacks: " + missing);
  return chosen;
}
/// Compiles each module to machine code optimised, except a module with a function of tens
/// of thousands of instructions or a basic block of thousands (a kernel of thousands of
/// statements), which is compiled without the code generator's optimisations, its blocks
/// cut into pieces: the instruction schedulers take time quadratic in a block's length (a
/// 4,000-statement kernel: 7.2 s against 0.3 s on a Zen 2 host), and so does the fast
/// register allocator that replaces them (a block of 22,000 instructions: 6.9 s, in pieces
/// 0.2 s). The instructions chosen differ, not what they compute (the IR fixes that).
class SizeAwareCompiler : public IRCompileLayer::IRCompiler {
public:
  static constexpr size_t kLongBlock = 2000, kLongFunction = 20000, kPiece = 500;

  explicit SizeAwareCompiler(JITTargetMachineBuilder jtmb)
      : IRCompiler(irManglingOptionsFromTargetOptions(jtmb.getOptions())) {
    optimised_ = unwrap(jtmb.createTargetMachine(), "target machine");
    jtmb.setCodeGenOptLevel(CodeGenOpt::None);
    fast_ = unwrap(jtmb.createTargetMachine(), "target machine");
  }

  Expected<std::unique_ptr<MemoryBuffer>> operator()(Module &m) override {
    bool large = false;
    for (Function &f : m) {
      large = large || f.getInstructionCount() >= kLongFunction;
      for (BasicBlock &bb : f)
        large = large || bb.size() >= kLongBlock;
    }
    if (!large)
      return SimpleCompiler(*optimised_)(m);
    // The fast register allocator's time grows with the square of a block's length (its
    // live values): blocks are cut into pieces of kPiece instructions joined by branches.
    for (Function &f : m) {
      std::vector<BasicBlock *> blocks;
      for (BasicBlock &bb : f)
        blocks.push_back(&bb);
      for (BasicBlock *bb : blocks)
        while (bb->size() > 2 * kPiece) {
          auto at = bb->begin();
          std::advance(at, kPiece);
          while (isa<PHINode>(*at))
            ++at;
          bb = bb->splitBasicBlock(at);
        }
    }
    return SimpleCompiler(*fast_)(m);
  }

private:
  std::unique_ptr<TargetMachine> optimised_, fast_;
};

} // namespace

Jit &Jit::get() {
  static Jit jit;
  return jit;
}

Jit::Jit() {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  auto jtmb = targetFor(std::getenv("CUTWIN_SIM_CPU"));
  // No contraction beyond what the kernel IR spells out (numerics policy).
  jtmb.getOptions().AllowFPOpFusion = FPOpFusion::Strict;
  jtmb.setCodeGenOptLevel(CodeGenOpt::Default);
  // Position-independent: kernels reach host data (the approximation models) through
  // the GOT, wherever the library holding it was loaded.
  jtmb.setRelocationModel(Reloc::PIC_);
  machine_ = jtmb;
  (void)targetMachine(); // fails here, once, if the target cannot be made

  LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(jtmb);
  builder.setCompileFunctionCreator(
      [](JITTargetMachineBuilder b) -> Expected<std::unique_ptr<IRCompileLayer::IRCompiler>> {
        return std::make_unique<SizeAwareCompiler>(std::move(b));
      });
  builder.setObjectLinkingLayerCreator([](ExecutionSession &es,
                                          const Triple &) -> Expected<std::unique_ptr<ObjectLayer>> {
    auto layer = std::make_unique<ObjectLinkingLayer>(es);
    // Debug objects go to GDB's JIT interface; without it breakpoints are never hit.
    // The registration function is looked up in the library that defines it: inside
    // a Python extension (loaded RTLD_LOCAL) the process-wide lookup cannot see it.
    std::optional<ExecutorAddr> gdbDylib;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&llvm_orc_registerJITLoaderGDBWrapper), &info) && info.dli_fname) {
      if (auto h = es.getExecutorProcessControl().loadDylib(info.dli_fname))
        gdbDylib = *h;
      else
        consumeError(h.takeError());
    }
    if (auto reg = createJITLoaderGDBRegistrar(es, gdbDylib))
      layer->addPlugin(std::make_unique<DebugObjectManagerPlugin>(es, std::move(*reg)));
    else
      llvm::errs() << "cutwin: kernels cannot be debugged with gdb: " << llvm::toString(reg.takeError())
                   << "\n";
    return layer;
  });
  jit_ = unwrap(builder.create(), "LLJIT");
  // Each module's object file on its way to the linker: load() may ask for a copy (its
  // materialisation runs on its own thread, under mu_: there are no compile threads).
  jit_->getObjTransformLayer().setTransform(
      [this](std::unique_ptr<MemoryBuffer> obj) -> Expected<std::unique_ptr<MemoryBuffer>> {
        if (capture_)
          capture_->assign(obj->getBufferStart(), obj->getBufferSize());
        return obj;
      });
  layout_ = jit_->getDataLayout();
  triple_ = jit_->getTargetTriple().str();

  host_ = &unwrapDylib(jit_->getExecutionSession().createJITDylib("cutwin.host"));
  MangleAndInterner mangle(jit_->getExecutionSession(), layout_);
  SymbolMap syms;
  for (auto &[name, addr] : hostCallbackSymbols())
    syms[mangle(name)] = JITEvaluatedSymbol(pointerToJITTargetAddress(addr), JITSymbolFlags::Exported);
  for (auto &[name, addr] : libdeviceHostSymbols())
    syms[mangle(name)] = JITEvaluatedSymbol(pointerToJITTargetAddress(addr), JITSymbolFlags::Exported);
  for (auto &[name, addr] : halfConversionSymbols()) // before the process's libgcc
    syms[mangle(name)] = JITEvaluatedSymbol(pointerToJITTargetAddress(addr), JITSymbolFlags::Exported);
  if (auto err = host_->define(absoluteSymbols(std::move(syms))))
    throw cutwin::Error("simulator JIT: " + llvm::toString(std::move(err)));
  host_->addGenerator(unwrap(DynamicLibrarySearchGenerator::GetForCurrentProcess(layout_.getGlobalPrefix()),
                             "process symbols"));
}

llvm::TargetMachine &Jit::targetMachine() {
  thread_local std::unique_ptr<TargetMachine> tm;
  if (!tm)
    tm = unwrap(machine_->createTargetMachine(), "target machine");
  return *tm;
}

JITDylib &Jit::kernelDylib(const std::map<std::string, uint64_t> &externals) {
  auto &es = jit_->getExecutionSession();
  JITDylib &jd = unwrapDylib(es.createJITDylib("cutwin.kernel." + std::to_string(counter_++)));
  if (!externals.empty()) {
    MangleAndInterner mangle(es, layout_);
    SymbolMap syms;
    for (auto &[name, addr] : externals)
      syms[mangle(name)] = JITEvaluatedSymbol(JITTargetAddress(addr), JITSymbolFlags::Exported);
    if (auto err = jd.define(absoluteSymbols(std::move(syms))))
      throw cutwin::Error("simulator JIT: " + llvm::toString(std::move(err)));
  }
  jd.addToLinkOrder(*host_);
  return jd;
}

std::vector<uint64_t> Jit::lookup(JITDylib &jd, const std::vector<std::string> &symbols) {
  std::vector<uint64_t> out;
  for (auto &s : symbols) {
    auto sym = jit_->lookup(jd, s);
    if (!sym) {
      consumeError(sym.takeError());
      out.push_back(0);
      continue;
    }
    out.push_back(sym->getValue());
  }
  return out;
}

std::vector<uint64_t> Jit::load(ThreadSafeModule m, const std::vector<std::string> &symbols,
                                const std::map<std::string, uint64_t> &externals, std::string *object) {
  std::lock_guard<std::mutex> lock(mu_);
  JITDylib &jd = kernelDylib(externals);
  if (auto err = jit_->addIRModule(jd, std::move(m)))
    throw cutwin::Error("simulator JIT: " + llvm::toString(std::move(err)));
  capture_ = object; // (the module is compiled at the first lookup, which reports no errors)
  std::vector<uint64_t> out = lookup(jd, symbols);
  capture_ = nullptr;
  return out;
}

std::string Jit::targetIdentity() const {
  return machine_->getTargetTriple().str() + ";" + machine_->getCPU() + ";" +
         machine_->getFeatures().getString();
}

std::vector<uint64_t> Jit::loadObject(const std::string &object, const std::vector<std::string> &symbols,
                                      const std::map<std::string, uint64_t> &externals) {
  std::lock_guard<std::mutex> lock(mu_);
  auto buffer = MemoryBuffer::getMemBufferCopy(object, "cutwin.kernel.o");
  if (auto file = object::ObjectFile::createObjectFile(buffer->getMemBufferRef()); !file)
    throw cutwin::Error("simulator JIT: not an object file: " + llvm::toString(file.takeError()));
  JITDylib &jd = kernelDylib(externals);
  if (auto err = jit_->addObjectFile(jd, std::move(buffer)))
    throw cutwin::Error("simulator JIT: " + llvm::toString(std::move(err)));
  return lookup(jd, symbols);
}

} // namespace cutwin::sim
