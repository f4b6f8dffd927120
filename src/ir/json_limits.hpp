// ir/json_limits.hpp — the one way attune parses JSON it did not write in this process
// (part of the ir stage).
//
// Traces (--trace files, records.trace), target and VTA config files, and the JSON columns of
// a database (features, hidden_features, times_s, flags) may come from anyone. nlohmann's
// reader, and everything that walks the value it returns (copies, dump(), comparisons,
// get<>()), recurses once per level of nesting: 100,000 nested '[' overflow the stack. So the
// text is checked first: its size and its nesting depth (brackets and braces outside strings)
// are bounded before the parser sees it, and every failure of the parser (syntax, a number
// beyond a double such as 1e400) becomes attune::Error naming what was being read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attune {

struct JsonLimits {
  std::size_t max_depth = 64;  // far above any JSON attune writes (at most 4)
  std::size_t max_bytes = std::size_t{16} << 20;
};

// Throws attune::Error "WHAT: ..." — "JSON nested deeper than 64 levels", "JSON text too large
// (N bytes; at most M)", or "invalid JSON: line L, column C: reason".
nlohmann::json parse_json_limited(std::string_view text, const std::string& what, JsonLimits limits = {});

}  // namespace attune
