// Constructors of the built-in strategies; make_strategy() in strategy.cpp picks by name.
#pragma once

#include "search/tuner.hpp"

namespace attune {

std::unique_ptr<Strategy> make_random_search();
std::unique_ptr<Strategy> make_evolutionary_search();
std::unique_ptr<Strategy> make_xgb_search();
std::unique_ptr<Strategy> make_ml2_search();
// Zero-shot (predict_search.cpp): the target's transfer models' pick, and nothing else.
std::unique_ptr<Strategy> make_predict_search();

}  // namespace attune
