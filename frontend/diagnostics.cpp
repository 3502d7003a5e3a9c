#include "frontend/diagnostics.h"

#include <fstream>
#include <sstream>

namespace cutwin::fe {

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n' && i + 1 < text_.size())
      lineStarts_.push_back(i + 1);
}

std::shared_ptr<SourceFile> SourceFile::fromFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot open kernel source '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return std::make_shared<SourceFile>(path, ss.str());
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size())
    return {};
  size_t b = lineStarts_[line - 1];
  size_t e = text_.find('\n', b);
  if (e == std::string::npos)
    e = text_.size();
  if (e > b && text_[e - 1] == '\r')
    --e;
  return std::string_view(text_).substr(b, e - b);
}

std::string SourceFile::render(SourceLoc loc, const std::string &message) const {
  std::ostringstream os;
  os << path_ << ":" << loc.line << ":" << loc.col << ": error: " << message;
  std::string_view src = line(loc.line);
  if (!src.empty()) {
    os << "\n    " << src << "\n    ";
    for (uint32_t i = 1; i < loc.col && i <= src.size(); ++i)
      os << (src[i - 1] == '\t' ? '\t' : ' ');
    os << "^";
  }
  return os.str();
}

void SourceFile::error(SourceLoc loc, const std::string &message) const {
  throw CompileError(path_, loc, message, render(loc, message));
}

} // namespace cutwin::fe
