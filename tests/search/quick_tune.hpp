// TuneOptions for a quick test run: random search, one thread, small batches.
#pragma once

#include <string>

#include "search/tuner.hpp"

namespace attune::test {

inline TuneOptions quick_tune(const std::string& db_path, int trials) {
  TuneOptions o;
  o.db_path = db_path;
  o.trials = trials;
  o.strategy = "random";
  o.threads = 1;
  o.batch = 3;
  return o;
}

}  // namespace attune::test
