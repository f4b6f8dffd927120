// target_error_test.cpp — malformed target files: each gives one exact line naming the file,
// the JSON field path and what is wrong.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "hw/target.hpp"
#include "ir/error.hpp"

namespace attune {
namespace {

using nlohmann::json;

// A small valid cpu target; each case breaks one thing in it.
json base() {
  return json::parse(R"({
    "name": "t", "kind": "cpu", "cores": 2, "vector_bits": 256, "vector_registers": 16,
    "compiler": {"command": "cc", "flags": ["-O3"]},
    "intrinsics": [{
      "name": "fma",
      "compute": "tensor A[1,1] f32; tensor B[1,8] f32; tensor C[1,8] f32; C[i,j] += A[i,k] * B[k,j]",
      "memory": {
        "A": {"scope": "register", "layout": "broadcast"},
        "B": {"scope": "global", "layout": "row_major", "alignment": 32, "stride": {"inner_unit": true}},
        "C": {"scope": "register", "layout": "row_major"}
      },
      "emit": {"kind": "avx2_fma_bcast", "lanes": 8}
    }]
  })");
}

std::string error_of(const std::string& text) {
  try {
    parse_target(text, "targets/x.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string error_of(const std::function<void(json&)>& edit) {
  json j = base();
  edit(j);
  return error_of(j.dump());
}

TEST(TargetErrors, BaseIsValid) {
  Target t = parse_target(base().dump(), "targets/x.json");
  EXPECT_EQ(t.intrinsic("fma").memory_of("A").alignment, 4);  // defaults to the element size
}

TEST(TargetErrors, InvalidJson) {
  EXPECT_EQ(error_of("{\"name\": \"t\",\n  \"kind\" \"cpu\"}"),
            "targets/x.json: invalid JSON: line 2, column 14: syntax error while parsing object separator - "
            "unexpected string literal; expected ':'");
}

TEST(TargetErrors, MissingName) {
  EXPECT_EQ(error_of([](json& j) { j.erase("name"); }), "targets/x.json: name: missing required field");
}

TEST(TargetErrors, UnknownKind) {
  EXPECT_EQ(error_of([](json& j) { j["kind"] = "tpu"; }),
            "targets/x.json: kind: unknown target kind 'tpu' (expected cpu|cuda|vta)");
}

TEST(TargetErrors, BadCores) {
  EXPECT_EQ(error_of([](json& j) { j["cores"] = 0; }), "targets/x.json: cores: must be at least 1, got 0");
  EXPECT_EQ(error_of([](json& j) { j["cores"] = "many"; }),
            "targets/x.json: cores: expected a positive integer or \"auto\", got \"many\"");
}

TEST(TargetErrors, UnknownTopLevelField) {
  EXPECT_EQ(error_of([](json& j) { j["vectorbits"] = 256; }),
            "targets/x.json: vectorbits: unknown field (expected one of: name, kind, arch, cores, vector_bits, "
            "vector_registers, "
            "caches, compiler, intrinsics)");
}

TEST(TargetErrors, ComputeUnknownDtype) {
  EXPECT_EQ(error_of([](json& j) {
              j["intrinsics"][0]["compute"] =
                  "tensor A[1,1] f64; tensor B[1,8] f32; tensor C[1,8] f32; C[i,j] += A[i,k] * B[k,j]";
            }),
            "targets/x.json: intrinsics[0].compute: line 1:15: unknown dtype 'f64' (expected f32, f16, i8, u8 or i32)");
}

TEST(TargetErrors, ComputeIndexNotSingleLoop) {
  EXPECT_EQ(error_of([](json& j) {
              j["intrinsics"][0]["compute"] =
                  "tensor A[2,1] f32; tensor B[1,8] f32; tensor C[1,8] f32; C[i,j] += A[i+1,k] * B[k,j]";
            }),
            "targets/x.json: intrinsics[0].compute: index 'i + 1' of A is not a single loop variable");
}

TEST(TargetErrors, MemoryScope) {
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["memory"]["B"]["scope"] = "sharde"; }),
            "targets/x.json: intrinsics[0].memory.B.scope: unknown scope 'sharde' (expected "
            "global|shared|register|fragment|acc_buffer|inp_buffer|wgt_buffer)");
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["memory"]["B"]["scope"] = "fragment"; }),
            "targets/x.json: intrinsics[0].memory.B.scope: scope 'fragment' is not available on a cpu target");
}

TEST(TargetErrors, MemoryEntries) {
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["memory"].erase("B"); }),
            "targets/x.json: intrinsics[0].memory: missing entry for tensor 'B'");
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["memory"]["D"] = json::object(); }),
            "targets/x.json: intrinsics[0].memory.D: no tensor 'D' in the compute abstraction");
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["memory"]["A"]["layout"] = "diagonal"; }),
            "targets/x.json: intrinsics[0].memory.A.layout: unknown layout 'diagonal' (expected "
            "row_major|col_major|broadcast|vnni|blocked)");
}

TEST(TargetErrors, MemoryAlignmentAndStride) {
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["memory"]["B"]["alignment"] = 24; }),
            "targets/x.json: intrinsics[0].memory.B.alignment: alignment 24 is not a power of two");
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["memory"]["B"]["stride"]["inner_unit"] = "yes"; }),
            "targets/x.json: intrinsics[0].memory.B.stride.inner_unit: expected true or false, got \"yes\"");
}

TEST(TargetErrors, EmitLanesAndKind) {
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["emit"]["lanes"] = 16; }),
            "targets/x.json: intrinsics[0].emit.lanes: 16 lanes do not match the extent 8 of the output's "
            "innermost loop 'j'");
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0]["emit"]["kind"] = "wmma"; }),
            "targets/x.json: intrinsics[0].emit.kind: unknown emit kind 'wmma' for a cpu target (expected "
            "avx2_fma_bcast|avx512_fma_bcast|avx512_vnni)");
  EXPECT_NE(error_of([](json& j) { j.erase("vector_registers"); }).find("vector_registers"), std::string::npos);
  EXPECT_EQ(error_of([](json& j) { j["vector_bits"] = 128; }),
            "targets/x.json: intrinsics[0].emit.lanes: 8 lanes of f32 exceed the target's 128-bit vectors");
}

TEST(TargetErrors, IntrinsicFields) {
  EXPECT_EQ(
      error_of([](json& j) { j["intrinsics"][0]["memroy"] = json::object(); }),
      "targets/x.json: intrinsics[0].memroy: unknown field (expected one of: name, compute, memory, emit, config)");
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"].push_back(j["intrinsics"][0]); }),
            "targets/x.json: intrinsics[1].name: duplicate intrinsic 'fma'");
  EXPECT_EQ(error_of([](json& j) { j["intrinsics"][0].erase("emit"); }),
            "targets/x.json: intrinsics[0].emit: missing required field");
}

TEST(TargetErrors, CudaShapeMustMatchCompute) {
  json j = json::parse(R"({
    "name": "g", "kind": "cuda", "cores": 1, "compiler": {"command": "nvcc"},
    "intrinsics": [{
      "name": "m", "compute": "tensor A[16,16] f16; tensor B[16,8] f16; tensor C[16,8] f32; C[i,j] += A[i,k] * B[k,j]",
      "memory": {"A": {"scope": "fragment", "layout": "row_major"}, "B": {"scope": "fragment", "layout": "col_major"},
                 "C": {"scope": "fragment", "layout": "row_major"}},
      "emit": {"kind": "mma_sync", "ptx": "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "shape": [16, 16, 16]}
    }]})");
  EXPECT_EQ(error_of(j.dump()),
            "targets/x.json: intrinsics[0].emit.shape: [16,16,16] does not match the compute abstraction's extents "
            "[16,8,16]");
}

TEST(TargetErrors, MissingFileAndUnknownName) {
  try {
    load_target("/nonexistent/x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/x.json: cannot open file");
  }
  try {
    load_target("tpu-v5");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown target 'tpu-v5' (known: ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace attune
