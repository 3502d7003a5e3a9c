// The oldest C and C++ runtime the wheel runs on: glibc 2.34 and libstdc++ of GCC 11
// (manylinux_2_34: Ubuntu 22.04, Debian 12, RHEL 9, Amazon Linux 2023). The build machine's
// are newer, and two references in the statically linked LLVM would otherwise raise the
// floor: arc4random (glibc 2.36, LLVM's random numbers) and the GCC 12 version of
// std::condition_variable::wait (ORC's JIT sessions). Both are defined here, hidden, so that
// the linker binds those references to these definitions instead of the runtime's;
// ci/wheel.sh fails if anything else raises the floor again.
#include <cerrno>
#include <cstdint>
#include <sys/random.h>

// getrandom (glibc 2.25) gives what arc4random gives: bytes from the kernel's CSPRNG.
extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random() noexcept {
  uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
    // Interrupted by a signal, or too early in boot: try again, as arc4random does.
  }
  return value;
}

// std::condition_variable::wait(std::unique_lock<std::mutex>&), by its mangled name (the
// header is not included, so that its declaration does not claim the name), forwarding to
// the GCC 4.4 version every libstdc++ still exports. The two differ only in how a
// pthread_cancel of the waiting thread unwinds, which neither LLVM nor cutwin does.
#define CUTWIN_CV_WAIT "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE"
extern "C" void cutwin_condition_variable_wait_3_4_11(void *condition, void *lock);
__asm__(".symver cutwin_condition_variable_wait_3_4_11, " CUTWIN_CV_WAIT "@GLIBCXX_3.4.11");

extern "C" __attribute__((visibility("hidden"))) void
cutwin_condition_variable_wait(void *condition, void *lock) __asm__(CUTWIN_CV_WAIT);
extern "C" void cutwin_condition_variable_wait(void *condition, void *lock) {
  cutwin_condition_variable_wait_3_4_11(condition, lock);
}
