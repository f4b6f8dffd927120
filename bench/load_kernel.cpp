// load_kernel.cpp — see load_kernel.hpp.
#include "load_kernel.hpp"

#include <dlfcn.h>

#include <string>

#include "ir/error.hpp"
#include "runtime/runtime.hpp"

namespace bench {

Kernel load_kernel(const attune::Artifact& a) {
  static attune::Builder builder;
  const auto r = builder.build(a);
  if (!r.ok) throw attune::Error("build failed: " + r.error);
  void* h = dlopen(r.so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw attune::Error(std::string("dlopen: ") + dlerror());
  auto* k = reinterpret_cast<Kernel>(dlsym(h, a.entry.c_str()));
  if (!k) throw attune::Error("no symbol " + a.entry + " in " + r.so_path);
  return k;
}

}  // namespace bench
