/// Source files and compile diagnostics with file:line:col, the source line and a caret.
#pragma once

#include "cutwin/errors.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cutwin::fe {

/// A kernel module's text and the path it is reported under.
class SourceFile {
public:
  SourceFile(std::string path, std::string text);
  static std::shared_ptr<SourceFile> fromFile(const std::string &path);

  const std::string &path() const { return path_; }
  const std::string &text() const { return text_; }
  /// The text of a 1-based line, without its newline.
  std::string_view line(uint32_t line) const;
  uint32_t lineCount() const { return uint32_t(lineStarts_.size()); }

  /// "path:line:col: error: message" + source line + caret.
  std::string render(SourceLoc loc, const std::string &message) const;
  [[noreturn]] void error(SourceLoc loc, const std::string &message) const;

private:
  std::string path_, text_;
  std::vector<size_t> lineStarts_;
};

} // namespace cutwin::fe
