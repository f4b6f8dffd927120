// runtime/loaded_kernel.hpp — a built kernel's shared object opened in this process, and its
// entry point (the kernel ABI of codegen/artifact.hpp). What attune::Kernel (src/api) and the
// network runner (src/network) call; the isolated worker opens its own.
#pragma once

#include <memory>
#include <string>

namespace attune {

class LoadedKernel {
 public:
  using Entry = void (*)(void* const*);
  // Opens `library_path` (RTLD_LOCAL: kernels export the same entry name) and finds `entry`.
  // Throws Error naming the file when either fails.
  LoadedKernel(const std::string& library_path, const std::string& entry);

  void operator()(void* const* buffers) const { entry_(buffers); }
  Entry entry() const { return entry_; }
  const std::string& path() const { return path_; }

 private:
  struct Close {
    void operator()(void* handle) const;
  };
  std::unique_ptr<void, Close> handle_;
  Entry entry_ = nullptr;
  std::string path_;
};

}  // namespace attune
