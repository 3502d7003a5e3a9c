#include "runtime/compiler_stack.h"

#include "cutwin/errors.h"

#include <pthread.h>

#include <cstring>
#include <exception>
#include <string>

namespace cutwin::rt {

namespace {

/// Measured: the deepest accepted expressions use about 3 KiB of stack per level in the
/// typer and the lowerer (a call's typing rule, a conditional expression), 10 MiB at
/// 3000 levels. Reserved, not committed: untouched pages cost nothing.
constexpr size_t kCompilerStackBytes = size_t(256) << 20;

struct Job {
  const std::function<void()> *work;
  std::exception_ptr error;
};

void *runJob(void *arg) {
  auto *job = static_cast<Job *>(arg);
  try {
    (*job->work)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

} // namespace

void runOnCompilerStack(const std::function<void()> &work) {
  Job job{&work, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kCompilerStackBytes);
  pthread_t thread;
  int rc = pthread_create(&thread, &attr, &runJob, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) // (no thread to be had: the calling thread's stack will do)
    work();
  else
    pthread_join(thread, nullptr);
  if (job.error)
    std::rethrow_exception(job.error);
}

} // namespace cutwin::rt
