/// Tokenizer for the Python subset kernels are written in: indentation, implicit and
/// explicit line joining, comments, numbers (`1e-3`, `0x1F`, `1_000`) and strings.
#pragma once

#include "frontend/diagnostics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cutwin::fe {

enum class Tok { Name, Int, Float, Imag, String, Op, Newline, Indent, Dedent, End };

struct Token {
  Tok kind = Tok::End;
  std::string text; ///< identifier, operator, or the string's decoded contents
  SourceLoc loc;
  uint64_t intValue = 0; ///< Tok::Int (values above 2^64-1 are rejected)
  double floatValue = 0; ///< Tok::Float, Tok::Imag

  bool is(Tok k, std::string_view t) const { return kind == k && text == t; }
  bool isOp(std::string_view t) const { return is(Tok::Op, t); }
  bool isKeyword(std::string_view t) const { return is(Tok::Name, t); }
};

/// Splits a whole file into tokens; throws CompileError on malformed input.
std::vector<Token> tokenize(const SourceFile &file);

const char *tokKindName(Tok k);

} // namespace cutwin::fe
