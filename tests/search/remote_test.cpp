// The request of a queue job (search/remote.hpp): what the search side writes is what a worker
// reads, and anything else is a one-line error naming the job.
#include <gtest/gtest.h>

#include "ir/error.hpp"
#include "search/remote.hpp"

namespace attune {
namespace {

TEST(JobRequest, RoundTripsTheRecordToWrite) {
  Record r;
  r.task_id = 7;
  r.trace = R"({"schema_version":1,"target":"vta","knobs":{"tile_b":8}})";
  r.trace_hash = "abc";
  r.features = {{"space", "vta"}, {"knobs", {{"tile_b", 8}}}};
  r.strategy = "evolutionary";
  r.seed = 18446744073709551615ull;  // the full 64-bit range
  r.trial = 41;
  const JobRequest back = parse_job_request(job_request(r, 3, 99), 5);
  EXPECT_EQ(back.record.task_id, 7);
  EXPECT_EQ(back.record.trace, r.trace);
  EXPECT_EQ(back.record.trace_hash, "abc");
  EXPECT_EQ(back.record.features, r.features);
  EXPECT_EQ(back.record.strategy, "evolutionary");
  EXPECT_EQ(back.record.seed, r.seed);
  EXPECT_EQ(back.record.trial, 41);
  EXPECT_EQ(back.threads, 3);
  EXPECT_EQ(back.seed, 99u);
}

TEST(JobRequest, AnythingElseIsAnErrorNamingTheJob) {
  for (const char* bad : {"", "[]", "{\"record\": {}}", "{\"record\": {\"task_id\": \"x\"}, \"threads\": 1}"}) {
    try {
      parse_job_request(bad, 12);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("job 12: not a job request: ", 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace attune
