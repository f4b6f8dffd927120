// The search side of distributed measurement (remote.hpp, engine.hpp): a Builder that builds
// nothing and a Runner that enqueues, then hands the loop each record as a worker writes it.
#include <chrono>
#include <thread>
#include <utility>

#include "ir/error.hpp"
#include "ir/json_limits.hpp"
#include "search/engine.hpp"
#include "search/remote.hpp"

namespace attune {

using nlohmann::json;

std::string job_request(const Record& r, int threads, std::uint64_t seed) {
  return json{{"record",
               {{"task_id", r.task_id},
                {"trace", r.trace},
                {"trace_hash", r.trace_hash},
                {"features", r.features},
                {"strategy", r.strategy},
                {"seed", r.seed},
                {"trial", r.trial}}},
              {"threads", threads},
              {"seed", seed}}
      .dump();
}

JobRequest parse_job_request(const std::string& text, std::int64_t job_id) {
  try {
    const json j = parse_json_limited(text, "request");
    const json& r = j.at("record");
    JobRequest out;
    out.record.task_id = r.at("task_id").get<std::int64_t>();
    out.record.trace = r.at("trace").get<std::string>();
    out.record.trace_hash = r.at("trace_hash").get<std::string>();
    out.record.features = r.at("features");
    out.record.strategy = r.at("strategy").get<std::string>();
    out.record.seed = r.at("seed").get<std::uint64_t>();
    out.record.trial = r.at("trial").get<std::int64_t>();
    out.threads = j.at("threads").get<int>();
    out.seed = j.at("seed").get<std::uint64_t>();
    return out;
  } catch (const std::exception& e) {
    throw Error("job " + std::to_string(job_id) + ": not a job request: " + e.what());
  }
}

namespace engine {

namespace {

class RemoteBuilder : public Builder {
 public:
  std::vector<Built> build(const std::vector<const Candidate*>& cands) override {
    return std::vector<Built>(cands.size());  // all "ok": the workers build
  }
  Built rebuild(const Record& r) override {
    throw Error("record " + std::to_string(r.id) + ": remote workers do not re-measure");
  }
  std::string compiler_info() const override { return "remote"; }
};

class RemoteRunner : public Runner {
 public:
  RemoteRunner(Database& db, const TaskInfo& task, std::string device_key, int threads, std::uint64_t seed)
      : db_(db), task_(task), key_(std::move(device_key)), threads_(threads), seed_(seed) {}

  void run(const std::vector<const Built*>& batch, const RunContext& ctx) override {
    ATTUNE_CHECK(ctx.record_of, "remote jobs need the records they are to write");
    std::vector<std::pair<std::size_t, std::int64_t>> pending;  // batch index, job id
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const Record r = ctx.record_of(i);
      pending.emplace_back(i,
                           db_.enqueue(task_.id, r.trace_hash, key_, job_request(r, threads_, seed_), ctx.claim_owner));
    }
    // Results as workers finish them, in any order. Polled: from 2 ms (a queue of fast
    // simulator jobs) up to 100 ms while nothing finishes.
    auto wait = std::chrono::milliseconds(2);
    while (!pending.empty()) {
      // Out of time or interrupted: the jobs stay queued and end as records all the same.
      if (ctx.out_of_time()) return;
      bool progress = false;
      for (auto it = pending.begin(); it != pending.end();) {
        const auto id = db_.job_record(it->second);
        if (!id) {
          ++it;
          continue;
        }
        const auto r = db_.record(*id);
        ATTUNE_CHECK(r.has_value(), "a done job names its record");
        ctx.done(it->first, r->measurement(), r->hidden_features);
        it = pending.erase(it);
        progress = true;
      }
      if (progress) {
        wait = std::chrono::milliseconds(2);
        continue;
      }
      std::this_thread::sleep_for(wait);
      wait = std::min(wait * 2, std::chrono::milliseconds(100));
    }
  }

  // A worker measures each job once; the search side cannot re-measure (no confirmations).
  bool noisy() const override { return false; }
  bool records_itself() const override { return true; }

 private:
  Database& db_;
  const TaskInfo& task_;
  const std::string key_;
  const int threads_;
  const std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Builder> make_remote_builder() { return std::make_unique<RemoteBuilder>(); }

std::unique_ptr<Runner> make_remote_runner(Database& db, const TaskInfo& task, const std::string& device_key,
                                           int threads, std::uint64_t seed) {
  return std::make_unique<RemoteRunner>(db, task, device_key, threads, seed);
}

}  // namespace engine
}  // namespace attune
