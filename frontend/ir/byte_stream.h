/// Bytes written and read back field by field: what the kernel cache on disk stores of a
/// compiled kernel (runtime/kernel_cache.h, kernel_info_bytes.h) and each backend's image of its code. Little
/// endian, lengths before contents; a reader past the end or at a length that cannot be
/// throws Error, so a damaged file is a cache miss, never a wrong kernel.
#pragma once

#include "cutwin/errors.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace cutwin::ir {

class ByteWriter {
public:
  template <typename T> void pod(T v) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>, "flag() writes a bool");
    bytes_.append(reinterpret_cast<const char *>(&v), sizeof v);
  }
  void flag(bool b) { pod(uint8_t(b)); }
  void str(const std::string &s) {
    pod(uint64_t(s.size()));
    bytes_ += s;
  }
  template <typename T> void pods(const std::vector<T> &v) {
    pod(uint64_t(v.size()));
    for (const T &e : v)
      pod(e);
  }
  void strs(const std::vector<std::string> &v) {
    pod(uint64_t(v.size()));
    for (const std::string &s : v)
      str(s);
  }
  /// A map from names: its size, then each name and `write(value)`.
  template <typename Map, typename Write> void named(const Map &m, Write write) {
    pod(uint64_t(m.size()));
    for (const auto &[name, value] : m) {
      str(name);
      write(value);
    }
  }
  const std::string &bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

private:
  std::string bytes_;
};

class ByteReader {
public:
  /// Reads `bytes` where they are: they must outlive the reader.
  explicit ByteReader(const std::string &bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  explicit ByteReader(std::string &&) = delete;
  template <typename T> T pod() {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>, "flag() reads a bool");
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  bool flag() {
    auto v = pod<uint8_t>();
    if (v > 1)
      throw Error("damaged data: a flag neither 0 nor 1");
    return v;
  }
  /// An enumerator written as its value (uint8_t); Error past `last`.
  template <typename E> E enumerator(E last) {
    auto v = pod<uint8_t>();
    if (v > uint8_t(last))
      throw Error("damaged data: an enumerator out of range");
    return E(v);
  }
  /// A count written with pod<uint64_t>() of elements at least `least` bytes each: at most
  /// what is left could hold.
  uint64_t count(size_t least) {
    uint64_t n = pod<uint64_t>();
    if (n > uint64_t(end_ - p_) / least)
      throw Error("damaged data: a length past its end");
    return n;
  }
  std::string str() { return raw(count(1)); }
  /// `n` bytes as they are (no length before them).
  std::string raw(size_t n) { return std::string(take(n), n); }
  template <typename T> std::vector<T> pods() {
    std::vector<T> v(count(sizeof(T)));
    for (T &e : v)
      e = pod<T>();
    return v;
  }
  std::vector<std::string> strs() {
    std::vector<std::string> v(count(sizeof(uint64_t)));
    for (std::string &s : v)
      s = str();
    return v;
  }
  bool atEnd() const { return p_ == end_; }

private:
  const char *take(size_t n) {
    if (size_t(end_ - p_) < n)
      throw Error("damaged data: it ends too early");
    const char *at = p_;
    p_ += n;
    return at;
  }
  const char *p_, *end_;
};

} // namespace cutwin::ir
