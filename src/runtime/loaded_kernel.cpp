// loaded_kernel.cpp — dlopen/dlsym of a built kernel (loaded_kernel.hpp).
#include "runtime/loaded_kernel.hpp"

#include <dlfcn.h>

#include "ir/error.hpp"

namespace attune {

void LoadedKernel::Close::operator()(void* h) const { ::dlclose(h); }

LoadedKernel::LoadedKernel(const std::string& path, const std::string& entry) : path_(path) {
  handle_.reset(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!handle_) {
    const char* why = ::dlerror();
    throw Error("cannot load kernel " + path + ": " + (why ? why : "dlopen failed"));
  }
  entry_ = reinterpret_cast<Entry>(::dlsym(handle_.get(), entry.c_str()));
  if (!entry_) throw Error("kernel " + path + " has no function " + entry);
}

}  // namespace attune
