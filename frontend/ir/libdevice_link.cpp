#include "frontend/ir/libdevice_link.h"

#include "cutwin/errors.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdlib>
#include <mutex>

#ifndef CUTWIN_LIBDEVICE_PATH
#define CUTWIN_LIBDEVICE_PATH "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace cutwin::ir {

std::string libdevicePath() {
  if (const char *p = std::getenv("CUTWIN_LIBDEVICE"))
    return p;
  return CUTWIN_LIBDEVICE_PATH;
}

namespace {

const llvm::MemoryBuffer &libdeviceBitcode() {
  static std::once_flag once;
  static std::unique_ptr<llvm::MemoryBuffer> buf;
  static std::string error;
  std::call_once(once, [] {
    auto b = llvm::MemoryBuffer::getFile(libdevicePath());
    if (b)
      buf = std::move(*b);
    else
      error = b.getError().message();
  });
  if (!buf)
    throw Error("cannot read libdevice from '" + libdevicePath() + "' (" + error +
                "); set CUTWIN_LIBDEVICE to the CUDA toolkit's nvvm/libdevice/libdevice.10.bc");
  return *buf;
}

} // namespace

std::set<std::string> linkLibdevice(llvm::Module &m) {
  bool needed = false;
  std::set<std::string> before;
  for (llvm::Function &f : m) {
    if (f.isDeclaration() && f.getName().startswith("__nv_"))
      needed = true;
    if (!f.isDeclaration())
      before.insert(f.getName().str());
  }
  if (!needed)
    return {};
  auto lib = llvm::getLazyBitcodeModule(libdeviceBitcode().getMemBufferRef(), m.getContext());
  if (!lib)
    throw Error("cannot read libdevice: " + llvm::toString(lib.takeError()));
  (*lib)->setDataLayout(m.getDataLayout());
  (*lib)->setTargetTriple(m.getTargetTriple());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded))
    throw Error("linking libdevice failed");
  std::set<std::string> added;
  for (llvm::Function &f : m)
    if (!f.isDeclaration() && !before.count(f.getName().str())) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
      added.insert(f.getName().str());
    }
  for (llvm::GlobalVariable &g : m.globals())
    if (!g.isDeclaration() && g.hasExternalLinkage() && g.getName().startswith("__cudart"))
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  return added;
}

} // namespace cutwin::ir
