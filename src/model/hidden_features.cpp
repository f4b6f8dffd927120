// hidden_vector(): a compiled candidate's hidden features (stored as JSON with its record) as a
// fixed-order vector. The key lists are the contract between the producers (runtime's
// object_features() for the CPU, codegen_vta for VTA) and the models; a key a producer does not
// write for some candidate (a VTA compile error stops before instructions exist) reads NaN.
// The simulated cycles are never a feature: they are the label.
#include <limits>
#include <map>

#include "ir/error.hpp"
#include "model/features.hpp"

namespace attune {

namespace {

const std::map<std::string, std::vector<std::string>>& key_lists() {
  static const std::map<std::string, std::vector<std::string>> lists = {
      {"cpu",
       {"fma", "vector_loads", "vector_stores", "spill_stores", "spill_loads", "branches", "calls", "instructions",
        "code_bytes", "functions"}},
      {"cuda", {"registers", "smem_bytes", "stack_bytes", "spill_store_bytes", "spill_load_bytes", "kernels"}},
      {"vta", {"insn/LOAD",        "insn/STORE",       "insn/GEMM",
               "insn/ALU",         "insn/total",       "uops",
               "kernel_uops",      "dma_bytes/inp",    "dma_bytes/wgt",
               "dma_bytes/acc",    "dma_bytes/uop",    "dma_bytes/out",
               "peak_entries/inp", "peak_entries/wgt", "peak_entries/acc",
               "peak_entries/uop", "peak_share/inp",   "peak_share/wgt",
               "peak_share/acc",   "peak_share/uop",   "chunks",
               "tile_groups",      "threads",          "gemm_uop_iters",
               "pad_entries"}},
  };
  return lists;
}

}  // namespace

const std::vector<std::string>& hidden_feature_names(const std::string& kind) {
  auto it = key_lists().find(kind);
  if (it == key_lists().end()) throw Error("no hidden features for target kind '" + kind + "' (known: cpu, cuda, vta)");
  return it->second;
}

std::vector<float> hidden_vector(const nlohmann::json& hidden, const std::string& kind) {
  const auto& keys = hidden_feature_names(kind);
  std::vector<float> v(keys.size(), std::numeric_limits<float>::quiet_NaN());
  if (!hidden.is_object()) return v;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const nlohmann::json* node = &hidden;
    std::string_view key = keys[i];
    bool ok = true;
    while (ok) {
      const auto slash = key.find('/');
      const std::string part(key.substr(0, slash));
      if (!node->is_object() || !node->contains(part)) {
        ok = false;
        break;
      }
      node = &(*node)[part];
      if (slash == std::string_view::npos) break;
      key = key.substr(slash + 1);
    }
    if (ok && node->is_number()) v[i] = node->get<float>();
  }
  return v;
}

std::vector<float> with_hidden(std::vector<float> visible, const nlohmann::json& hidden, const std::string& kind) {
  const auto h = hidden_vector(hidden, kind);
  visible.insert(visible.end(), h.begin(), h.end());
  return visible;
}

}  // namespace attune
