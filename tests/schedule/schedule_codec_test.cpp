// The schedule codec (schedule/schedule.hpp): the text of every schedule shape attune has written
// reads back and writes out byte for byte (it is the database key and part of the hashed C),
// and malformed text is refused with one line naming the field.
#include <gtest/gtest.h>

#include <string>

#include "ir/error.hpp"
#include "schedule/schedule.hpp"

namespace attune {
namespace {

// Written by the code before the one codec: the first three are records of
// tests/search/fixtures/release-2a5b2f3.db, the others what that code's trace_to_string and
// TensorizePlan::to_json printed for the values built in WrittenFromValues below.
const char* kFixtureNest =
    R"({"schema_version":1,"steps":[{"factors":[3,8],"kind":"split","loop":"m"},{"factors":[4,8],"kind":"split","loop":"n"},)"
    R"({"kind":"reorder","loops":["n.0","m.0","k","n.1","m.1"]},{"at":"m.0","kind":"cache_write","tensor":"C"},)"
    R"({"kind":"unroll","loop":"n.1"},{"kind":"vectorize","loop":"m.1"},{"kind":"unroll","loop":"n.1@C_l.init"},)"
    R"({"kind":"vectorize","loop":"m.1@C_l.init"},{"kind":"unroll","loop":"n.1@C_l.back"},)"
    R"({"kind":"vectorize","loop":"m.1@C_l.back"},{"at":"root","kind":"pack","layout":[],"tensor":"A"}]})";
const char* kFixtureTensorize =
    R"({"schema_version":1,"steps":[{"intrinsic":"avx2_fma_f32","kind":"tensorize","loops":{"i":["m"],"j":["n"],"k":["k"]},)"
    R"("mapping":1,"schedule":{"cols":3,"parallel":false,"rows":3},"schema_version":1}]})";
const char* kFixtureVta =
    R"({"knobs":{"h_nthread":2,"oc_nthread":2,"tile_b":1,"tile_ci":1,"tile_co":1,"tile_h":4,"tile_w":2},)"
    R"("schema_version":1,"target":"vta"})";
const char* kEveryKind =
    R"({"schema_version":1,"steps":[{"factors":[2,8],"kind":"split","loop":"n"},{"kind":"reorder","loops":["m","n.0","k","n.1"]},)"
    R"({"kind":"fuse","loop":"init.m"},{"kind":"parallel","loop":"init.m_init.n"},{"at":"n.0","kind":"cache_write","tensor":"C"},)"
    R"({"at":"m","kind":"pack","layout":["n.0","k","n.1"],"tensor":"B"},{"kind":"vectorize","loop":"n.1"},)"
    R"({"kind":"unroll","loop":"n.1@C_l.init"},{"at":"root","kind":"pack","layout":[],"padded":true,"tensor":"I"}]})";
const char* kConvTensorize =
    R"({"schema_version":1,"steps":[{"intrinsic":"avx2_fma_f32","kind":"tensorize","loops":{"i":["p","q"],"j":["k"],)"
    R"("k":["r","s","c"]},"mapping":96,"schedule":{"cols":2,"parallel":true,"rows":4},"schema_version":1}]})";

std::string error_of(const std::string& text) {
  try {
    schedule_from_string(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ScheduleCodec, EveryShapeRoundTripsByteForByte) {
  for (const char* text : {kFixtureNest, kFixtureTensorize, kFixtureVta, kEveryKind, kConvTensorize})
    EXPECT_EQ(schedule_to_string(schedule_from_string(text)), text);
}

TEST(ScheduleCodec, WrittenFromValues) {
  Schedule nest{Trace{{Transform::split("n", {2, 8}), Transform::reorder({"m", "n.0", "k", "n.1"}),
                       Transform::fuse("init.m"), Transform::parallel("init.m_init.n"),
                       Transform::cache_write("C", "n.0"), Transform::pack("B", "m", {"n.0", "k", "n.1"}),
                       Transform::vectorize("n.1"), Transform::unroll("n.1@C_l.init"), Transform::pack_padded("I")}}};
  EXPECT_EQ(schedule_to_string(nest), kEveryKind);
  EXPECT_EQ(trace_to_string(nest.nest), kEveryKind);

  Schedule tensorized;
  tensorized.tensorize = TensorizeStep{
      "avx2_fma_f32", 96,
      std::map<std::string, std::vector<std::string>>{{"i", {"p", "q"}}, {"j", {"k"}}, {"k", {"r", "s", "c"}}},
      TensorizeSchedule{4, 2, true}};
  EXPECT_EQ(schedule_to_string(tensorized), kConvTensorize);

  Schedule vta;
  vta.knobs = AcceleratorKnobs{"vta",
                               {{"tile_b", 1},
                                {"tile_h", 4},
                                {"tile_w", 2},
                                {"tile_ci", 1},
                                {"tile_co", 1},
                                {"oc_nthread", 2},
                                {"h_nthread", 2}}};
  EXPECT_EQ(schedule_to_string(vta), kFixtureVta);
}

TEST(ScheduleCodec, ReadsEachShapeIntoItsPart) {
  const Schedule nest = schedule_from_string(kEveryKind);
  EXPECT_EQ(nest.nest.steps.size(), 9u);
  EXPECT_TRUE(nest.nest.steps.back().padded);
  EXPECT_FALSE(nest.tensorize || nest.knobs);

  const Schedule t = schedule_from_string(kFixtureTensorize);
  EXPECT_TRUE(t.nest.steps.empty());
  ASSERT_TRUE(t.tensorize.has_value());
  EXPECT_EQ(t.tensorize->intrinsic, "avx2_fma_f32");
  EXPECT_EQ(t.tensorize->mapping, 1);
  EXPECT_EQ(t.tensorize->schedule, (TensorizeSchedule{3, 3, false}));
  EXPECT_EQ(t.tensorize->loops->at("k"), std::vector<std::string>{"k"});

  const Schedule v = schedule_from_string(kFixtureVta);
  ASSERT_TRUE(v.knobs.has_value());
  EXPECT_EQ(v.knobs->target, "vta");
  EXPECT_EQ(v.knobs->at("tile_h"), 4);
  EXPECT_TRUE(v.nest.steps.empty());
}

// A GEMM's VTA schedule names no tile_h or tile_w: they read as their declared default.
TEST(ScheduleCodec, KnobsLeftOutReadAsTheirDefault) {
  const Schedule g = schedule_from_string(
      R"({"knobs":{"h_nthread":1,"oc_nthread":2,"tile_b":4,"tile_ci":1,"tile_co":2},"schema_version":1,"target":"vta"})");
  EXPECT_EQ(g.knobs->at("tile_b"), 4);
  EXPECT_EQ(g.knobs->at("tile_h"), 1);
  EXPECT_EQ(g.knobs->values.count("tile_h"), 0u);
  EXPECT_THROW(g.knobs->at("tile_q"), InternalError);
}

// Steps recorded before the tensorize schedule existed, and without loops, keep their text.
TEST(ScheduleCodec, OptionalTensorizeFieldsStayAbsent) {
  const std::string old =
      R"({"schema_version":1,"steps":[{"intrinsic":"avx2_fma_f32","kind":"tensorize","mapping":2,"schema_version":1}]})";
  const Schedule s = schedule_from_string(old);
  EXPECT_FALSE(s.tensorize->schedule.has_value());
  EXPECT_FALSE(s.tensorize->loops.has_value());
  EXPECT_EQ(schedule_to_string(s), old);
}

TEST(ScheduleCodec, KeysAttuneDoesNotReadAreDropped) {
  EXPECT_EQ(schedule_to_string(
                schedule_from_string(R"({"evil":"*/","knobs":{"tile_b":2},"schema_version":1,"target":"vta"})")),
            R"({"knobs":{"tile_b":2},"schema_version":1,"target":"vta"})");
  EXPECT_EQ(
      schedule_to_string(schedule_from_string(
          R"({"schema_version":1,"steps":[{"intrinsic":"x","kind":"tensorize","mapping":1,"schema_version":1,"y":0}]})")),
      R"({"schema_version":1,"steps":[{"intrinsic":"x","kind":"tensorize","mapping":1,"schema_version":1}]})");
}

TEST(ScheduleCodec, MalformedTextNamesTheField) {
  EXPECT_EQ(error_of("[1]"),
            "schedule: expected an object with 'schema_version' and 'steps' (or 'target' and 'knobs')");
  EXPECT_EQ(error_of(R"({"schema_version":2,"steps":[]})"), "schedule: schema_version 2 is not supported (expected 1)");
  EXPECT_EQ(error_of(R"({"schema_version":1})"), "schedule: missing field 'steps'");
  EXPECT_EQ(error_of(R"({"schema_version":1,"steps":{}})"), "schedule: field 'steps' must be an array");
  EXPECT_EQ(error_of(R"({"schema_version":1,"steps":[{"kind":"split","loop":"m"}]})"),
            "schedule: steps[0]: transformation 'split': missing field 'factors'");
  EXPECT_EQ(error_of(R"({"schema_version":1,"steps":[{"kind":"spin"}]})"),
            "schedule: steps[0]: transformation: unknown kind 'spin'");

  const std::string step = R"({"intrinsic":"avx2_fma_f32","kind":"tensorize","mapping":1,"schema_version":1)";
  EXPECT_EQ(error_of(R"({"schema_version":1,"steps":[{"kind":"tensorize","mapping":1,"schema_version":1}]})"),
            "schedule: steps[0]: tensorize step: missing field 'intrinsic'");
  EXPECT_EQ(
      error_of(R"({"schema_version":1,"steps":[)" + step + R"(,"schedule":{"rows":0,"cols":1,"parallel":true}}]})"),
      "schedule: steps[0]: tensorize step: field 'schedule.rows' must be an integer in 1..16");
  EXPECT_EQ(
      error_of(R"({"schema_version":1,"steps":[)" + step + R"(,"schedule":{"rows":1,"cols":1,"parallel":"yes"}}]})"),
      "schedule: steps[0]: tensorize step: field 'schedule.parallel' must be true or false");
  EXPECT_EQ(error_of(R"({"schema_version":1,"steps":[)" + step + R"(,"loops":{"i":"m"}}]})"),
            "schedule: steps[0]: tensorize step: field 'loops' has the wrong type");
  EXPECT_EQ(error_of(R"({"schema_version":1,"steps":[)" + step + R"(},{"kind":"parallel","loop":"m"}]})"),
            "schedule: steps[1]: follows the tensorize step, which ends a schedule");

  EXPECT_EQ(error_of(R"({"knobs":{"tile_q":2},"schema_version":1,"target":"vta"})"),
            "schedule: field 'knobs.tile_q': vta has no such knob (it has tile_b, tile_h, tile_w, tile_ci, tile_co, "
            "oc_nthread, h_nthread)");
  EXPECT_EQ(error_of(R"({"knobs":{"tile_b":0},"schema_version":1,"target":"vta"})"),
            "schedule: field 'knobs.tile_b' must be an integer >= 1, got 0");
  EXPECT_EQ(error_of(R"({"knobs":{"tile_b":1.5},"schema_version":1,"target":"vta"})"),
            "schedule: field 'knobs.tile_b' must be an integer >= 1, got 1.5");
  EXPECT_EQ(error_of(R"({"knobs":[],"schema_version":1,"target":"vta"})"),
            "schedule: field 'knobs' must be an object of knob names and values");
  EXPECT_EQ(error_of(R"({"knobs":{},"schema_version":1,"target":"tpu"})"),
            "schedule: field 'target': 'tpu' is no accelerator with knobs");
  EXPECT_EQ(error_of(R"({"schema_version":1,"target":"vta"})"), "schedule: missing field 'knobs'");
  EXPECT_EQ(error_of(R"({"knobs":{},"schema_version":1,"steps":[],"target":"vta"})"),
            "schedule: has 'steps' and 'knobs': an accelerator's schedule is its knobs alone");
}

TEST(ScheduleCodec, ErrorsNameTheTextBeingRead) {
  try {
    schedule_from_string("{", "record 3's trace");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("record 3's trace: invalid JSON", 0), 0u) << e.what();
  }
}

// trace_from_string is the loop-nest part alone: other shapes are refused, not half-read.
TEST(ScheduleCodec, LoopNestTracesAlone) {
  EXPECT_EQ(trace_to_string(trace_from_string(kFixtureNest)), kFixtureNest);
  try {
    trace_from_string(kFixtureTensorize);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "trace: a tensorize step is not a loop-nest trace");
  }
  EXPECT_THROW(trace_from_string(kFixtureVta), Error);
}

}  // namespace
}  // namespace attune
