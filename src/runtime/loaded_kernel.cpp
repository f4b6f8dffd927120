// loaded_kernel.cpp — dlopen/dlsym of a built kernel (loaded_kernel.hpp).
#include "runtime/loaded_kernel.hpp"

#include <dlfcn.h>

#include "codegen/artifact.hpp"
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
  prepack_ = find_prepack(handle_.get(), entry);
}

Prepack find_prepack(void* handle, const std::string& entry) {
  const PrepackSymbols names = prepack_symbols(entry);
  const auto* bytes = static_cast<const long*>(::dlsym(handle, names.packed_bytes.c_str()));
  Prepack p;
  p.pack = reinterpret_cast<Prepack::Function>(::dlsym(handle, names.pack.c_str()));
  p.prepacked = reinterpret_cast<Prepack::Function>(::dlsym(handle, names.prepacked.c_str()));
  if (!bytes && !p.pack && !p.prepacked) return {};
  if (!bytes || !p.pack || !p.prepacked) throw Error("kernel " + entry + " has only some of its pre-packing functions");
  for (const long* b = bytes; *b > 0; ++b) p.bytes.push_back(static_cast<std::size_t>(*b));
  return p;
}

}  // namespace attune
