#include "runtime/kernel_cache.h"

#include "frontend/ir/kernel_info_bytes.h"
#include "runtime/cache_key.h"

#include <llvm/Support/BLAKE3.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace cutwin::rt {

namespace fs = std::filesystem;

namespace {

/// An entry: kMagic, its key (64 hex digits), the payload's size, the payload (KernelInfo,
/// then the image), the payload's BLAKE3 digest.
constexpr std::string_view kMagic = "CUTWINK1";
constexpr size_t kKeyBytes = 64, kDigestBytes = 32;

std::string payloadDigest(const std::string &payload) {
  llvm::BLAKE3Result<kDigestBytes> d = llvm::BLAKE3::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(payload.data()), payload.size()));
  return std::string(d.begin(), d.end());
}

fs::path entryPath(const std::string &key) { return kernelCacheDirectory() / (key + ".ck"); }

/// No entry is this large: a file that is must be something else (and is not read).
constexpr uint64_t kLargestEntry = uint64_t(1) << 30;

/// All `size` bytes at `p` through `transfer` (::read or ::write), past interrupted and
/// short calls; false at an error or an early end.
template <typename Byte, typename Transfer> bool whole(int fd, Byte *p, size_t size, Transfer transfer) {
  for (size_t done = 0; done < size;) {
    ssize_t n = transfer(fd, p + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

uint64_t sizeLimit() {
  if (const char *mb = std::getenv("CUTWIN_CACHE_SIZE_MB"))
    return uint64_t(std::max(0.0, std::strtod(mb, nullptr)) * 1024 * 1024);
  return uint64_t(1024) * 1024 * 1024;
}

/// Past the size limit, the entries least recently used go until a quarter is free; files
/// a process that died while writing left behind go after an hour.
void prune(const fs::path &dir) {
  struct File {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<File> entries;
  uint64_t total = 0;
  std::error_code ec;
  auto hourAgo = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    fs::file_time_type used = it->last_write_time(e);
    uint64_t bytes = it->file_size(e);
    if (e)
      continue;
    std::string name = it->path().filename().string();
    if (name.find(".tmp.") != std::string::npos) {
      if (used < hourAgo)
        fs::remove(it->path(), e);
    } else if (it->path().extension() == ".ck") {
      entries.push_back({it->path(), used, bytes});
      total += bytes;
    }
  }
  uint64_t limit = sizeLimit();
  if (total <= limit)
    return;
  std::sort(entries.begin(), entries.end(), [](const File &a, const File &b) { return a.used < b.used; });
  for (const File &f : entries) {
    if (total <= limit / 4 * 3)
      break;
    std::error_code e;
    if (fs::remove(f.path, e))
      total -= f.bytes;
  }
}

/// Whether the folder's last pruning (the time of its `.pruned` file) is an hour old or
/// more; if so the caller prunes, and the file says so from now.
bool pruneDue(const fs::path &dir) {
  fs::path marker = dir / ".pruned";
  struct stat st {};
  if (::stat(marker.c_str(), &st) == 0 && st.st_mtim.tv_sec + 3600 > ::time(nullptr))
    return false;
  int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    (void)::futimens(fd, nullptr);
    ::close(fd);
  }
  return true;
}

} // namespace

bool kernelCacheEnabled(std::optional<bool> requested, const BackendCapabilities &caps) {
  if (buildIdentity().empty())
    return false;
  if (const char *v = std::getenv("CUTWIN_CACHE"); v && *v) {
    std::string_view s(v);
    if (s != "0" && s != "1")
      throw Error("CUTWIN_CACHE is '" + std::string(s) + "': 1 (keep compiled kernels on disk) or 0 (never)");
    return s == "1";
  }
  return requested.value_or(caps.cachesKernelsByDefault);
}

fs::path kernelCacheDirectory() {
  if (const char *d = std::getenv("CUTWIN_CACHE_DIR"); d && *d)
    return fs::path(d) / "kernels";
  if (const char *d = std::getenv("XDG_CACHE_HOME"); d && *d)
    return fs::path(d) / "cutwin" / "kernels";
  if (const char *h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".cache" / "cutwin" / "kernels";
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  return (ec ? fs::path("/tmp") : tmp) / "cutwin-kernels";
}

std::optional<CachedKernel> readCachedKernel(const std::string &key, const std::vector<fe::Type> &types) {
  int fd = ::open(entryPath(key).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  try {
    struct stat st {};
    std::string bytes;
    bool read = ::fstat(fd, &st) == 0 && uint64_t(st.st_size) <= kLargestEntry;
    if (read) {
      bytes.resize(size_t(st.st_size));
      read = whole(fd, bytes.data(), bytes.size(), ::read);
    }
    // Recently used: what the size limit keeps (set at most once a minute).
    if (read && st.st_mtim.tv_sec + 60 < ::time(nullptr))
      (void)::futimens(fd, nullptr);
    ::close(fd);
    fd = -1;
    if (!read)
      throw Error("unreadable");
    ir::ByteReader r(bytes);
    std::string magic = r.raw(kMagic.size()), stored = r.raw(kKeyBytes);
    if (magic != kMagic || stored != key)
      throw Error("not an entry of this key");
    std::string payload = r.raw(r.count(1));
    std::string digest = r.raw(kDigestBytes);
    if (!r.atEnd() || digest != payloadDigest(payload))
      throw Error("damaged");
    ir::ByteReader p(payload);
    CachedKernel out;
    out.info = ir::readKernelInfo(p, types);
    out.image = p.str();
    if (!p.atEnd())
      throw Error("damaged");
    return out;
  } catch (const std::exception &) {
    // Damaged, or too large to read: the kernel is compiled again and its new entry renamed
    // over this one (not removed here: another process may have just renamed a whole one
    // into place).
    if (fd >= 0)
      ::close(fd);
    return std::nullopt;
  }
}

void writeCachedKernel(const std::string &key, const ir::KernelInfo &info, const std::string &image) {
  static std::atomic<unsigned> counter{0};
  static std::mutex mu;
  static std::map<fs::path, uint64_t> written; // bytes written to each folder since it was pruned
  ir::ByteWriter p;
  ir::writeKernelInfo(p, info);
  p.str(image);
  const std::string &payload = p.bytes();
  std::string bytes(kMagic);
  bytes += key;
  ir::ByteWriter size;
  size.pod(uint64_t(payload.size()));
  bytes += size.bytes();
  bytes += payload;
  bytes += payloadDigest(payload);

  fs::path dir = kernelCacheDirectory();
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path tmp = dir / (key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  bool ok = whole(fd, bytes.data(), bytes.size(), ::write);
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), entryPath(key).c_str()) != 0) {
    fs::remove(tmp, ec);
    return;
  }
  // At a process's first write to a folder unless some process pruned it in the last
  // hour (reading a folder of 10^4 entries takes tens of milliseconds), and again after
  // each eighth of the limit it writes.
  std::lock_guard<std::mutex> lock(mu);
  auto [it, first] = written.emplace(dir, 0);
  it->second += bytes.size();
  if (first ? pruneDue(dir) : it->second > sizeLimit() / 8) {
    it->second = 0;
    prune(dir);
  }
}

} // namespace cutwin::rt

namespace cutwin {

namespace fs = std::filesystem;

namespace {
/// An entry (`<key>.ck`) or a file a writer left (`<key>.tmp.<pid>.<n>` while it writes).
bool cacheFile(const fs::path &p) {
  std::string name = p.filename().string();
  return p.extension() == ".ck" || (name.size() > 69 && name.compare(64, 5, ".tmp.") == 0);
}
} // namespace

KernelCacheUsage kernelCacheUsage() {
  KernelCacheUsage u;
  fs::path dir = rt::kernelCacheDirectory();
  u.directory = dir.string();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    uint64_t bytes = it->file_size(e);
    if (!e && it->path().extension() == ".ck") {
      ++u.entries;
      u.bytes += bytes;
    }
  }
  return u;
}

uint64_t clearKernelCache() {
  uint64_t removed = 0;
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(rt::kernelCacheDirectory(), ec), end; !ec && it != end; it.increment(ec))
    if (cacheFile(it->path()))
      files.push_back(it->path());
  for (const fs::path &p : files) {
    std::error_code e;
    if (fs::remove(p, e) && p.extension() == ".ck")
      ++removed;
  }
  return removed;
}

} // namespace cutwin
