#include "frontend/syntax/lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cutwin::fe {

const char *tokKindName(Tok k) {
  switch (k) {
  case Tok::Name: return "name";
  case Tok::Int: return "integer";
  case Tok::Float: return "float";
  case Tok::Imag: return "imaginary number";
  case Tok::String: return "string";
  case Tok::Op: return "operator";
  case Tok::Newline: return "end of line";
  case Tok::Indent: return "indent";
  case Tok::Dedent: return "dedent";
  case Tok::End: return "end of file";
  }
  return "?";
}

namespace {

// Longest first, so that "**=" wins over "**" and "*".
const char *const kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=",
    "*=",  "/=",  "%=",  "&=",  "|=",  "^=", "@=", ":=", "+",  "-",  "*",  "/",  "%",  "&",  "|",  "^",
    "~",   "<",   ">",   "(",   ")",   "[",  "]",  "{",  "}",  ",",  ":",  ".",  ";",  "@",  "=",
};

class Lexer {
public:
  explicit Lexer(const SourceFile &f) : file_(f), s_(f.text()) {}

  std::vector<Token> run() {
    // The first statement's indentation is the base: a function taken out of its file
    // (nested in another, or in a class) is compiled with its own columns.
    indents_.push_back(firstIndentation());
    bool atLineStart = true;
    while (pos_ < s_.size()) {
      if (atLineStart && depth_ == 0) {
        if (!handleIndentation())
          continue; // blank or comment-only line
        atLineStart = false;
      }
      char c = s_[pos_];
      if (c == '\n') {
        SourceLoc end = loc();
        advance();
        if (depth_ == 0) {
          emitNewline(end);
          atLineStart = true;
        }
        continue;
      }
      if (c == '\r' || c == ' ' || c == '\t' || c == '\f') {
        advance();
        continue;
      }
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n')
          advance();
        continue;
      }
      if (c == '\\') {
        size_t p = pos_ + 1;
        if (p < s_.size() && s_[p] == '\r')
          ++p;
        if (p < s_.size() && s_[p] == '\n') {
          while (pos_ <= p)
            advance();
          continue;
        }
        file_.error(loc(), "unexpected character after line continuation '\\'");
      }
      if (std::isdigit((unsigned char)c) ||
          (c == '.' && pos_ + 1 < s_.size() && std::isdigit((unsigned char)s_[pos_ + 1]))) {
        lexNumber();
        continue;
      }
      if (std::isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80) {
        if (isStringStart()) {
          lexString();
          continue;
        }
        lexName();
        continue;
      }
      if (c == '"' || c == '\'') {
        lexString();
        continue;
      }
      lexOperator();
    }
    if (!toks_.empty() && toks_.back().kind != Tok::Newline)
      emitNewline(loc());
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(Tok::Dedent, "", loc());
    }
    push(Tok::End, "", loc());
    return std::move(toks_);
  }

private:
  SourceLoc loc() const { return {line_, col_}; }

  void advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  Token &push(Tok k, std::string text, SourceLoc l) {
    Token t;
    t.kind = k;
    t.text = std::move(text);
    t.loc = l;
    toks_.push_back(std::move(t));
    return toks_.back();
  }

  void emitNewline(SourceLoc at) {
    if (!toks_.empty() && toks_.back().kind != Tok::Newline && toks_.back().kind != Tok::Indent &&
        toks_.back().kind != Tok::Dedent)
      push(Tok::Newline, "", at);
  }

  /// The indentation of the first line that holds code.
  unsigned firstIndentation() const {
    size_t p = 0;
    while (p < s_.size()) {
      unsigned width = 0;
      while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\f')) {
        width = s_[p] == '\t' ? (width / 8 + 1) * 8 : s_[p] == ' ' ? width + 1 : 0;
        ++p;
      }
      if (p < s_.size() && s_[p] != '\n' && s_[p] != '\r' && s_[p] != '#')
        return width;
      while (p < s_.size() && s_[p] != '\n')
        ++p;
      ++p;
    }
    return 0;
  }

  /// Measures the indentation of a new logical line. Returns false for lines that hold
  /// only whitespace or a comment (they do not affect indentation).
  bool handleIndentation() {
    unsigned width = 0;
    size_t p = pos_;
    while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\f')) {
      width = s_[p] == '\t' ? (width / 8 + 1) * 8 : s_[p] == ' ' ? width + 1 : 0;
      ++p;
    }
    if (p >= s_.size() || s_[p] == '\n' || s_[p] == '#' ||
        (s_[p] == '\r' && p + 1 < s_.size() && s_[p + 1] == '\n')) {
      while (pos_ < s_.size() && s_[pos_] != '\n')
        advance();
      if (pos_ < s_.size())
        advance();
      return false;
    }
    while (pos_ < p)
      advance();
    if (width > indents_.back()) {
      if (indents_.size() >= kMaxIndentLevels) // CPython's limit and words (its MAXINDENT)
        file_.error(loc(), "too many levels of indentation");
      indents_.push_back(width);
      push(Tok::Indent, "", loc());
    } else {
      // (never below the first statement's indentation, the base: a line left of it
      // matches no level)
      while (indents_.size() > 1 && width < indents_.back()) {
        indents_.pop_back();
        push(Tok::Dedent, "", loc());
      }
      if (width != indents_.back())
        file_.error(loc(), "unindent does not match any outer indentation level");
    }
    return true;
  }

  bool isStringStart() const {
    size_t p = pos_;
    size_t n = 0;
    while (p < s_.size() && n < 2 && std::strchr("rRbBuUfF", s_[p])) {
      ++p;
      ++n;
    }
    return n > 0 && p < s_.size() && (s_[p] == '"' || s_[p] == '\'');
  }

  void lexName() {
    SourceLoc l = loc();
    size_t b = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_' || (unsigned char)s_[pos_] >= 0x80))
      advance();
    push(Tok::Name, s_.substr(b, pos_ - b), l);
  }

  void lexNumber() {
    SourceLoc l = loc();
    size_t b = pos_;
    std::string digits; // without underscores
    auto isDigitIn = [](char c, int base) {
      if (base == 16)
        return std::isxdigit((unsigned char)c) != 0;
      if (base == 8)
        return c >= '0' && c <= '7';
      if (base == 2)
        return c == '0' || c == '1';
      return std::isdigit((unsigned char)c) != 0;
    };
    auto takeDigits = [&](int base) {
      bool any = false;
      while (pos_ < s_.size() && (isDigitIn(s_[pos_], base) || s_[pos_] == '_')) {
        if (s_[pos_] == '_' && (pos_ + 1 >= s_.size() || !isDigitIn(s_[pos_ + 1], base)))
          file_.error(loc(), "invalid digit separator '_' in number");
        if (s_[pos_] != '_')
          digits += s_[pos_];
        any = true;
        advance();
      }
      return any;
    };
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1])) {
      char k = (char)std::tolower(s_[pos_ + 1]);
      int base = k == 'x' ? 16 : k == 'o' ? 8 : 2;
      advance();
      advance();
      if (pos_ < s_.size() && s_[pos_] == '_')
        advance();
      if (!takeDigits(base))
        file_.error(l, "malformed integer literal");
      finishInt(l, digits, base, b);
      return;
    }
    takeDigits(10);
    bool isFloat = false;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      isFloat = true;
      digits += '.';
      advance();
      takeDigits(10);
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t save = pos_;
      SourceLoc saveLoc = loc();
      std::string exp = "e";
      advance();
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
        exp += s_[pos_];
        advance();
      }
      std::string before = digits;
      digits.clear();
      if (takeDigits(10)) {
        digits = before + exp + digits;
        isFloat = true;
      } else {
        pos_ = save;
        line_ = saveLoc.line;
        col_ = saveLoc.col;
        digits = before;
        file_.error(saveLoc, "malformed exponent in number");
      }
    }
    if (pos_ < s_.size() && (s_[pos_] == 'j' || s_[pos_] == 'J')) {
      advance();
      Token &t = push(Tok::Imag, s_.substr(b, pos_ - b), l);
      t.floatValue = std::strtod(digits.c_str(), nullptr);
      return;
    }
    if (pos_ < s_.size() && (std::isalpha((unsigned char)s_[pos_]) || s_[pos_] == '_'))
      file_.error(loc(), "invalid character in number literal");
    if (isFloat) {
      Token &t = push(Tok::Float, s_.substr(b, pos_ - b), l);
      t.floatValue = std::strtod(digits.c_str(), nullptr);
      return;
    }
    if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
      file_.error(l, "leading zeros in decimal integer literals are not permitted; use 0o for octal");
    finishInt(l, digits, 10, b);
  }

  void finishInt(SourceLoc l, const std::string &digits, int base, size_t b) {
    errno = 0;
    unsigned long long v = std::strtoull(digits.c_str(), nullptr, base);
    if (errno == ERANGE)
      file_.error(l, "integer literal too large: cutwin integers are at most 64 bits");
    Token &t = push(Tok::Int, s_.substr(b, pos_ - b), l);
    t.intValue = v;
  }

  void lexString() {
    SourceLoc l = loc();
    bool raw = false;
    while (s_[pos_] != '"' && s_[pos_] != '\'') {
      if (s_[pos_] == 'r' || s_[pos_] == 'R')
        raw = true;
      advance();
    }
    char q = s_[pos_];
    bool triple = pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
    for (int i = 0; i < (triple ? 3 : 1); ++i)
      advance();
    std::string out;
    while (true) {
      if (pos_ >= s_.size())
        file_.error(l, "unterminated string literal");
      char c = s_[pos_];
      if (c == q) {
        if (!triple) {
          advance();
          break;
        }
        if (pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q) {
          advance();
          advance();
          advance();
          break;
        }
      }
      if (c == '\n' && !triple)
        file_.error(l, "unterminated string literal");
      if (c == '\\' && pos_ + 1 < s_.size()) {
        char n = s_[pos_ + 1];
        advance();
        advance();
        if (raw) {
          out += '\\';
          out += n;
          continue;
        }
        switch (n) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        case '\n': break; // escaped newline joins lines
        default: out += n; break;
        }
        continue;
      }
      out += c;
      advance();
    }
    push(Tok::String, std::move(out), l);
  }

  void lexOperator() {
    SourceLoc l = loc();
    for (const char *op : kOperators) {
      size_t n = std::strlen(op);
      if (s_.compare(pos_, n, op) == 0) {
        for (size_t i = 0; i < n; ++i)
          advance();
        if (n == 1 && std::strchr("([{", op[0]) && ++depth_ > kMaxBracketDepth)
          file_.error(l, "too many nested parentheses"); // CPython's limit and words (its MAXLEVEL)
        if (n == 1 && std::strchr(")]}", op[0]) && depth_ > 0)
          --depth_;
        push(Tok::Op, op, l);
        return;
      }
    }
    std::string c(1, s_[pos_]);
    file_.error(l, "unexpected character '" + c + "'");
  }

  const SourceFile &file_;
  const std::string &s_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;
  int depth_ = 0; // bracket nesting: newlines inside brackets are ignored
  // CPython's tokenizer limits: deeper code is a SyntaxError there, and here the limits keep
  // every later step's recursion within its stack.
  static constexpr int kMaxBracketDepth = 200;
  static constexpr size_t kMaxIndentLevels = 100;
  std::vector<unsigned> indents_;
  std::vector<Token> toks_;
};

} // namespace

std::vector<Token> tokenize(const SourceFile &file) { return Lexer(file).run(); }

} // namespace cutwin::fe
