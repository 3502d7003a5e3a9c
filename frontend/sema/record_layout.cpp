// Record types: numba's spelling read into fields, offsets and sizes, and interned.
#include "frontend/sema/record_layout.h"

#include "cutwin/errors.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

namespace cutwin::fe {

uint64_t RecordField::size() const {
  uint64_t n = record ? record->size : byteSize(scalar);
  for (int64_t d : shape)
    n *= uint64_t(d);
  return n;
}

uint64_t RecordField::alignment() const {
  if (record)
    return record->alignment();
  return isComplex(scalar) ? byteSize(scalar) / 2 : byteSize(scalar);
}

uint64_t RecordLayout::alignment() const {
  uint64_t a = 1;
  if (aligned)
    for (const RecordField &f : fields)
      a = std::max(a, f.alignment());
  return a;
}

const RecordField *RecordLayout::field(const std::string &name) const {
  for (const RecordField &f : fields)
    if (f.name == name)
      return &f;
  return nullptr;
}

char RecordLayout::charSequence() const {
  if (fields.size() != 1 || fields[0].offset != 0 || fields[0].shape.size() != 1 || fields[0].record)
    return 0;
  const RecordField &f = fields[0];
  if (f.name == kUnicodeField && f.scalar == Scalar::U32)
    return 'U';
  if (f.name == kBytesField && f.scalar == Scalar::U8)
    return 'S';
  return 0;
}

std::string RecordLayout::displayName() const {
  switch (charSequence()) {
  case 'U': return "[unichr x " + std::to_string(fields[0].shape[0]) + "]";
  case 'S': return "[char x " + std::to_string(fields[0].shape[0]) + "]";
  }
  return text;
}

namespace {

struct Table {
  std::mutex mutex;
  std::deque<RecordLayout> records; // stable addresses
  std::map<std::string, const RecordLayout *> byText;
};

Table &table() {
  static Table t;
  return t;
}

const RecordLayout *intern(RecordLayout r) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (auto it = t.byText.find(r.text); it != t.byText.end())
    return it->second;
  r.index = unsigned(t.records.size());
  t.records.push_back(std::move(r));
  const RecordLayout *p = &t.records.back();
  t.byText[p->text] = p;
  return p;
}

/// numba's spelling of a record type, the one key of the intern table (two spellings of one
/// type, `bool` and `boolean` say, are one type).
std::string spelling(const RecordLayout &r) {
  std::string s = "Record(";
  for (size_t i = 0; i < r.fields.size(); ++i) {
    const RecordField &f = r.fields[i];
    std::string type = f.record ? f.record->text : scalarName(f.scalar);
    if (!f.shape.empty()) {
      std::string dims;
      for (size_t k = 0; k < f.shape.size(); ++k)
        dims += (k ? ", " : "") + std::to_string(f.shape[k]);
      type = "nestedarray(" + type + ", (" + dims + (f.shape.size() == 1 ? ",))" : "))");
    }
    s += (i ? "," : "") + f.name + "[type=" + type + ";offset=" + std::to_string(f.offset) + "]";
  }
  return s + ";" + std::to_string(r.size) + ";" + (r.aligned ? "True" : "False") + ")";
}

/// A reader of numba's spelling; every error names the text and the position.
class RecordReader {
public:
  explicit RecordReader(const std::string &text) : s_(text) {}

  const RecordLayout *record() {
    size_t start = pos_;
    expect("Record(");
    RecordLayout r;
    while (!peek(";")) {
      if (!r.fields.empty())
        expect(",");
      r.fields.push_back(field());
    }
    expect(";");
    r.size = number();
    expect(";");
    if (accept("True"))
      r.aligned = true;
    else
      expect("False");
    expect(")");
    (void)start;
    r.text = spelling(r);
    for (const RecordField &f : r.fields)
      if (f.offset + f.size() > r.size)
        fail("field '" + f.name + "' lies beyond the record's " + std::to_string(r.size) + " bytes");
    return intern(std::move(r));
  }
  bool atEnd() const { return pos_ == s_.size(); }
  size_t pos() const { return pos_; }

private:
  RecordField field() {
    RecordField f;
    size_t open = s_.find('[', pos_);
    if (open == std::string::npos)
      fail("expected a field, name[type=...;offset=...]");
    f.name = s_.substr(pos_, open - pos_);
    pos_ = open + 1;
    expect("type=");
    if (peek("Record(")) {
      f.record = record();
    } else if (accept("nestedarray(")) {
      if (peek("Record("))
        f.record = record();
      else
        f.scalar = scalar(",");
      expect(", (");
      while (!accept(")")) {
        if (!f.shape.empty())
          expect(",");
        accept(" ");
        if (peek(")"))
          continue; // the trailing comma of a 1-tuple: (5,)
        f.shape.push_back(int64_t(number()));
      }
      expect(")");
    } else {
      f.scalar = scalar(";");
    }
    expect(";offset=");
    f.offset = number();
    if (accept(";title=")) // a field's title: another name for it, which kernels do not use
      while (pos_ < s_.size() && s_[pos_] != ']')
        ++pos_;
    expect("]");
    return f;
  }

  Scalar scalar(const char *end) {
    size_t stop = s_.find(end, pos_);
    std::string name = s_.substr(pos_, stop == std::string::npos ? std::string::npos : stop - pos_);
    auto sc = scalarFromName(name);
    if (!sc)
      fail("record fields of type " + name + " are not supported (numbers, nested arrays and records are)");
    pos_ += name.size();
    return *sc;
  }

  uint64_t number() {
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
    if (start == pos_)
      fail("expected a number");
    return std::stoull(s_.substr(start, pos_ - start));
  }

  bool peek(const char *lit) const { return s_.compare(pos_, std::strlen(lit), lit) == 0; }
  bool accept(const char *lit) {
    if (!peek(lit))
      return false;
    pos_ += std::strlen(lit);
    return true;
  }
  void expect(const char *lit) {
    if (!accept(lit))
      fail(std::string("expected '") + lit + "'");
  }
  [[noreturn]] void fail(const std::string &what) const {
    throw Error("invalid record type \"" + s_ + "\" at character " + std::to_string(pos_ + 1) + ": " + what);
  }

  const std::string &s_;
  size_t pos_ = 0;
};

constexpr const char *kNamePrefix = "__cutwin_record_";

} // namespace

const RecordLayout *parseRecord(const std::string &text) {
  RecordReader r(text);
  const RecordLayout *rec = r.record();
  if (!r.atEnd())
    throw Error("invalid record type \"" + text + "\": text after the record's closing ')'");
  return rec;
}

const RecordLayout *recordAt(unsigned index) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (index >= t.records.size())
    throw Error("internal error: no record type " + std::to_string(index));
  return &t.records[index];
}

const RecordLayout *xoroshiro128pRecord() {
  static const RecordLayout *r =
      parseRecord("Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)");
  return r;
}

std::string nameRecordsIn(const std::string &text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find("Record(", pos);
    if (at == std::string::npos)
      return out + text.substr(pos);
    out += text.substr(pos, at - pos);
    std::string rest = text.substr(at);
    RecordReader reader(rest);
    out += recordTypeName(reader.record());
    pos = at + reader.pos();
  }
}

std::string recordTypeName(const RecordLayout *r) { return kNamePrefix + std::to_string(r->index); }

const RecordLayout *recordOfTypeName(const std::string &name) {
  if (name.rfind(kNamePrefix, 0) != 0)
    return nullptr;
  return recordAt(unsigned(std::stoul(name.substr(std::strlen(kNamePrefix)))));
}

} // namespace cutwin::fe
