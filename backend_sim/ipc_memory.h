/// Device memory shared between processes on simulated devices (cuIpcGetMemHandle,
/// cuIpcOpenMemHandle). Simulated device memory is private host memory, which no other
/// process can map; so exporting an allocation moves its pages, contents and all, into a
/// memory file (memfd) mapped at the same address, and the handle names that file by the
/// exporting process and descriptor (/proc/<pid>/fd/<fd>) and its inode. A process that
/// opens the handle maps the same file: both see each other's writes, as two processes
/// sharing a GPU allocation do. The exporter keeps the file while the allocation lives;
/// releasing it makes its pages private again. The handle is 64 bytes, as the driver's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace cutwin::sim {

class IpcMemory {
public:
  IpcMemory() = default;
  IpcMemory(const IpcMemory &) = delete;
  IpcMemory &operator=(const IpcMemory &) = delete;
  ~IpcMemory();

  /// The handle of the allocation at `base`, `bytes` long, whose pages (of its own) are
  /// [pages, pages + span). The same handle for the same allocation every time.
  std::vector<uint8_t> exportAllocation(void *base, size_t bytes, char *pages, size_t span);
  /// Before an allocation is released: if it was exported, its pages become private
  /// memory again (zeroed; the allocator reuses them) and the file is closed.
  void releasing(char *pages);
  /// Maps the allocation another process exported; returns its base here. DeviceError
  /// for a handle of this process, of a process gone, or not a simulated device's.
  void *open(const std::vector<uint8_t> &handle);
  /// Unmaps what open() returned.
  void close(void *base);

  static constexpr size_t kHandleBytes = 64;

private:
  struct Exported {
    int fd;
    size_t span;
    std::vector<uint8_t> handle;
  };
  struct Opened {
    char *mapping;
    size_t span;
  };
  std::mutex mu_;
  std::map<char *, Exported> exported_; ///< by the first page of the allocation
  std::map<void *, Opened> opened_;     ///< by the base open() returned
};

} // namespace cutwin::sim
