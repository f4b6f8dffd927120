// api/kernel_impl.hpp — what an attune::Kernel holds: the opened shared object and its entry
// point, and the description Session::load gives it. Private to src/api.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attune/attune.hpp"
#include "runtime/loaded_kernel.hpp"

namespace attune {

struct Kernel::Impl {
  using Entry = void (*)(void* const*);  // the generated kernel's ABI (ARCHITECTURE: Kernel ABI)

  // Opens `library_path` and finds `entry_name` in it (LoadedKernel). Throws Error naming the
  // file when either fails.
  Impl(const std::string& library_path, const std::string& entry_name)
      : loaded(library_path, entry_name), entry(loaded.entry()), library_path(library_path) {}

  LoadedKernel loaded;
  Entry entry = nullptr;
  std::string library_path;
  std::vector<TensorInfo> tensors;
  BestKernel measured;
};

}  // namespace attune
