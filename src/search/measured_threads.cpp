// The thread count a record was measured at (search/tuner.hpp).
#include <algorithm>
#include <thread>

#include "db/db.hpp"
#include "search/tuner.hpp"

namespace attune {

int effective_threads(int threads) {
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void note_measured_threads(Record& r, int threads) {
  if (!r.features.is_object()) r.features = nlohmann::json::object();
  r.features[kThreadsFeature] = threads;
}

int measured_threads(const Record& r) {
  if (!r.features.is_object()) return 0;
  const auto it = r.features.find(kThreadsFeature);
  return it != r.features.end() && it->is_number_integer() ? it->get<int>() : 0;
}

RecordFilter measured_at(int threads) {
  if (threads <= 0) return {};
  return [threads](const Record& r) { return measured_threads(r) == threads; };
}

std::optional<Record> best_measured_at(const Database& db, std::int64_t task_id, int threads) {
  return db.best(task_id, measured_at(threads));
}

}  // namespace attune
