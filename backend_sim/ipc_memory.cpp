#include "backend_sim/ipc_memory.h"

#include "cutwin/errors.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cutwin::sim {

namespace {

constexpr char kMagic[8] = {'c', 'u', 't', 'w', 'i', 'n', 'I', 'P'};

/// The handle's fields, in its 64 bytes (the rest zero).
struct HandleFields {
  char magic[8];
  uint32_t pid;
  int32_t fd;
  uint64_t inode;
  uint64_t span;   ///< bytes of the file (whole pages)
  uint64_t offset; ///< where the allocation starts in the file
  uint64_t bytes;  ///< the allocation's size
};
static_assert(sizeof(HandleFields) <= IpcMemory::kHandleBytes);

std::string systemError(const std::string &what) { return what + ": " + std::strerror(errno); }

} // namespace

IpcMemory::~IpcMemory() {
  for (auto &[pages, e] : exported_)
    ::close(e.fd); // (the arena unmaps the pages)
  for (auto &[base, o] : opened_)
    munmap(o.mapping, o.span);
}

std::vector<uint8_t> IpcMemory::exportAllocation(void *base, size_t bytes, char *pages, size_t span) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = exported_.find(pages); it != exported_.end())
    return it->second.handle;
  int fd = memfd_create("cutwin-device-memory", MFD_CLOEXEC);
  if (fd < 0)
    throw DeviceError(systemError("cuIpcGetMemHandle on a simulated device: memfd_create"));
  struct stat st {};
  void *copy = MAP_FAILED;
  if (ftruncate(fd, off_t(span)) != 0 || fstat(fd, &st) != 0 ||
      (copy = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
    std::string why = systemError("cuIpcGetMemHandle on a simulated device: a memory file of " +
                                  std::to_string(span) + " bytes");
    ::close(fd);
    throw DeviceError(why);
  }
  // The contents move into the file, which then takes the pages' place at their address.
  std::memcpy(copy, pages, span);
  if (mmap(pages, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    // A failed MAP_FIXED may have unmapped the pages already: private memory again, with
    // the contents put back, or nothing there at all rather than memory shared by mistake.
    std::string why = systemError("cuIpcGetMemHandle on a simulated device: mapping the memory file");
    if (mmap(pages, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
             0) != MAP_FAILED)
      std::memcpy(pages, copy, span);
    munmap(copy, span);
    ::close(fd);
    throw DeviceError(why);
  }
  munmap(copy, span);
  HandleFields h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.pid = uint32_t(getpid());
  h.fd = fd;
  h.inode = uint64_t(st.st_ino);
  h.span = span;
  h.offset = uint64_t(static_cast<char *>(base) - pages);
  h.bytes = bytes;
  std::vector<uint8_t> handle(kHandleBytes, 0);
  std::memcpy(handle.data(), &h, sizeof h);
  exported_.emplace(pages, Exported{fd, span, handle});
  return handle;
}

void IpcMemory::releasing(char *pages) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = exported_.find(pages);
  if (it == exported_.end())
    return;
  // Private again before the allocator hands the pages out: a later allocation must not
  // share memory with a process that still maps the file. Where that fails, nothing is
  // left there (the arena, unable to guard the pages, then gives the region back).
  if (mmap(pages, it->second.span, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
    munmap(pages, it->second.span);
  ::close(it->second.fd);
  exported_.erase(it);
}

void *IpcMemory::open(const std::vector<uint8_t> &handle) {
  HandleFields h{};
  if (handle.size() != kHandleBytes)
    throw DeviceError("an IPC handle has " + std::to_string(kHandleBytes) + " bytes, not " +
                      std::to_string(handle.size()));
  std::memcpy(&h, handle.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    throw DeviceError(
        "cuIpcOpenMemHandle: not the IPC handle of a simulated device (a GPU's handle opens only on "
        "that GPU's backend)");
  if (h.pid == uint32_t(getpid()))
    throw DeviceError("cuIpcOpenMemHandle: CUDA_ERROR_INVALID_VALUE: a process cannot open an IPC handle it "
                      "exported itself");
  std::string path = "/proc/" + std::to_string(h.pid) + "/fd/" + std::to_string(h.fd);
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || uint64_t(st.st_ino) != h.inode) {
    if (fd >= 0)
      ::close(fd);
    throw DeviceError(
        "cuIpcOpenMemHandle: CUDA_ERROR_INVALID_VALUE: the memory of this handle is gone (process " +
        std::to_string(h.pid) + " has exited or released it)");
  }
  if (uint64_t(st.st_size) < h.span || h.offset > h.span || h.bytes > h.span - h.offset) {
    ::close(fd);
    throw DeviceError(
        "cuIpcOpenMemHandle: CUDA_ERROR_INVALID_VALUE: the handle's sizes do not match its memory "
        "(a damaged handle)");
  }
  void *mapping = mmap(nullptr, h.span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd); // the mapping keeps the file
  if (mapping == MAP_FAILED)
    throw DeviceError(systemError("cuIpcOpenMemHandle: mapping " + std::to_string(h.span) + " bytes"));
  void *base = static_cast<char *>(mapping) + h.offset;
  std::lock_guard<std::mutex> lock(mu_);
  opened_.emplace(base, Opened{static_cast<char *>(mapping), size_t(h.span)});
  return base;
}

void IpcMemory::close(void *base) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = opened_.find(base);
  if (it == opened_.end())
    throw DeviceError("cuIpcCloseMemHandle: CUDA_ERROR_INVALID_VALUE: not memory an IPC handle opened");
  munmap(it->second.mapping, it->second.span);
  opened_.erase(it);
}

} // namespace cutwin::sim
