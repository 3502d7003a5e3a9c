/// The GPU approximation instructions the simulator's libdevice reaches, as the codes its
/// rewritten calls pass to the host helpers cutwin_sim_approx_f32/f64 (fp_helpers.cpp).
/// Each is the PTX instruction whole, ftz or not: the unit from a measured table
/// (approx_tables.h) and the instructions ptxas puts around it.
#pragma once

#include "frontend/ir/intrinsics.h"

#include <optional>
#include <type_traits>

namespace cutwin::sim {

enum class ApproxF32 : int {
  Ex2Ftz,   ///< ex2.approx.ftz.f32
  Ex2,      ///< ex2.approx.f32: ex2(x / 2)^2 below -126 (a subnormal result)
  Lg2Ftz,   ///< lg2.approx.ftz.f32
  Lg2,      ///< lg2.approx.f32: lg2(x 2^24) - 24 for subnormal x
  Sin,      ///< sin.approx(.ftz).f32
  Cos,      ///< cos.approx(.ftz).f32
  RsqrtFtz, ///< rsqrt.approx.ftz.f32
  Rsqrt,    ///< rsqrt.approx.f32: rsqrt(x 2^24) 2^12 for subnormal x
  SqrtFtz,  ///< sqrt.approx.ftz.f32
  Sqrt,     ///< sqrt.approx.f32: sqrt(x 2^24) 2^-12 for subnormal x
  RcpFtz,   ///< rcp.approx.ftz.f32
  Rcp,      ///< rcp.approx.f32: s rcp(x s), s = 1/4 above 2^126, 2^24 for subnormal x
  Tanh,     ///< tanh.approx.f32 (fastmath's math.tanh; libdevice does not reach it)
  DivFtz,   ///< div.approx.ftz.f32: x * rcp(y), the product flushed
  Div,      ///< div.approx.f32: (x k) * rcp(y k), k = 2^24 for subnormal y
};

enum class ApproxF64 : int {
  RcpFtz,   ///< rcp.approx.ftz.f64
  RsqrtFtz, ///< rsqrt.approx.ftz.f64
  Rsqrt,    ///< rsqrt.approx.f64: one Newton step from rsqrt.approx.ftz.f64
};

/// The units kernels call directly, one row each: X(unit, symbol, function, lanes). `unit`
/// is the instruction (ApproxF32, ApproxF64, or an ir::ApproxUnit only `cutwin.approx`
/// reaches); `function` computes it on the host (approx_tables.h: float(float) or
/// double(double)); `lanes` is its form over a vectorised loop's lanes (vector_variants.h)
/// or nullptr. The sequences (the other ApproxF32/F64 codes) go through
/// cutwin_sim_approx_f32/f64 and the operation code instead. The JIT's symbols
/// (libdeviceHostSymbols) and approxUnitSymbol come from this table.
#define CUTWIN_SIM_APPROX_UNITS(X)                                                                           \
  X(ApproxF32::Ex2Ftz, "cutwin_sim_ex2_approx_ftz_f32", approxEx2F32, nullptr)                               \
  X(ApproxF32::Lg2Ftz, "cutwin_sim_lg2_approx_ftz_f32", approxLg2F32, approxLg2F32Lanes)                     \
  X(ApproxF32::RcpFtz, "cutwin_sim_rcp_approx_ftz_f32", approxRcpF32, nullptr)                               \
  X(ApproxF32::RsqrtFtz, "cutwin_sim_rsqrt_approx_ftz_f32", approxRsqrtF32, nullptr)                         \
  X(ApproxF32::SqrtFtz, "cutwin_sim_sqrt_approx_ftz_f32", approxSqrtF32, nullptr)                            \
  X(ApproxF32::Sin, "cutwin_sim_sin_approx_f32", approxSinF32, approxSinF32Lanes)                            \
  X(ApproxF32::Cos, "cutwin_sim_cos_approx_f32", approxCosF32, approxCosF32Lanes)                            \
  X(ApproxF32::Tanh, "cutwin_sim_tanh_approx_f32", approxTanhF32, approxTanhF32Lanes)                        \
  X(ApproxF64::RcpFtz, "cutwin_sim_rcp_approx_ftz_f64", approxRcpF64, nullptr)                               \
  X(ApproxF64::RsqrtFtz, "cutwin_sim_rsqrt_approx_ftz_f64", approxRsqrtF64, nullptr)                         \
  X(ir::ApproxUnit::TanhF16, "cutwin_sim_tanh_approx_f16", approxTanhF16, nullptr)                           \
  X(ir::ApproxUnit::TanhBF16, "cutwin_sim_tanh_approx_bf16", approxTanhBF16, nullptr)

#define CUTWIN_SIM_APPROX_UNIT_SYMBOL(row, symbol, function, lanes)                                          \
  if constexpr (std::is_same_v<decltype(row), Unit>) {                                                       \
    if (unit == row)                                                                                         \
      return symbol;                                                                                         \
  }

/// The host symbol of a unit the table lists (of any of its enums), else null.
template <class Unit> const char *approxUnitSymbolOf(Unit unit) {
  CUTWIN_SIM_APPROX_UNITS(CUTWIN_SIM_APPROX_UNIT_SYMBOL)
  return nullptr;
}
#undef CUTWIN_SIM_APPROX_UNIT_SYMBOL

/// The host symbol of an instruction that is a unit alone, which kernels call directly;
/// null for the sequences.
inline const char *approxUnitSymbol(ApproxF32 op) { return approxUnitSymbolOf(op); }
inline const char *approxUnitSymbol(ApproxF64 op) { return approxUnitSymbolOf(op); }
/// The instruction of a `cutwin.approx` unit that is a sequence around a unit (the forms
/// that keep subnormals), which kernels reach through cutwin_sim_approx_f32; else nullopt.
inline std::optional<ApproxF32> approxSequence(ir::ApproxUnit unit) {
  switch (unit) {
  case ir::ApproxUnit::Ex2: return ApproxF32::Ex2;
  case ir::ApproxUnit::Lg2: return ApproxF32::Lg2;
  case ir::ApproxUnit::Rcp: return ApproxF32::Rcp;
  case ir::ApproxUnit::Rsqrt: return ApproxF32::Rsqrt;
  case ir::ApproxUnit::Sqrt: return ApproxF32::Sqrt;
  case ir::ApproxUnit::Ex2Ftz:
  case ir::ApproxUnit::Lg2Ftz:
  case ir::ApproxUnit::RcpFtz:
  case ir::ApproxUnit::RsqrtFtz:
  case ir::ApproxUnit::SqrtFtz:
  case ir::ApproxUnit::Tanh:
  case ir::ApproxUnit::TanhF16:
  case ir::ApproxUnit::TanhBF16: break;
  }
  return std::nullopt;
}

/// The host symbol of a `cutwin.approx` unit (float(float)); null for the sequences.
inline const char *approxUnitSymbol(ir::ApproxUnit unit) {
  switch (unit) {
  case ir::ApproxUnit::Ex2Ftz: return approxUnitSymbol(ApproxF32::Ex2Ftz);
  case ir::ApproxUnit::Lg2Ftz: return approxUnitSymbol(ApproxF32::Lg2Ftz);
  case ir::ApproxUnit::RcpFtz: return approxUnitSymbol(ApproxF32::RcpFtz);
  case ir::ApproxUnit::RsqrtFtz: return approxUnitSymbol(ApproxF32::RsqrtFtz);
  case ir::ApproxUnit::SqrtFtz: return approxUnitSymbol(ApproxF32::SqrtFtz);
  case ir::ApproxUnit::Tanh: return approxUnitSymbol(ApproxF32::Tanh);
  case ir::ApproxUnit::TanhF16:
  case ir::ApproxUnit::TanhBF16: return approxUnitSymbolOf(unit);
  case ir::ApproxUnit::Ex2:
  case ir::ApproxUnit::Lg2:
  case ir::ApproxUnit::Rcp:
  case ir::ApproxUnit::Rsqrt:
  case ir::ApproxUnit::Sqrt: break;
  }
  return nullptr;
}

} // namespace cutwin::sim
