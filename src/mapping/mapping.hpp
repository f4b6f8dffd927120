// mapping/mapping.hpp — which op loops feed which intrinsic loops (AMOS mapping, the mapping/ stage).
//
// A one-to-one match gives every intrinsic loop exactly one op loop of the same kind (spatial
// to spatial, reduction to reduction) and pairs the operands by role (output with output,
// inputs with inputs). It is valid when, after substituting the matched op loops by the
// intrinsic's loops and fixing every other loop, each op operand's access equals the intrinsic
// operand's up to a positive stride per loop and a constant offset: every op-tensor dimension
// holds either no matched loop or `stride * one intrinsic loop`, and the intrinsic loops that
// appear correspond one to one with the intrinsic operand's dimensions (their order is a layout
// matter, left to the memory abstraction's staging). Unions of valid matches fuse several op
// loops into one intrinsic loop (im2col-like staging realises them). Extents that do not fill
// the intrinsic are padded with guards.
//
// Example: NCHW conv2d onto the 16x16x16 mma has 7 valid one-to-one matches and 35 mappings.
// Tests: tests/mapping/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/target.hpp"
#include "ir/op.hpp"

namespace attune {

struct LoopAssignment {
  std::string intrinsic_loop;         // "i"
  std::vector<std::string> op_loops;  // in the op's var order; fused when more than one
  std::int64_t extent = 0;            // the intrinsic loop's extent
  std::int64_t op_extent = 0;         // product of the op loops' extents
};

struct Mapping {
  std::string intrinsic;
  std::vector<LoopAssignment> loops;              // one per intrinsic loop, in its var order
  std::map<std::string, std::string> operand_of;  // intrinsic tensor -> op tensor
  bool valid = false;
  std::string reason;                  // why not, when !valid
  double padding_waste = 0.0;          // 1 - useful / padded iterations
  std::int64_t padded_iterations = 0;  // the op's domain with mapped loops rounded up
  std::int64_t useful_iterations = 0;  // the op's domain (its MACs)

  bool one_to_one() const;
  std::string str() const;  // "i<-p j<-k kk<-c,r"
};

struct MappingOptions {
  bool no_pad = false;        // a mapping whose extents do not fill the intrinsic is invalid
  bool ignore_dtype = false;  // match structure only (shows what a cast would allow)
  // Guard against combinatorial blow-up: unions beyond this many are not enumerated and the
  // report's reason says so.
  std::size_t max_unions = 100000;
};

struct MappingReport {
  std::string intrinsic;
  int one_to_one = 0;          // valid one-to-one matches
  int mappings = 0;            // valid mappings (one-to-one matches included)
  std::vector<Mapping> items;  // one-to-one candidates (valid or not), then fused unions
  std::string reason;          // why the count is zero (or a note, e.g. truncation); else empty
};

MappingReport enumerate_mappings(const Op& op, const Intrinsic& intrinsic, const MappingOptions& options = {});

// {"intrinsic": ..., "one_to_one": N, "mappings": M, "reason": ..., "items": [...]}
nlohmann::json to_json(const Mapping& m);
nlohmann::json to_json(const MappingReport& r);
// A table for people: one row per item, valid ones first within each group.
std::string render_table(const MappingReport& r, bool include_invalid = true);

}  // namespace attune
