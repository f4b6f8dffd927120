// workload.hpp — what the bench's baseline adapters share: one workload line (its family and
// integer parameters, which the baselines need and an attune::Op no longer spells out) and one
// runnable baseline kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"

namespace bench {

struct Workload {
  std::string name;                           // "rn50_c2_3x3"
  std::string family;                         // the template: "conv2d", "gemm", ...
  std::map<std::string, std::string> params;  // as written on the line (key=value)
  attune::Op op;                              // instantiate_template(family, params), named `name`

  // An integer parameter, or `fallback` when the line does not give it.
  std::int64_t num(const std::string& key, std::int64_t fallback = -1) const {
    auto it = params.find(key);
    return it == params.end() ? fallback : std::stoll(it->second);
  }
  std::string str(const std::string& key, const std::string& fallback = "") const {
    auto it = params.find(key);
    return it == params.end() ? fallback : it->second;
  }
  // A parameter as instantiate_template saw it: the line's value, or the template's default
  // (list_templates). Throws attune::Error when the template has no such parameter.
  std::string param(const std::string& key) const {
    if (auto it = params.find(key); it != params.end()) return it->second;
    for (const auto& t : attune::list_templates())
      if (t.name == family)
        for (const auto& p : t.params)
          if (p.name == key && !p.default_value.empty()) return p.default_value;
    throw attune::Error(name + ": template " + family + " has no default for '" + key + "'");
  }
};

// A baseline bound to one workload's input buffers (attune's layout, read only) and its own
// output buffer, which it fills in attune's output layout, so that every kernel is checked
// against the same reference. `state` keeps whatever the closure needs alive (primitives,
// packed weights).
struct Baseline {
  std::string name;  // a column of the table: "OpenBLAS", "BLIS", "oneDNN", "im2col+OpenBLAS"
  std::shared_ptr<attune::Buffer> out;
  std::function<void()> run;
  std::shared_ptr<void> state;
  std::string detail = {};  // what it runs where the column does not say it ("matmul + softmax + matmul")
};

// A zeroed buffer shaped like `op`'s output, for a baseline to write.
inline std::shared_ptr<attune::Buffer> output_like(const attune::Op& op, const std::vector<attune::Buffer>& bufs) {
  const auto& o = bufs.at(op.tensor_index(op.output.tensor));
  return std::make_shared<attune::Buffer>(o.dtype(), o.shape());
}

// The table's baseline columns, in print order.
inline const std::vector<std::string>& baseline_columns() {
  static const std::vector<std::string> cols = {"OpenBLAS", "BLIS", "oneDNN", "im2col+OpenBLAS"};
  return cols;
}

}  // namespace bench
