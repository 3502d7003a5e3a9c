#include "frontend/ir/intrinsics.h"

#include "cutwin/errors.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>

#include <array>

namespace cutwin::ir {

namespace {
constexpr std::array<IntrinsicInfo, kIntrinsicCount> kTable = {{
#define CUTWIN_INTRINSIC(id, name, type, effect, meaning, sim, gpu)                                          \
  {name, type, IntrinsicEffect::effect, meaning, sim, gpu},
#include "frontend/ir/intrinsics.def"
#undef CUTWIN_INTRINSIC
}};

/// The special registers must stay contiguous, x, y, z: the *IdxIntrinsic helpers count on it.
static_assert(unsigned(Intrinsic::TidZ) - unsigned(Intrinsic::TidX) == 2 &&
              unsigned(Intrinsic::CtaidX) == unsigned(Intrinsic::TidX) + 3 &&
              unsigned(Intrinsic::NtidX) == unsigned(Intrinsic::TidX) + 6 &&
              unsigned(Intrinsic::NctaidZ) == unsigned(Intrinsic::TidX) + 11);

llvm::FunctionType *parseFunctionType(llvm::Module &m, const IntrinsicInfo &info) {
  llvm::SMDiagnostic err;
  auto *ft = llvm::dyn_cast_or_null<llvm::FunctionType>(llvm::parseType(info.type, err, m));
  if (!ft)
    throw Error(std::string("intrinsics.def: the type of ") + info.name +
                " is not an LLVM function type: " + info.type);
  return ft;
}
} // namespace

const IntrinsicInfo &intrinsicInfo(Intrinsic id) { return kTable[size_t(id)]; }

const char *intrinsicName(Intrinsic id) { return kTable[size_t(id)].name; }

const char *cachePolicyName(CachePolicy p) {
  switch (p) {
  case CachePolicy::Ca: return "ca";
  case CachePolicy::Cg: return "cg";
  case CachePolicy::Cs: return "cs";
  case CachePolicy::Lu: return "lu";
  case CachePolicy::Cv: return "cv";
  case CachePolicy::Wb: return "wb";
  case CachePolicy::Wt: return "wt";
  }
  return "";
}

std::optional<Intrinsic> lookupIntrinsic(std::string_view name) {
  for (size_t i = 0; i < kTable.size(); ++i)
    if (name == kTable[i].name)
      return Intrinsic(i);
  return std::nullopt;
}

Intrinsic threadIdxIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::TidX) + d); }
Intrinsic blockIdxIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::CtaidX) + d); }
Intrinsic blockDimIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::NtidX) + d); }
Intrinsic gridDimIntrinsic(unsigned d) { return Intrinsic(unsigned(Intrinsic::NctaidX) + d); }

llvm::Function *getIntrinsic(llvm::Module &m, Intrinsic id) {
  using namespace llvm;
  const IntrinsicInfo &info = intrinsicInfo(id);
  if (Function *f = m.getFunction(info.name))
    return f;
  Function *f = Function::Create(parseFunctionType(m, info), GlobalValue::ExternalLinkage, info.name, m);
  f->addFnAttr(Attribute::NoUnwind);
  switch (info.effect) {
  case IntrinsicEffect::Pure:
    f->setDoesNotAccessMemory();
    f->addFnAttr(Attribute::WillReturn);
    f->addFnAttr(Attribute::NoSync);
    break;
  case IntrinsicEffect::Convergent: f->addFnAttr(Attribute::Convergent); break; // and orders memory
  case IntrinsicEffect::NoReturn:
    f->addFnAttr(Attribute::NoReturn);
    f->addFnAttr(Attribute::Cold);
    break;
  case IntrinsicEffect::Effect: break;
  }
  return f;
}

void removeLoweredIntrinsics(llvm::Module &m, std::string_view step) {
  for (const IntrinsicInfo &i : kTable)
    if (llvm::Function *f = m.getFunction(i.name); f && f->use_empty())
      f->eraseFromParent();
  for (const llvm::Function &f : m) {
    if (!f.getName().startswith("cutwin.") || !lookupIntrinsic(f.getName().str()))
      continue;
    std::string where;
    for (const llvm::User *u : f.users())
      if (auto *ci = llvm::dyn_cast<llvm::CallInst>(u)) {
        where = " (called in " + ci->getFunction()->getName().str() + ")";
        break;
      }
    throw Error("internal error: " + f.getName().str() + " is left after " + std::string(step) + where +
                ": the backend's lowering misses it");
  }
}

std::string intrinsicTableMarkdown() {
  std::string out = "| function | type | effect | meaning | simulator | GPU |\n|---|---|---|---|---|---|\n";
  static const char *const effects[] = {"pure", "convergent", "noreturn", "effect"};
  for (const IntrinsicInfo &i : kTable)
    out += std::string("| `") + i.name + "` | `" + i.type + "` | " + effects[unsigned(i.effect)] + " | " +
           i.meaning + " | " + i.simulator + " | " + i.gpu + " |\n";
  return out;
}

} // namespace cutwin::ir
