/// Errors cutwin reports to its users, in C++. The Python package maps each to the
/// exception numba-cuda raises in the same situation.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cutwin {

/// A position in a kernel source file; line and column are 1-based (0 = unknown).
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
};

/// Base of every error cutwin throws.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A kernel source that cannot be compiled: syntax, unsupported construct, typing.
/// what() is the rendered diagnostic: "file:line:col: error: ..." plus the source line
/// and a caret.
class CompileError : public Error {
public:
  CompileError(std::string file, SourceLoc loc, std::string message, std::string rendered)
      : Error(std::move(rendered)), file_(std::move(file)), loc_(loc), message_(std::move(message)) {}
  const std::string &file() const { return file_; }
  SourceLoc loc() const { return loc_; }
  /// The bare message, without location and source excerpt.
  const std::string &message() const { return message_; }

private:
  std::string file_;
  SourceLoc loc_;
  std::string message_;
};

/// A launch the device refuses before running anything (bad configuration, limits).
class LaunchError : public Error {
public:
  using Error::Error;
};

/// A launch whose argument types no declared signature of the kernel takes (numba's
/// "No matching definition", a TypeError in Python).
class SignatureMismatchError : public Error {
public:
  using Error::Error;
};

/// Device-level failures: allocation, copies, no such device.
class DeviceError : public Error {
public:
  using Error::Error;
};

/// What went wrong inside a running kernel, as recorded in the error channel.
enum class KernelErrorKind : uint32_t {
  None = 0,
  IndexOutOfBounds = 1,  ///< payload: index, axis, extent
  Assertion = 2,         ///< raised by `assert` (debug builds)
  Exception = 3,         ///< raised by `raise`
  BarrierDivergence = 4, ///< payload: threads waiting, threads not exited, the other barrier's site
  Deadlock = 5,          ///< a grid sync that cannot complete; payload: blocks waiting, blocks
  Trap = 6,
  IllegalAddress = 7, ///< payload: the address (an access the bounds checks did not cover)
  StackOverflow = 8,  ///< simulator: a thread overflowed its fiber stack; payload: stack bytes
  WarpDivergence = 9, ///< simulator: a warp operation that cannot complete; payload: mask, the lane
                      ///< it waits for (-1: the caller is not in its mask), that lane's site
  Livelock = 10,      ///< simulator: a block's threads spin without progress; payload: the loop's
                      ///< line, threads spinning, milliseconds waited
  Interrupted = 11,   ///< simulator: Ctrl-C (SIGINT) during the launch; payload: the loop's line (0: none)
  Timeout = 12,       ///< simulator: the watchdog (CUTWIN_SIM_TIMEOUT); payload: the loop's line, its ms
  DataRace = 13,      ///< simulator sanitizer: two unordered accesses, one a write; payload: the line, the
                      ///< access site (the backend's report names both accesses)
  UninitializedRead = 14, ///< simulator sanitizer: a read of memory nothing wrote; payload as DataRace
};

/// A fault inside a kernel, reported by the host after the launch:
/// "kernel.py:12 in vadd, thread (5,0,0) block (3,0,0): index 1024 out of bounds ...".
class KernelError : public Error {
public:
  KernelError(std::string what, KernelErrorKind kind, std::string kernel, std::string file, SourceLoc loc,
              std::array<uint32_t, 3> thread, std::array<uint32_t, 3> block, std::string detail)
      : Error(std::move(what)), kind_(kind), kernel_(std::move(kernel)), file_(std::move(file)), loc_(loc),
        thread_(thread), block_(block), detail_(std::move(detail)) {}
  KernelErrorKind kind() const { return kind_; }
  const std::string &kernel() const { return kernel_; }
  const std::string &file() const { return file_; }
  SourceLoc loc() const { return loc_; }
  std::array<uint32_t, 3> thread() const { return thread_; }
  std::array<uint32_t, 3> block() const { return block_; }
  /// The message without the location prefix, e.g. "index 1024 out of bounds for axis 0 ...".
  const std::string &detail() const { return detail_; }

private:
  KernelErrorKind kind_;
  std::string kernel_, file_;
  SourceLoc loc_;
  std::array<uint32_t, 3> thread_, block_;
  std::string detail_;
};

/// A simulator launch stopped by Ctrl-C (SIGINT); where the thread named was (Python's
/// KeyboardInterrupt). The process keeps working: the next launch runs.
class Interrupted : public KernelError {
public:
  using KernelError::KernelError;
};

} // namespace cutwin
