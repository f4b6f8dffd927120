// search/annealing.hpp — simulated annealing over a cost model's scores (AutoTVM's optimizer).
#pragma once

#include <functional>
#include <random>
#include <set>
#include <vector>

#include "search/tuner.hpp"

namespace attune {

struct AnnealOptions {
  int walkers = 128;     // points walked in parallel
  int iterations = 60;   // steps per walker
  double t_start = 1.0;  // temperature, lowered linearly to t_end
  double t_end = 0.0;
  // > 0: a local search: every walker starts at one of `starts` (in turn) and never moves more
  // than this many knobs away from it. 0: walkers may go anywhere, and start at random configs
  // once `starts` are used up.
  int radius = 0;
};

// AutoTVM's sizes where features are cheap; a shorter walk where each new config's features
// replay a loop nest (CPU), so that proposing stays small next to measuring.
inline AnnealOptions anneal_options_for(const Space& space) {
  AnnealOptions o;
  if (!space.cheap_features()) {
    o.walkers = 32;
    o.iterations = 24;
  }
  return o;
}

// How many knobs two configs of one space set differently (the distance a radius bounds).
int knobs_apart(const Config& a, const Config& b);

// Scores configs in batches (larger is better).
using ScoreFn = std::function<std::vector<float>(const std::vector<Config>&)>;

// Up to n distinct admissible configs, none in `exclude`, best score first. Walkers start at
// `starts` (then random configs, or `starts` again with a radius) and move to a neighbour (one
// knob re-drawn) with the Metropolis rule; every config visited competes for the result.
std::vector<Config> anneal(const Space& space, const ScoreFn& score, int n, const std::set<Config>& exclude,
                           const std::vector<Config>& starts, std::mt19937_64& rng, const AnnealOptions& o = {});

}  // namespace attune
