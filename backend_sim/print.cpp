// print() on the simulator: formats the line the GPU's vprintf would print (the formats
// the frontend emits: %lld %llu %f %s and %%, arguments in 8-byte slots) and writes it to
// standard output in one piece, so that lines of threads running in parallel never mix.
#include "backend_sim/host_callbacks.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

extern "C" void cutwin_sim_print(const char *format, const void *args) {
  const auto *slot = static_cast<const unsigned char *>(args);
  auto next = [&](auto &v) {
    std::memcpy(&v, slot, sizeof v);
    slot += 8;
  };
  std::string line;
  char buf[512];
  for (const char *p = format; *p; ++p) {
    if (*p != '%') {
      line += *p;
      continue;
    }
    ++p;
    if (*p == '%') {
      line += '%';
    } else if (*p == 'f') {
      double d;
      next(d);
      std::snprintf(buf, sizeof buf, "%f", d);
      line += buf;
    } else if (*p == 's') {
      const char *s;
      next(s);
      line += s;
    } else if (std::strncmp(p, "lld", 3) == 0 || std::strncmp(p, "llu", 3) == 0) {
      uint64_t v;
      next(v);
      if (p[2] == 'd')
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
      else
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
      line += buf;
      p += 2;
    } else {
      line += '%'; // not a format the frontend makes: printed as it stands
      if (!*p)
        break;
      line += *p;
    }
  }
  static std::mutex out;
  std::lock_guard<std::mutex> lock(out);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}
