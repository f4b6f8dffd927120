// attune::Kernel (attune.hpp): a loaded kernel that owns its shared object.
#include "api/kernel_impl.hpp"

namespace attune {

Kernel::Kernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;
Kernel::~Kernel() = default;

const Kernel::Impl& Kernel::impl() const {
  if (!impl_) throw Error("this attune::Kernel was moved from; use the Kernel it was moved to");
  return *impl_;
}

void Kernel::operator()(void* const* buffers) const { impl().entry(buffers); }

void Kernel::operator()(const std::vector<void*>& buffers) const {
  const Impl& k = impl();
  std::string names;
  for (const auto& t : k.tensors) names += (names.empty() ? "" : ", ") + t.name;
  if (buffers.size() != k.tensors.size())
    throw Error("kernel takes " + std::to_string(k.tensors.size()) + " buffers (" + names + "), got " +
                std::to_string(buffers.size()));
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (!buffers[i]) throw Error("kernel: buffer " + std::to_string(i) + " (" + k.tensors[i].name + ") is null");
  k.entry(buffers.data());
}

const std::vector<TensorInfo>& Kernel::tensors() const { return impl().tensors; }
const BestKernel& Kernel::measured() const { return impl().measured; }
const std::string& Kernel::library_path() const { return impl().library_path; }

}  // namespace attune
