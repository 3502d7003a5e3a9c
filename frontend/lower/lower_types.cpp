// The IR and debug-info types of the frontend's types: scalars (bool is i1 in registers and
// i8 in memory), arrays as {data, shape, strides} in their address space, tuples as structs,
// Optional as {value, present}; their DWARF for debuggers, and the `cuda` variable the
// debugger reads threadIdx and friends from.
#include "frontend/lower/lowerer.h"

#include "frontend/ir/intrinsics.h"

#include <llvm/BinaryFormat/Dwarf.h>

namespace cutwin::ir {

using namespace llvm;
using fe::TypeKind;

llvm::Type *Lowerer::scalarType(Scalar s) {
  switch (s) {
  case Scalar::Bool: return llvm::Type::getInt1Ty(ctx_);
  case Scalar::F16: return llvm::Type::getHalfTy(ctx_);
  case Scalar::BF16: return llvm::Type::getInt16Ty(ctx_); // its bits (bfloat16.h)
  case Scalar::F32: return llvm::Type::getFloatTy(ctx_);
  case Scalar::F64: return llvm::Type::getDoubleTy(ctx_);
  case Scalar::C64:
    return StructType::get(ctx_, {llvm::Type::getFloatTy(ctx_), llvm::Type::getFloatTy(ctx_)});
  case Scalar::C128:
    return StructType::get(ctx_, {llvm::Type::getDoubleTy(ctx_), llvm::Type::getDoubleTy(ctx_)});
  default: return llvm::Type::getIntNTy(ctx_, fe::bitWidth(s));
  }
}

llvm::Type *Lowerer::memType(Scalar s) {
  return s == Scalar::Bool ? llvm::Type::getInt8Ty(ctx_) : scalarType(s);
}

unsigned Lowerer::addrSpace(fe::MemSpace s) const {
  // Local arrays are allocas: generic pointers on both targets.
  return s == fe::MemSpace::Local ? 0 : unsigned(s);
}

StructType *Lowerer::arrayType(const Type &t) {
  auto *i64 = llvm::Type::getInt64Ty(ctx_);
  auto *dims = ArrayType::get(i64, t.ndim);
  return StructType::get(ctx_, {PointerType::get(ctx_, addrSpace(t.space)), dims, dims});
}

llvm::Type *Lowerer::llvmType(const Type &t) {
  switch (t.kind) {
  case TypeKind::Scalar: return scalarType(t.scalar);
  case TypeKind::Array: return arrayType(t);
  case TypeKind::Tuple: {
    std::vector<llvm::Type *> el;
    for (auto &e : t.elems)
      el.push_back(llvmType(e));
    return StructType::get(ctx_, el);
  }
  case TypeKind::None: return llvm::Type::getVoidTy(ctx_);
  case TypeKind::Optional: return StructType::get(ctx_, {llvmType(t.elems[0]), llvm::Type::getInt1Ty(ctx_)});
  case TypeKind::Record: return PointerType::get(ctx_, addrSpace(t.space)); // the address of its bytes
  case TypeKind::Module: // (cuda.cg.grid_group: an object with methods only)
  case TypeKind::Function:
  case TypeKind::TypeObject:
  case TypeKind::DeviceFunction:
  case TypeKind::ForeignFunction:
    // Known when the kernel compiles: nothing to hold at run time, where a tuple has one
    // as an element (`(math.sin, x)`).
    return StructType::get(ctx_);
  case TypeKind::Unknown:
  case TypeKind::Range:
  case TypeKind::String:
  case TypeKind::Slice:
  case TypeKind::Iterator: break;
  }
  throw Error("internal error: no IR type for " + t.str());
}

DIType *Lowerer::diType(const Type &t) {
  if (t.isArray() && !t.isRecordArray() && !t.pointer)
    return diArrayType(t);
  if (!t.isScalar())
    return nullptr;
  bool complex = t.scalar == Scalar::C64 || t.scalar == Scalar::C128;
  unsigned enc = complex                    ? dwarf::DW_ATE_complex_float
                 : t.scalar == Scalar::Bool ? dwarf::DW_ATE_boolean
                 : fe::isFloat(t.scalar)    ? dwarf::DW_ATE_float
                 : fe::isSigned(t.scalar)   ? dwarf::DW_ATE_signed
                                            : dwarf::DW_ATE_unsigned;
  return dib_->createBasicType(fe::scalarName(t.scalar), fe::byteSize(t.scalar) * 8, enc);
}

/// An array's descriptor as the struct it is in memory, named after numba's type
/// (`array(float32, 1d, C)`): `data` points at the elements, then `shape` and byte
/// `strides`. gdb's cutwin extension prints and indexes it as an array.
DIType *Lowerer::diArrayType(const Type &t) {
  Type elemType = Type::scalarOf(t.scalar);
  DIType *elem = diType(elemType);
  if (!elem)
    return nullptr;
  auto *i64 = dib_->createBasicType("int64", 64, dwarf::DW_ATE_signed);
  auto *dims = dib_->createArrayType(64 * t.ndim, 64, i64,
                                     dib_->getOrCreateArray({dib_->getOrCreateSubrange(0, int64_t(t.ndim))}));
  const char *layout = t.layout == fe::Layout::C ? "C" : t.layout == fe::Layout::F ? "F" : "A";
  std::string name =
      std::string("array(") + fe::scalarName(t.scalar) + ", " + std::to_string(t.ndim) + "d, " + layout + ")";
  const char *memory = t.space == fe::MemSpace::Shared  ? "shared"
                       : t.space == fe::MemSpace::Local ? "local"
                                                        : "";
  if (*memory)
    name += " in " + std::string(memory) + " memory";
  uint64_t size = 64 + 2 * 64 * t.ndim;
  auto *st = dib_->createStructType(diCU_, name, diFile_, 0, size, 64, DINode::FlagZero, nullptr, {});
  Metadata *members[] = {
      dib_->createMemberType(st, "data", diFile_, 0, 64, 64, 0, DINode::FlagZero,
                             dib_->createPointerType(elem, 64)),
      dib_->createMemberType(st, "shape", diFile_, 0, 64 * t.ndim, 64, 64, DINode::FlagZero, dims),
      dib_->createMemberType(st, "strides", diFile_, 0, 64 * t.ndim, 64, 64 + 64 * t.ndim, DINode::FlagZero,
                             dims),
  };
  dib_->replaceArrays(st, dib_->getOrCreateArray(members));
  return st;
}

/// `cuda` in a debug function's frame: threadIdx, blockIdx, blockDim and gridDim as
/// structs of x, y, z, so that a debugger can show them (`print cuda.threadIdx`).
void Lowerer::declareCudaVariable() {
  auto *u32 = dib_->createBasicType("uint32", 32, dwarf::DW_ATE_unsigned);
  auto *dim3 = dib_->createStructType(diCU_, "dim3", diFile_, 0, 96, 32, DINode::FlagZero, nullptr, {});
  Metadata *xyz[3];
  for (unsigned k = 0; k < 3; ++k)
    xyz[k] = dib_->createMemberType(dim3, std::string(1, char('x' + k)), diFile_, 0, 32, 32, 32 * k,
                                    DINode::FlagZero, u32);
  dib_->replaceArrays(dim3, dib_->getOrCreateArray(xyz));
  auto *st = dib_->createStructType(diCU_, "cuda", diFile_, 0, 4 * 96, 32, DINode::FlagZero, nullptr, {});
  const char *fields[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
  Intrinsic sources[4][3] = {{Intrinsic::TidX, Intrinsic::TidY, Intrinsic::TidZ},
                             {Intrinsic::CtaidX, Intrinsic::CtaidY, Intrinsic::CtaidZ},
                             {Intrinsic::NtidX, Intrinsic::NtidY, Intrinsic::NtidZ},
                             {Intrinsic::NctaidX, Intrinsic::NctaidY, Intrinsic::NctaidZ}};
  Metadata *members[4];
  for (unsigned k = 0; k < 4; ++k)
    members[k] = dib_->createMemberType(st, fields[k], diFile_, 0, 96, 32, 96 * k, DINode::FlagZero, dim3);
  dib_->replaceArrays(st, dib_->getOrCreateArray(members));
  auto *i32 = llvm::Type::getInt32Ty(ctx_);
  AllocaInst *slot = entryAlloca(ArrayType::get(i32, 12), "cuda");
  for (unsigned k = 0; k < 12; ++k)
    b_.CreateStore(b_.CreateCall(getIntrinsic(mod_, sources[k / 3][k % 3])),
                   b_.CreateConstInBoundsGEP2_32(slot->getAllocatedType(), slot, 0, k));
  auto *var = dib_->createAutoVariable(diSub_, "cuda", diFile_, spec_->def->loc.line, st, true,
                                       DINode::FlagArtificial);
  dib_->insertDeclare(slot, var, dib_->createExpression(),
                      DILocation::get(ctx_, spec_->def->loc.line, 0, diSub_), b_.GetInsertBlock());
}

} // namespace cutwin::ir
