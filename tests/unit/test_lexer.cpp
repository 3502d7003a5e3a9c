// Tokenizer: literals, indentation, line joining, comments, exact locations.
#include "frontend/syntax/lexer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace cutwin;
using namespace cutwin::fe;

namespace {
std::vector<Token> lex(const std::string &src) { return tokenize(SourceFile("t.py", src)); }

std::string kinds(const std::vector<Token> &toks) {
  std::string s;
  for (auto &t : toks) {
    switch (t.kind) {
    case Tok::Name: s += "N(" + t.text + ")"; break;
    case Tok::Int: s += "I(" + std::to_string(t.intValue) + ")"; break;
    case Tok::Float: s += "F"; break;
    case Tok::String: s += "S(" + t.text + ")"; break;
    case Tok::Op: s += t.text; break;
    case Tok::Newline: s += ";"; break;
    case Tok::Indent: s += "{"; break;
    case Tok::Dedent: s += "}"; break;
    case Tok::End: s += "$"; break;
    case Tok::Imag: s += "J"; break;
    }
    s += " ";
  }
  return s;
}

std::string lexError(const std::string &src) {
  try {
    lex(src);
  } catch (const CompileError &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(Lexer, NumberLiterals) {
  auto t = lex("x = 0x1F + 1_000 + 0o17 + 0b101 + 10\n");
  EXPECT_EQ(t[2].intValue, 31u);
  EXPECT_EQ(t[4].intValue, 1000u);
  EXPECT_EQ(t[6].intValue, 15u);
  EXPECT_EQ(t[8].intValue, 5u);
  EXPECT_EQ(t[10].intValue, 10u);
  auto f = lex("1e-3 2.5 .5 3. 1_0.2_5e1_0\n");
  EXPECT_EQ(f[0].floatValue, 1e-3);
  EXPECT_EQ(f[1].floatValue, 2.5);
  EXPECT_EQ(f[2].floatValue, 0.5);
  EXPECT_EQ(f[3].floatValue, 3.0);
  EXPECT_EQ(f[4].floatValue, 10.25e10);
  EXPECT_EQ(f[0].kind, Tok::Float);
}

TEST(Lexer, IndentationAndBlankLines) {
  auto t = lex("def f():\n    x = 1\n\n    # comment\n    if x:\n        y = 2\n    z = 3\n");
  EXPECT_EQ(kinds(t), "N(def) N(f) ( ) : ; { N(x) = I(1) ; N(if) N(x) : ; { N(y) = I(2) ; } "
                      "N(z) = I(3) ; } $ ");
}

TEST(Lexer, ImplicitAndExplicitLineJoining) {
  auto t = lex("a = (1 +\n     2)\nb = 3 + \\\n    4\n");
  EXPECT_EQ(kinds(t), "N(a) = ( I(1) + I(2) ) ; N(b) = I(3) + I(4) ; $ ");
}

TEST(Lexer, StringsAndDocstrings) {
  auto t = lex("'''doc\nstring''' \"a\\tb\" r'\\n'\n");
  EXPECT_EQ(t[0].text, "doc\nstring");
  EXPECT_EQ(t[1].text, "a\tb");
  EXPECT_EQ(t[2].text, "\\n");
}

TEST(Lexer, LocationsAreExact) {
  auto t = lex("x = 1\n  \ny  =  foo(2)\n");
  // y at line 3 col 1; foo at col 7; 2 at col 11; the end of line 1 at col 6
  EXPECT_EQ(t[4].text, "y");
  EXPECT_EQ(t[4].loc.line, 3u);
  EXPECT_EQ(t[4].loc.col, 1u);
  EXPECT_EQ(t[6].text, "foo");
  EXPECT_EQ(t[6].loc.col, 7u);
  EXPECT_EQ(t[8].loc.col, 11u);
  EXPECT_EQ(t[3].kind, Tok::Newline);
  EXPECT_EQ(t[3].loc.line, 1u);
  EXPECT_EQ(t[3].loc.col, 6u);
}

TEST(Lexer, ErrorsNameTheirPlace) {
  EXPECT_THAT(lexError("if x:\n    y = 1\n  z = 2\n"), ::testing::HasSubstr("t.py:3:3: error: unindent"));
  EXPECT_THAT(lexError("x = $\n"), ::testing::HasSubstr("t.py:1:5: error: unexpected character '$'"));
  EXPECT_THAT(lexError("x = 'abc\n"), ::testing::HasSubstr("unterminated string literal"));
  EXPECT_THAT(lexError("x = 99999999999999999999\n"), ::testing::HasSubstr("integer literal too large"));
  EXPECT_THAT(lexError("x = 012\n"), ::testing::HasSubstr("leading zeros"));
  EXPECT_THAT(lexError("x = 1__0\n"), ::testing::HasSubstr("invalid digit separator"));
}

TEST(Lexer, CaretPointsAtTheColumn) {
  std::string e = lexError("value = 3 $ 4\n");
  EXPECT_THAT(e, ::testing::HasSubstr("    value = 3 $ 4\n              ^"));
}
