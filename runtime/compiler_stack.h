/// The frontend's steps recurse over the code they read (expressions up to 3000 deep,
/// 200 brackets, 100 indentation levels: CPython's limits, which the parser enforces). The
/// calling thread's stack may be small (a Python thread, an embedding program's worker),
/// so they run on a thread of their own with a stack sized for the deepest code accepted;
/// the caller waits, and gets the result or the exception.
#pragma once

#include <functional>
#include <optional>
#include <type_traits>

namespace cutwin::rt {

/// Runs `work` on the compiler's stack; its exception is rethrown in the caller.
void runOnCompilerStack(const std::function<void()> &work);

template <class F> auto onCompilerStack(F &&work) -> std::invoke_result_t<F> {
  std::optional<std::invoke_result_t<F>> result;
  runOnCompilerStack([&] { result.emplace(work()); });
  return std::move(*result);
}

} // namespace cutwin::rt
