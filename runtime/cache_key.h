/// The kernel cache's keys (runtime/kernel_cache.h): a digest of everything a compiled
/// kernel's code depends on, so that a changed source, binding, type, option, toolkit,
/// target or cutwin build never finds an old entry. Built from canonical bytes of the
/// inputs themselves, not from the kernel IR, so that a hit runs no compiler step at all.
#pragma once

#include "cutwin/cutwin.h"
#include "frontend/ir/step_runner.h"
#include "frontend/sema/types.h"

#include <string>
#include <vector>

namespace cutwin::rt {

/// A module's inputs (its sources and what the host bound their names to), digested.
std::string moduleDigest(const std::vector<FunctionUnit> &units);
std::string moduleDigest(const std::string &path, const std::string &source, const ModuleBindings &bindings);

/// The key of kernel `kernel` of a module of `moduleDigest` compiled for `types` with
/// `opts` by a backend whose code also depends on `codeIdentity` (KernelCompiler): 64 hex
/// digits.
std::string kernelCacheKey(const std::string &moduleDigest, const std::string &kernel,
                           const std::vector<fe::Type> &types, const ir::PipelineOptions &opts,
                           const std::string &codeIdentity);

/// The running cutwin build: the binary holding this code, by path, size and time, so that
/// a rebuilt cutwin never loads what another build compiled.
const std::string &buildIdentity();

} // namespace cutwin::rt
