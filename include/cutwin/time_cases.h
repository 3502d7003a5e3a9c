/// Case labels of the datetime64 and timedelta64 rows of dtypes.def (switches over the
/// element types list every row, and these twenty travel together).
#pragma once

/// The case labels of every datetime64 and timedelta64 row, for a switch over enum E
/// (fe::Scalar or cutwin::DType): `CUTWIN_TIME_CASES(fe::Scalar) return ...;`
#define CUTWIN_TIME_CASES(E_)                                                                                \
  case E_::DTY:                                                                                              \
  case E_::DTMon:                                                                                            \
  case E_::DTW:                                                                                              \
  case E_::DTD:                                                                                              \
  case E_::DTh:                                                                                              \
  case E_::DTMin:                                                                                            \
  case E_::DTs:                                                                                              \
  case E_::DTms:                                                                                             \
  case E_::DTus:                                                                                             \
  case E_::DTns:                                                                                             \
  case E_::TDY:                                                                                              \
  case E_::TDMon:                                                                                            \
  case E_::TDW:                                                                                              \
  case E_::TDD:                                                                                              \
  case E_::TDh:                                                                                              \
  case E_::TDMin:                                                                                            \
  case E_::TDs:                                                                                              \
  case E_::TDms:                                                                                             \
  case E_::TDus:                                                                                             \
  case E_::TDns:
