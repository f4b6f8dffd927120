// runtime/loaded_kernel.hpp — a built kernel's shared object opened in this process, and its
// entry point (the kernel ABI of codegen/artifact.hpp). What attune::Kernel (src/api) and the
// network runner (src/network) call; the isolated worker opens its own.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace attune {

// A kernel's pre-packing entry points (codegen/artifact.hpp), where it has them: pack fills the
// caller's buffers of `bytes` from the const inputs, prepacked runs the kernel reading them.
struct Prepack {
  using Function = void (*)(void* const* buffers, void* const* packed);
  Function pack = nullptr, prepacked = nullptr;
  std::vector<std::size_t> bytes;  // per packed buffer, a multiple of 64
  explicit operator bool() const { return prepacked != nullptr; }
};

// The pre-packing symbols of `entry` in a dlopen'ed library; empty when it has none. Throws
// Error when it has some of them but not all.
Prepack find_prepack(void* library_handle, const std::string& entry);

class LoadedKernel {
 public:
  using Entry = void (*)(void* const*);
  // Opens `library_path` (RTLD_LOCAL: kernels export the same entry name) and finds `entry`.
  // Throws Error naming the file when either fails.
  LoadedKernel(const std::string& library_path, const std::string& entry);

  void operator()(void* const* buffers) const { entry_(buffers); }
  Entry entry() const { return entry_; }
  const Prepack& prepack() const { return prepack_; }
  const std::string& path() const { return path_; }

 private:
  struct Close {
    void operator()(void* handle) const;
  };
  std::unique_ptr<void, Close> handle_;
  Entry entry_ = nullptr;
  Prepack prepack_;
  std::string path_;
};

}  // namespace attune
