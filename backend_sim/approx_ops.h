/// The GPU approximation instructions the simulator's libdevice reaches, as the codes its
/// rewritten calls pass to the host helpers cutwin_sim_approx_f32/f64 (fp_helpers.cpp).
/// Each is the PTX instruction whole, ftz or not: the unit from a measured table
/// (approx_tables.h) and the instructions ptxas puts around it.
#pragma once

#include "frontend/ir/intrinsics.h"

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

/// The host symbol of an instruction that is a unit alone (approx_tables.h's function for
/// it: float(float) or double(double)), which kernels call directly; null for the
/// sequences, which go through cutwin_sim_approx_f32/f64 and the operation code.
inline const char *approxUnitSymbol(ApproxF32 op) {
  switch (op) {
  case ApproxF32::Ex2Ftz: return "cutwin_sim_ex2_approx_ftz_f32";
  case ApproxF32::Lg2Ftz: return "cutwin_sim_lg2_approx_ftz_f32";
  case ApproxF32::RcpFtz: return "cutwin_sim_rcp_approx_ftz_f32";
  case ApproxF32::RsqrtFtz: return "cutwin_sim_rsqrt_approx_ftz_f32";
  case ApproxF32::SqrtFtz: return "cutwin_sim_sqrt_approx_ftz_f32";
  case ApproxF32::Sin: return "cutwin_sim_sin_approx_f32";
  case ApproxF32::Cos: return "cutwin_sim_cos_approx_f32";
  case ApproxF32::Tanh: return "cutwin_sim_tanh_approx_f32";
  default: return nullptr;
  }
}
/// The host symbol of a `cutwin.approx` unit (float(float)).
inline const char *approxUnitSymbol(ir::ApproxUnit unit) {
  switch (unit) {
  case ir::ApproxUnit::Ex2Ftz: return approxUnitSymbol(ApproxF32::Ex2Ftz);
  case ir::ApproxUnit::Lg2Ftz: return approxUnitSymbol(ApproxF32::Lg2Ftz);
  case ir::ApproxUnit::RcpFtz: return approxUnitSymbol(ApproxF32::RcpFtz);
  case ir::ApproxUnit::RsqrtFtz: return approxUnitSymbol(ApproxF32::RsqrtFtz);
  case ir::ApproxUnit::SqrtFtz: return approxUnitSymbol(ApproxF32::SqrtFtz);
  case ir::ApproxUnit::Tanh: return approxUnitSymbol(ApproxF32::Tanh);
  case ir::ApproxUnit::TanhF16: return "cutwin_sim_tanh_approx_f16";
  }
  return nullptr;
}
inline const char *approxUnitSymbol(ApproxF64 op) {
  switch (op) {
  case ApproxF64::RcpFtz: return "cutwin_sim_rcp_approx_ftz_f64";
  case ApproxF64::RsqrtFtz: return "cutwin_sim_rsqrt_approx_ftz_f64";
  default: return nullptr;
  }
}

} // namespace cutwin::sim
