// The table of strategies by name.
#include "ir/error.hpp"
#include "search/strategies.hpp"

namespace attune {

namespace {
struct Entry {
  const char* name;
  std::unique_ptr<Strategy> (*make)();
};
const Entry kStrategies[] = {
    {"random", make_random_search},
    {"evolutionary", make_evolutionary_search},
    {"xgb", make_xgb_search},
    {"ml2", make_ml2_search},
    {"predict", make_predict_search},
};
}  // namespace

std::vector<std::string> strategy_names() {
  std::vector<std::string> v;
  for (const auto& e : kStrategies) v.push_back(e.name);
  return v;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name) {
  for (const auto& e : kStrategies)
    if (name == e.name) return e.make();
  std::string known;
  for (const auto& e : kStrategies) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw Error("unknown strategy '" + name + "' (known: " + known + ")");
}

}  // namespace attune
