#include "frontend/syntax/parser.h"

#include "frontend/syntax/ast_walk.h"
#include "frontend/syntax/lexer.h"

#include <algorithm>
#include <set>

namespace cutwin::fe {
namespace {

const std::set<std::string, std::less<>> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};

bool isKeyword(const Token &t) { return t.kind == Tok::Name && kKeywords.count(t.text); }

/// How deep an expression may nest: CPython's compiler stops at about this depth
/// ("maximum recursion depth exceeded during compilation"), and within it every later step's
/// recursion fits its stack. Brackets and indentation have the tokenizer's own limits.
constexpr size_t kMaxExpressionDepth = 3000;
const char *const kTooDeep = "maximum recursion depth exceeded during compilation (an expression nested "
                             "more than 3000 levels deep)";

class Parser {
public:
  Parser(const SourceFile &f, std::vector<Token> toks) : file_(f), toks_(std::move(toks)) {}

  Module parseModule() {
    Module m;
    while (!at(Tok::End)) {
      if (at(Tok::Newline)) {
        ++pos_;
        continue;
      }
      if (at(Tok::Indent))
        error(cur().loc, "unexpected indent");
      size_t start = pos_, statements = m.body.size();
      try {
        parseStatementInto(m.body); // (one line may add several: `x = ...; y = ...`)
        for (size_t i = statements; i < m.body.size(); ++i)
          m.deepestExpression = std::max(m.deepestExpression, checkDepth(*m.body[i]));
      } catch (const CompileError &e) {
        // A statement too deep is freed here, on the compiler's stack (freeing recurses as
        // deep as the tree), not kept for the module's owner to free on a smaller one.
        m.body.resize(statements);
        pos_ = start;
        auto u = std::make_unique<UnsupportedStmt>(cur().loc, e.loc(), e.message());
        // A jitted function that cannot be parsed fails only where it is asked for (its
        // kernel, or a call of it): the file's other functions still compile.
        u->jitFunction = startsJitFunction();
        while (atOp("@")) // its decorators, a line each
          skipTopLevelStatement();
        collectBoundNames(*u);
        skipTopLevelStatement();
        m.body.push_back(std::move(u));
      }
    }
    return m;
  }

  ExprPtr parseStandaloneExpression() {
    while (at(Tok::Newline) || at(Tok::Indent))
      ++pos_;
    ExprPtr e = parseTestList();
    while (at(Tok::Newline) || at(Tok::Dedent))
      ++pos_;
    if (!at(Tok::End))
      expected("end of expression");
    if (expressionDepth(*e) > kMaxExpressionDepth)
      error(e->loc, kTooDeep);
    return e;
  }

  /// Chains the parser builds in loops (`a + b + ...`, `f()()...`) nest without recursing
  /// here, so each statement's expressions are measured once parsed.
  /// Returns the deepest expression's depth.
  size_t checkDepth(const Stmt &s) const {
    size_t deepest = 0;
    forEachExpression(s, [&](const Expr &e) {
      size_t depth = expressionDepth(e);
      if (depth > kMaxExpressionDepth)
        error(e.loc, kTooDeep);
      deepest = std::max(deepest, depth);
    });
    return deepest;
  }

  /// The parser's own recursion (unary operators, `not`, conditional expressions,
  /// brackets), held within kMaxExpressionDepth.
  struct Nested {
    Nested(Parser &p, SourceLoc l) : p(p) {
      if (++p.nesting_ > 2 * kMaxExpressionDepth) // (brackets and unary chains count more here)
        p.error(l, kTooDeep);
    }
    ~Nested() { --p.nesting_; }
    Parser &p;
  };

private:
  // ---- token helpers -----------------------------------------------------------------------
  const Token &cur() const { return toks_[pos_]; }
  const Token &peek(size_t n = 1) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  bool atOp(std::string_view s) const { return cur().isOp(s); }
  bool atKw(std::string_view s) const { return cur().isKeyword(s); }
  const Token &take() { return toks_[pos_++]; }
  /// Consumes the operator or keyword if it is next.
  bool acceptOp(std::string_view s) {
    if (!atOp(s))
      return false;
    ++pos_;
    return true;
  }
  bool acceptKw(std::string_view s) {
    if (!atKw(s))
      return false;
    ++pos_;
    return true;
  }

  static std::string describe(const Token &t) {
    switch (t.kind) {
    case Tok::Name: return (isKeyword(t) ? "keyword '" : "name '") + t.text + "'";
    case Tok::Op: return "'" + t.text + "'";
    case Tok::Int:
    case Tok::Float:
    case Tok::Imag: return "number " + t.text;
    case Tok::String: return "a string";
    default: return tokKindName(t.kind);
    }
  }

  [[noreturn]] void error(SourceLoc l, const std::string &msg) const { file_.error(l, msg); }
  [[noreturn]] void expected(const std::string &what) const {
    error(cur().loc, "expected " + what + ", found " + describe(cur()));
  }
  const Token &expectOp(std::string_view op) {
    if (!atOp(op))
      expected("'" + std::string(op) + "'");
    return take();
  }
  void expectKw(std::string_view kw) {
    if (!atKw(kw))
      expected("'" + std::string(kw) + "'");
    ++pos_;
  }
  std::string expectName(const char *what = "a name") {
    if (!at(Tok::Name) || isKeyword(cur()))
      expected(what);
    return take().text;
  }
  void expectNewline() {
    if (at(Tok::End))
      return;
    if (!at(Tok::Newline))
      expected("end of line");
    ++pos_;
  }

  /// `@...jit...` decorators followed by def: such functions are kernels or device
  /// functions and must parse completely.
  bool startsJitFunction() const {
    if (!atOp("@"))
      return false;
    for (size_t i = pos_; i < toks_.size() && !toks_[i].isKeyword("def"); ++i)
      if (toks_[i].kind == Tok::Name && (toks_[i].text == "jit" || toks_[i].text == "reduce"))
        return true;
    return false;
  }

  void skipTopLevelStatement() {
    int level = 0;
    while (!at(Tok::End)) {
      const Token &t = take();
      if (t.kind == Tok::Indent)
        ++level;
      else if (t.kind == Tok::Dedent && --level <= 0)
        return;
      else if (t.kind == Tok::Newline && level == 0 && !at(Tok::Indent))
        return;
    }
  }

  /// Best-effort names an unparsable top-level statement binds (`x = ...`, `def f`,
  /// `class C`), so that a kernel using them gets a precise error.
  void collectBoundNames(UnsupportedStmt &u) const {
    const Token &t = cur();
    if ((t.isKeyword("def") || t.isKeyword("class")) && peek().kind == Tok::Name) {
      u.boundNames.push_back(peek().text);
      return;
    }
    if (t.kind == Tok::Name && !isKeyword(t) && peek().isOp("="))
      u.boundNames.push_back(t.text);
  }

  // ---- statements --------------------------------------------------------------------------
  void parseStatementInto(Block &out) {
    const Token &t = cur();
    if (t.kind == Tok::Name) {
      if (t.text == "if")
        return out.push_back(parseIf());
      if (t.text == "while")
        return out.push_back(parseWhile());
      if (t.text == "for")
        return out.push_back(parseFor());
      if (t.text == "def")
        return out.push_back(parseFunctionDef({}));
      if (t.text == "class" || t.text == "with" || t.text == "try" || t.text == "async")
        error(t.loc, "'" + t.text + "' statements are not supported in kernels");
    }
    if (atOp("@"))
      return out.push_back(parseDecorated());
    parseSimpleStatements(out);
  }

  Block parseSuite() {
    expectOp(":");
    Block body;
    if (!at(Tok::Newline)) { // `if x: y = 1` on one line
      parseSimpleStatements(body);
      return body;
    }
    ++pos_;
    if (!at(Tok::Indent))
      expected("an indented block");
    ++pos_;
    while (!at(Tok::Dedent) && !at(Tok::End)) {
      if (at(Tok::Newline)) {
        ++pos_;
        continue;
      }
      parseStatementInto(body);
    }
    if (at(Tok::Dedent))
      ++pos_;
    return body;
  }

  StmtPtr parseIf() {
    SourceLoc l = take().loc; // 'if' or 'elif'
    auto s = std::make_unique<IfStmt>(l, parseNamedExprTest());
    s->body = parseSuite();
    if (atKw("elif"))
      s->orelse.push_back(parseIf());
    else
      s->orelse = parseOptionalElse();
    return s;
  }

  StmtPtr parseWhile() {
    SourceLoc l = take().loc;
    auto s = std::make_unique<WhileStmt>(l, parseNamedExprTest());
    s->body = parseSuite();
    s->orelse = parseOptionalElse();
    return s;
  }

  /// `else:` suite of a loop or an if, or an empty block.
  Block parseOptionalElse() {
    if (!atKw("else"))
      return {};
    ++pos_;
    return parseSuite();
  }

  StmtPtr parseFor() {
    SourceLoc l = take().loc;
    auto s = std::make_unique<ForStmt>(l);
    s->target = parseTargetList();
    expectKw("in");
    s->iter = parseTestList();
    s->body = parseSuite();
    s->orelse = parseOptionalElse();
    return s;
  }

  /// Targets of `for`: names, tuples of names, subscripts; stops before `in`.
  ExprPtr parseTargetList() {
    SourceLoc l = cur().loc;
    std::vector<ExprPtr> elts;
    bool trailingComma = false;
    while (true) {
      elts.push_back(parseBitOr());
      trailingComma = false;
      if (!acceptOp(","))
        break;
      trailingComma = true;
      if (atKw("in"))
        break;
    }
    if (elts.size() == 1 && !trailingComma)
      return std::move(elts[0]);
    auto t = std::make_unique<TupleExpr>(l);
    t->elts = std::move(elts);
    return t;
  }

  StmtPtr parseDecorated() {
    std::vector<ExprPtr> decorators;
    while (atOp("@")) {
      ++pos_;
      decorators.push_back(parseNamedExprTest());
      expectNewline();
    }
    if (atKw("class"))
      error(cur().loc, "classes are not supported in kernels");
    if (!atKw("def"))
      expected("'def' after decorators");
    return parseFunctionDef(std::move(decorators));
  }

  StmtPtr parseFunctionDef(std::vector<ExprPtr> decorators) {
    SourceLoc l = take().loc; // 'def'
    auto f = std::make_unique<FunctionDefStmt>(l);
    f->decorators = std::move(decorators);
    f->nameLoc = cur().loc;
    f->name = expectName("a function name");
    expectOp("(");
    while (!atOp(")")) {
      if (atOp("*") || atOp("**") || atOp("/"))
        error(cur().loc, "'" + cur().text + "' in parameter lists is not supported in kernels");
      Param p;
      p.loc = cur().loc;
      p.name = expectName("a parameter name");
      if (acceptOp(":")) {
        p.annotation = parseTest();
      }
      if (acceptOp("=")) {
        p.defaultValue = parseTest();
      }
      f->params.push_back(std::move(p));
      if (!acceptOp(","))
        break;
    }
    expectOp(")");
    if (acceptOp("->")) {
      f->returns = parseTest();
    }
    f->body = parseSuite();
    return f;
  }

  void parseSimpleStatements(Block &out) {
    while (true) {
      out.push_back(parseSmallStatement());
      if (!atOp(";"))
        break;
      ++pos_;
      if (at(Tok::Newline) || at(Tok::End))
        break;
    }
    expectNewline();
  }

  StmtPtr parseSmallStatement() {
    const Token &t = cur();
    SourceLoc l = t.loc;
    if (t.kind == Tok::Name) {
      const std::string &k = t.text;
      if (k == "pass") {
        ++pos_;
        return std::make_unique<PassStmt>(l);
      }
      if (k == "break") {
        ++pos_;
        return std::make_unique<BreakStmt>(l);
      }
      if (k == "continue") {
        ++pos_;
        return std::make_unique<ContinueStmt>(l);
      }
      if (k == "return") {
        ++pos_;
        ExprPtr v;
        if (!at(Tok::Newline) && !atOp(";") && !at(Tok::End))
          v = parseTestList();
        return std::make_unique<ReturnStmt>(l, std::move(v));
      }
      if (k == "import")
        return parseImport();
      if (k == "from")
        return parseFromImport();
      if (k == "global") {
        ++pos_;
        auto g = std::make_unique<GlobalStmt>(l);
        g->names.push_back(expectName());
        while (atOp(",")) {
          ++pos_;
          g->names.push_back(expectName());
        }
        return g;
      }
      if (k == "assert") {
        ++pos_;
        auto a = std::make_unique<AssertStmt>(l);
        a->test = parseTest();
        if (acceptOp(",")) {
          a->msg = parseTest();
        }
        return a;
      }
      if (k == "raise") {
        ++pos_;
        auto r = std::make_unique<RaiseStmt>(l);
        if (!at(Tok::Newline) && !atOp(";") && !at(Tok::End))
          r->exc = parseTest();
        if (atKw("from"))
          error(cur().loc, "'raise ... from' is not supported in kernels");
        return r;
      }
      if (k == "del" || k == "nonlocal" || k == "yield" || k == "await" || k == "lambda")
        error(l, "'" + k + "' is not supported in kernels");
    }
    ExprPtr first = parseTestListStarExpr();
    if (atOp("=")) {
      auto a = std::make_unique<AssignStmt>(l);
      a->targets.push_back(std::move(first));
      while (atOp("=")) {
        ++pos_;
        a->targets.push_back(parseTestListStarExpr());
      }
      a->value = std::move(a->targets.back());
      a->targets.pop_back();
      for (auto &tgt : a->targets)
        checkTarget(*tgt);
      return a;
    }
    if (acceptOp(":")) {
      auto a = std::make_unique<AnnAssignStmt>(l);
      checkTarget(*first);
      a->target = std::move(first);
      a->annotation = parseTest();
      if (acceptOp("=")) {
        a->value = parseTestList();
      }
      return a;
    }
    static const std::pair<const char *, BinOp> augOps[] = {
        {"+=", BinOp::Add},       {"-=", BinOp::Sub},    {"*=", BinOp::Mul},   {"/=", BinOp::Div},
        {"//=", BinOp::FloorDiv}, {"%=", BinOp::Mod},    {"**=", BinOp::Pow},  {"<<=", BinOp::LShift},
        {">>=", BinOp::RShift},   {"&=", BinOp::BitAnd}, {"|=", BinOp::BitOr}, {"^=", BinOp::BitXor},
        {"@=", BinOp::MatMul},
    };
    for (auto &[sym, op] : augOps) {
      if (atOp(sym)) {
        ++pos_;
        if (first->kind != ExprKind::Name && first->kind != ExprKind::Subscript &&
            first->kind != ExprKind::Attribute)
          error(first->loc, "illegal target for augmented assignment");
        return std::make_unique<AugAssignStmt>(l, std::move(first), op, parseTestList());
      }
    }
    return std::make_unique<ExprStmt>(l, std::move(first));
  }

  void checkTarget(const Expr &e) const {
    switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Subscript:
    case ExprKind::Attribute: return;
    case ExprKind::Tuple:
    case ExprKind::List:
      for (auto &x : static_cast<const TupleExpr &>(e).elts)
        checkTarget(*x);
      return;
    case ExprKind::Starred: return checkTarget(*static_cast<const StarredExpr &>(e).value);
    case ExprKind::StarElement:
    case ExprKind::Constant:
    case ExprKind::BinOp:
    case ExprKind::UnaryOp:
    case ExprKind::BoolOp:
    case ExprKind::Compare:
    case ExprKind::IfExp:
    case ExprKind::Call:
    case ExprKind::Slice: break;
    }
    error(e.loc, "cannot assign to this expression");
  }

  std::string parseDottedName() {
    std::string n = expectName("a module name");
    while (atOp(".")) {
      ++pos_;
      n += "." + expectName("a module name");
    }
    return n;
  }

  StmtPtr parseImport() {
    auto s = std::make_unique<ImportStmt>(take().loc);
    while (true) {
      ImportAlias a;
      a.loc = cur().loc;
      a.name = parseDottedName();
      if (acceptKw("as")) {
        a.asname = expectName();
      }
      s->names.push_back(std::move(a));
      if (!acceptOp(","))
        break;
    }
    return s;
  }

  StmtPtr parseFromImport() {
    auto s = std::make_unique<ImportFromStmt>(take().loc);
    while (atOp(".") || atOp("...")) {
      s->level += atOp(".") ? 1 : 3;
      ++pos_;
    }
    if (!atKw("import"))
      s->module = parseDottedName();
    expectKw("import");
    if (atOp("*")) {
      ImportAlias a;
      a.loc = take().loc;
      a.name = "*";
      s->names.push_back(std::move(a));
      return s;
    }
    bool paren = atOp("(");
    if (paren)
      ++pos_;
    while (true) {
      ImportAlias a;
      a.loc = cur().loc;
      a.name = expectName("a name to import");
      if (acceptKw("as")) {
        a.asname = expectName();
      }
      s->names.push_back(std::move(a));
      if (!acceptOp(","))
        break;
      if (paren && atOp(")"))
        break;
    }
    if (paren)
      expectOp(")");
    return s;
  }

  // ---- expressions -------------------------------------------------------------------------
  /// testlist_star_expr: `a, b = ...` and bare tuples.
  ExprPtr parseTestListStarExpr() { return parseTestListImpl(true); }
  ExprPtr parseTestList() { return parseTestListImpl(false); }

  bool atExprEnd() const {
    return at(Tok::Newline) || at(Tok::End) || atOp("=") || atOp(")") || atOp("]") || atOp("}") ||
           atOp(":") || atOp(";") ||
           (cur().kind == Tok::Op && cur().text.size() >= 2 && cur().text.back() == '=' &&
            cur().text != "==" && cur().text != "<=" && cur().text != ">=" && cur().text != "!=");
  }

  ExprPtr parseTestListImpl(bool allowStar) {
    SourceLoc l = cur().loc;
    ExprPtr first = allowStar && atOp("*") ? parseStarred() : parseTest();
    if (!atOp(","))
      return first;
    auto t = std::make_unique<TupleExpr>(l);
    t->elts.push_back(std::move(first));
    while (atOp(",")) {
      ++pos_;
      if (atExprEnd())
        break;
      t->elts.push_back(allowStar && atOp("*") ? parseStarred() : parseTest());
    }
    return t;
  }

  ExprPtr parseStarred() {
    SourceLoc l = take().loc;
    return std::make_unique<StarredExpr>(l, parseBitOr());
  }

  ExprPtr parseNamedExprTest() {
    ExprPtr e = parseTest();
    if (atOp(":="))
      error(cur().loc, "assignment expressions (':=') are not supported in kernels");
    return e;
  }

  ExprPtr parseTest() {
    Nested nested(*this, cur().loc);
    if (atKw("lambda"))
      error(cur().loc, "lambda expressions are not supported in kernels");
    ExprPtr body = parseOrTest();
    if (!atKw("if"))
      return body;
    SourceLoc l = take().loc;
    ExprPtr test = parseOrTest();
    expectKw("else");
    ExprPtr orelse = parseTest();
    return std::make_unique<IfExpExpr>(l, std::move(test), std::move(body), std::move(orelse));
  }

  ExprPtr parseBoolChain(bool isAnd) {
    ExprPtr first = isAnd ? parseNotTest() : parseBoolChain(true);
    const char *kw = isAnd ? "and" : "or";
    if (!atKw(kw))
      return first;
    auto b = std::make_unique<BoolOpExpr>(cur().loc, isAnd);
    b->values.push_back(std::move(first));
    while (atKw(kw)) {
      ++pos_;
      b->values.push_back(isAnd ? parseNotTest() : parseBoolChain(true));
    }
    return b;
  }
  ExprPtr parseOrTest() { return parseBoolChain(false); }

  ExprPtr parseNotTest() {
    Nested nested(*this, cur().loc);
    if (atKw("not")) {
      SourceLoc l = take().loc;
      return std::make_unique<UnaryOpExpr>(l, UnaryOp::Not, parseNotTest());
    }
    return parseComparison();
  }

  bool parseCmpOp(CmpOp &op) {
    const Token &t = cur();
    if (t.kind == Tok::Op) {
      static const std::pair<const char *, CmpOp> ops[] = {{"==", CmpOp::Eq}, {"!=", CmpOp::NotEq},
                                                           {"<", CmpOp::Lt},  {"<=", CmpOp::LtE},
                                                           {">", CmpOp::Gt},  {">=", CmpOp::GtE}};
      for (auto &[s, o] : ops)
        if (t.text == s) {
          ++pos_;
          op = o;
          return true;
        }
      return false;
    }
    if (t.isKeyword("in")) {
      ++pos_;
      op = CmpOp::In;
      return true;
    }
    if (t.isKeyword("not") && peek().isKeyword("in")) {
      pos_ += 2;
      op = CmpOp::NotIn;
      return true;
    }
    if (t.isKeyword("is")) {
      ++pos_;
      op = CmpOp::Is;
      if (acceptKw("not")) {
        op = CmpOp::IsNot;
      }
      return true;
    }
    return false;
  }

  ExprPtr parseComparison() {
    ExprPtr first = parseBitOr();
    CmpOp op;
    SourceLoc l = cur().loc;
    if (!parseCmpOp(op))
      return first;
    auto c = std::make_unique<CompareExpr>(l, std::move(first));
    do {
      c->ops.push_back(op);
      c->comparators.push_back(parseBitOr());
    } while (parseCmpOp(op));
    return c;
  }

  template <class Next>
  ExprPtr parseBinaryLevel(Next next, std::initializer_list<std::pair<const char *, BinOp>> ops) {
    ExprPtr lhs = (this->*next)();
    while (true) {
      bool matched = false;
      for (auto &[s, op] : ops) {
        if (atOp(s)) {
          SourceLoc l = take().loc;
          lhs = std::make_unique<BinOpExpr>(l, op, std::move(lhs), (this->*next)());
          matched = true;
          break;
        }
      }
      if (!matched)
        return lhs;
    }
  }

  ExprPtr parseBitOr() { return parseBinaryLevel(&Parser::parseBitXor, {{"|", BinOp::BitOr}}); }
  ExprPtr parseBitXor() { return parseBinaryLevel(&Parser::parseBitAnd, {{"^", BinOp::BitXor}}); }
  ExprPtr parseBitAnd() { return parseBinaryLevel(&Parser::parseShift, {{"&", BinOp::BitAnd}}); }
  ExprPtr parseShift() {
    return parseBinaryLevel(&Parser::parseArith, {{"<<", BinOp::LShift}, {">>", BinOp::RShift}});
  }
  ExprPtr parseArith() {
    return parseBinaryLevel(&Parser::parseTerm, {{"+", BinOp::Add}, {"-", BinOp::Sub}});
  }
  ExprPtr parseTerm() {
    return parseBinaryLevel(&Parser::parseFactor, {{"*", BinOp::Mul},
                                                   {"/", BinOp::Div},
                                                   {"//", BinOp::FloorDiv},
                                                   {"%", BinOp::Mod},
                                                   {"@", BinOp::MatMul}});
  }

  ExprPtr parseFactor() {
    Nested nested(*this, cur().loc);
    static const std::pair<const char *, UnaryOp> ops[] = {
        {"-", UnaryOp::Neg}, {"+", UnaryOp::Pos}, {"~", UnaryOp::Invert}};
    for (auto &[s, op] : ops)
      if (atOp(s)) {
        SourceLoc l = take().loc;
        return std::make_unique<UnaryOpExpr>(l, op, parseFactor());
      }
    return parsePower();
  }

  ExprPtr parsePower() {
    ExprPtr base = parseAtomExpr();
    if (!atOp("**"))
      return base;
    SourceLoc l = take().loc;
    // Right-associative, binds tighter than unary minus on its left: -2**2 == -4.
    return std::make_unique<BinOpExpr>(l, BinOp::Pow, std::move(base), parseFactor());
  }

  ExprPtr parseAtomExpr() {
    if (atKw("await"))
      error(cur().loc, "'await' is not supported in kernels");
    ExprPtr e = parseAtom();
    while (true) {
      if (atOp("(")) {
        SourceLoc l = take().loc;
        auto c = std::make_unique<CallExpr>(l, std::move(e));
        parseCallArgs(*c);
        e = std::move(c);
      } else if (atOp("[")) {
        SourceLoc l = take().loc;
        ExprPtr idx = parseSubscriptList();
        expectOp("]");
        e = std::make_unique<SubscriptExpr>(l, std::move(e), std::move(idx));
      } else if (acceptOp(".")) {
        SourceLoc l = cur().loc;
        std::string attr = expectName("an attribute name");
        e = std::make_unique<AttributeExpr>(l, std::move(e), std::move(attr));
      } else {
        return e;
      }
    }
  }

  void parseCallArgs(CallExpr &c) {
    while (!atOp(")")) {
      if (atOp("**"))
        error(cur().loc, "keyword argument unpacking ('**') is not supported in kernels");
      if (atOp("*")) { // a tuple's elements as positional arguments (the typer expands it)
        if (!c.keywords.empty())
          error(cur().loc, "iterable argument unpacking follows keyword argument");
        c.args.push_back(parseStarred());
        if (!acceptOp(","))
          break;
        continue;
      }
      if (at(Tok::Name) && !isKeyword(cur()) && peek().isOp("=")) {
        Keyword k;
        k.loc = cur().loc;
        k.name = take().text;
        ++pos_;
        k.value = parseTest();
        c.keywords.push_back(std::move(k));
      } else {
        if (!c.keywords.empty())
          error(cur().loc, "positional argument follows keyword argument");
        c.args.push_back(parseTest());
        if (atKw("for"))
          error(cur().loc, "generator expressions are not supported in kernels");
      }
      if (!acceptOp(","))
        break;
    }
    expectOp(")");
  }

  ExprPtr parseSubscriptList() {
    SourceLoc l = cur().loc;
    ExprPtr first = parseSubscript();
    if (!atOp(","))
      return first;
    auto t = std::make_unique<TupleExpr>(l);
    t->elts.push_back(std::move(first));
    while (atOp(",")) {
      ++pos_;
      if (atOp("]"))
        break;
      t->elts.push_back(parseSubscript());
    }
    return t;
  }

  ExprPtr parseSubscript() {
    SourceLoc l = cur().loc;
    ExprPtr lower;
    if (!atOp(":"))
      lower = parseTest();
    if (!atOp(":"))
      return lower;
    auto s = std::make_unique<SliceExpr>(l);
    s->lower = std::move(lower);
    ++pos_;
    if (!atOp(":") && !atOp("]") && !atOp(","))
      s->upper = parseTest();
    if (acceptOp(":")) {
      if (!atOp("]") && !atOp(","))
        s->step = parseTest();
    }
    return s;
  }

  ExprPtr parseAtom() {
    const Token &t = cur();
    SourceLoc l = t.loc;
    switch (t.kind) {
    case Tok::Int: {
      auto c = std::make_unique<ConstantExpr>(l, ConstantExpr::Type::Int);
      c->intValue = take().intValue;
      return c;
    }
    case Tok::Float: {
      auto c = std::make_unique<ConstantExpr>(l, ConstantExpr::Type::Float);
      c->floatValue = take().floatValue;
      return c;
    }
    case Tok::Imag: {
      auto c = std::make_unique<ConstantExpr>(l, ConstantExpr::Type::Imag);
      c->floatValue = take().floatValue;
      return c;
    }
    case Tok::String: {
      auto c = std::make_unique<ConstantExpr>(l, ConstantExpr::Type::Str);
      while (at(Tok::String)) // adjacent literals concatenate
        c->strValue += take().text;
      return c;
    }
    case Tok::Name: {
      if (t.text == "True" || t.text == "False") {
        auto c = std::make_unique<ConstantExpr>(l, ConstantExpr::Type::Bool);
        c->boolValue = take().text == "True";
        return c;
      }
      if (t.text == "None") {
        ++pos_;
        return std::make_unique<ConstantExpr>(l, ConstantExpr::Type::None);
      }
      if (isKeyword(t))
        expected("an expression");
      return std::make_unique<NameExpr>(l, take().text);
    }
    case Tok::Op:
      if (t.text == "(") {
        ++pos_;
        if (acceptOp(")")) {
          return std::make_unique<TupleExpr>(l);
        }
        ExprPtr first = atOp("*") ? parseStarred() : parseNamedExprTest();
        if (atKw("for"))
          error(cur().loc, "generator expressions are not supported in kernels");
        if (acceptOp(")")) {
          return first;
        }
        auto tup = std::make_unique<TupleExpr>(l);
        tup->elts.push_back(std::move(first));
        while (atOp(",")) {
          ++pos_;
          if (atOp(")"))
            break;
          tup->elts.push_back(atOp("*") ? parseStarred() : parseTest());
        }
        expectOp(")");
        return tup;
      }
      if (t.text == "[") {
        ++pos_;
        auto list = std::make_unique<ListExpr>(l);
        while (!atOp("]")) {
          list->elts.push_back(parseTest());
          if (atKw("for"))
            error(cur().loc, "list comprehensions are not supported in kernels");
          if (!acceptOp(","))
            break;
        }
        expectOp("]");
        return list;
      }
      if (t.text == "{")
        error(l, "dict and set displays are not supported in kernels");
      if (t.text == "...") {
        ++pos_;
        return std::make_unique<ConstantExpr>(l, ConstantExpr::Type::Ellipsis);
      }
      break;
    default: break;
    }
    expected("an expression");
  }

  const SourceFile &file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  size_t nesting_ = 0; ///< the expression parsers on the stack (Nested)
};

} // namespace

Module parseModule(const SourceFile &file) { return Parser(file, tokenize(file)).parseModule(); }

ExprPtr parseExpression(const SourceFile &file) {
  return Parser(file, tokenize(file)).parseStandaloneExpression();
}

} // namespace cutwin::fe
