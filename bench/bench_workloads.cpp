// attune-bench's workload files and groups (attune_bench.hpp).
#include <fstream>
#include <set>
#include <sstream>

#include "attune_bench.hpp"
#include "ir/error.hpp"

namespace bench {

// The workload file, parsed like attune's own loader (cli_spec.cpp), but keeping each line's
// family and parameters, which the baselines need.
std::vector<Workload> read_workloads(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw attune::Error("cannot open workload file '" + path + "'");
  std::vector<Workload> ws;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream ss(line.substr(0, line.find('#')));
    std::vector<std::string> toks;
    for (std::string t; ss >> t;) toks.push_back(t);
    if (toks.empty()) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (toks.size() < 2) throw attune::Error(where + "expected 'name op key=value ...'");
    Workload w;
    w.name = toks[0];
    w.family = toks[1];
    for (std::size_t i = 2; i < toks.size(); ++i) {
      const auto eq = toks[i].find('=');
      if (eq == std::string::npos || eq == 0) throw attune::Error(where + "expected key=value, got '" + toks[i] + "'");
      w.params[toks[i].substr(0, eq)] = toks[i].substr(eq + 1);
    }
    try {
      w.op = attune::instantiate_template(w.family, w.params);
    } catch (const attune::Error& e) {
      throw attune::Error(where + e.what());
    }
    w.op.name = w.name;
    ws.push_back(std::move(w));
  }
  return ws;
}

std::vector<Workload> read_all_workloads(const std::vector<std::string>& paths) {
  std::vector<Workload> all;
  std::set<std::string> names;
  for (const auto& p : paths)
    for (auto& w : read_workloads(p)) {
      if (!names.insert(w.name).second) throw attune::Error(p + ": workload '" + w.name + "' is defined twice");
      all.push_back(std::move(w));
    }
  return all;
}

// The groups (group_names()): the multi-stage ops (fused.txt: softmax, layernorm, ...,
// attention), GEMM-like lines, the ResNet-50 convolutions, and the rest (gemv included).
std::string group_of(const Workload& w) {
  if (w.op.multi_stage()) return "fused";
  const std::string& name = w.name;
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("gemm_") || starts("bert_") || starts("bmm_") || name == "rn50_fc_like") return "gemm";
  if (starts("rn50_")) return "conv2d";
  return "other";
}

}  // namespace bench
