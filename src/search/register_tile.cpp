// The register tile's steps (register_tile.hpp).
#include "search/register_tile.hpp"

namespace attune {

std::vector<Transform> register_tile_steps(const std::string& out, const std::string& at, const std::string& rows,
                                           const std::string& lanes) {
  std::vector<Transform> s;
  if (!at.empty()) s.push_back(Transform::cache_write(out, at));
  if (!rows.empty()) s.push_back(Transform::unroll(rows));
  s.push_back(Transform::vectorize(lanes));
  if (at.empty()) return s;
  const std::string buf = cache_write_buffer(out);
  for (const auto copy : {CacheWriteCopy::init, CacheWriteCopy::back}) {
    if (!rows.empty()) s.push_back(Transform::unroll(cache_write_copy_loop(rows, buf, copy)));
    s.push_back(Transform::vectorize(cache_write_copy_loop(lanes, buf, copy)));
  }
  return s;
}

}  // namespace attune
