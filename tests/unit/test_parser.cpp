// Parser: precedence, statements, decorators, module-level leniency, diagnostics.
#include "frontend/syntax/parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

using namespace cutwin;
using namespace cutwin::fe;
using ::testing::HasSubstr;

namespace {
std::string dump(const std::string &src) {
  SourceFile f("t.py", src);
  Module m = parseModule(f);
  std::ostringstream os;
  dumpModule(m, os);
  return os.str();
}

/// A jitted function the parser cannot read is kept as an unsupported statement (so that
/// only it fails): "file:line:col: error: why" of the first one, for its name.
std::string unparsedKernel(const std::string &src, const std::string &name) {
  SourceFile f("t.py", src);
  Module m = parseModule(f);
  for (auto &stmt : m.body)
    if (stmt->kind == StmtKind::Unsupported) {
      auto &u = static_cast<const UnsupportedStmt &>(*stmt);
      if (u.jitFunction && !u.boundNames.empty() && u.boundNames[0] == name)
        return "t.py:" + std::to_string(u.errorLoc.line) + ":" + std::to_string(u.errorLoc.col) +
               ": error: " + u.reason;
    }
  return "";
}
} // namespace

TEST(Parser, OperatorPrecedenceAndAssociativity) {
  EXPECT_EQ(dump("x = 1 + 2 * 3 ** -2 ** 2\n"), "x = (1 + (2 * (3 ** (-(2 ** 2)))))\n");
  EXPECT_EQ(dump("x = -2 ** 2\n"), "x = (-(2 ** 2))\n");
  EXPECT_EQ(dump("x = a | b ^ c & d << 1 + 2\n"), "x = (a | (b ^ (c & (d << (1 + 2)))))\n");
  EXPECT_EQ(dump("x = a - b - c // d % e\n"), "x = ((a - b) - ((c // d) % e))\n");
  EXPECT_EQ(dump("x = not a < b <= c and d or e\n"), "x = (((not (a < b <= c)) and d) or e)\n");
  EXPECT_EQ(dump("x = a if b else c if d else e\n"), "x = (a if b else (c if d else e))\n");
}

TEST(Parser, StatementsAndTargets) {
  std::string src = "x, y = cuda.grid(2)\n"
                    "a[i, j] += 1\n"
                    "a = b = 0\n"
                    "for i in range(10, 0, -1):\n    pass\nelse:\n    x = 1\n"
                    "while x < 3:\n    break\n";
  EXPECT_EQ(dump(src), "(x, y) = cuda.grid(2)\n"
                       "a[(i, j)] += 1\n"
                       "a = b = 0\n"
                       "for i in range(10, 0, (-1)):  # line 4\n    pass\nelse:\n    x = 1\n"
                       "while (x < 3):  # line 8\n    break\n");
}

TEST(Parser, DecoratorsAndKeywordArguments) {
  std::string src = "@cuda.jit('void(float32[:])', fastmath=True)\ndef k(a):\n    s = "
                    "cuda.shared.array(shape=(16, 16), dtype=float32)\n";
  EXPECT_EQ(dump(src), "@cuda.jit(\"void(float32[:])\", fastmath=True)\n"
                       "def k(a):  # line 2\n    s = cuda.shared.array(shape=(16, 16), dtype=float32)\n");
}

TEST(Parser, HostCodeAtModuleLevelIsSkipped) {
  std::string src = "import numpy as np\n"
                    "class Host:\n    pass\n"
                    "data = [x * 2 for x in range(10)]\n"
                    "@cuda.jit\ndef k(a):\n    a[0] = 1\n";
  std::string d = dump(src);
  EXPECT_THAT(d, HasSubstr("# host code not read ('class' statements are not supported in kernels)"));
  EXPECT_THAT(d, HasSubstr("# host code not read (list comprehensions are not supported in kernels)"));
  EXPECT_THAT(d, HasSubstr("def k(a):"));
}

TEST(Parser, ErrorsInsideKernelsAreKeptWithTheirLocation) {
  EXPECT_EQ(unparsedKernel("@cuda.jit\ndef k(a):\n    with open(f) as g:\n        pass\n", "k"),
            "t.py:3:5: error: 'with' statements are not supported in kernels");
  EXPECT_EQ(unparsedKernel("@cuda.jit\ndef k(a):\n    b = [x for x in a]\n", "k"),
            "t.py:3:12: error: list comprehensions are not supported in kernels");
  EXPECT_EQ(unparsedKernel("@cuda.jit\ndef k(a)\n    pass\n", "k"),
            "t.py:2:9: error: expected ':', found end of line");
  EXPECT_THAT(unparsedKernel("@cuda.jit\ndef k(a):\n    x = (1 + \n", "k"),
              HasSubstr("error: expected an expression"));
  EXPECT_THAT(unparsedKernel("@cuda.jit\ndef k(a):\n    f = lambda x: x\n", "k"),
              HasSubstr("lambda expressions are not supported"));
  EXPECT_EQ(unparsedKernel("@cuda.jit\ndef k(*a):\n    pass\n", "k"),
            "t.py:2:7: error: '*' in parameter lists is not supported in kernels");
  // and the kernels after it are parsed
  SourceFile f("t.py",
               "@cuda.jit\ndef k(a):\n    with a:\n        pass\n\n@cuda.jit\ndef j(a):\n    a[0] = 1\n");
  Module m = parseModule(f);
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[1]->kind, StmtKind::FunctionDef);
}

TEST(Parser, SignatureStringsParseAsExpressions) {
  SourceFile f("<signature>", "void(float32[:, ::1], int32)");
  ExprPtr e = parseExpression(f);
  EXPECT_EQ(exprToString(*e), "void(float32[(:, ::1)], int32)");
}
