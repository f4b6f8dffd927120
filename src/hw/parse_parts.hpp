// hw/parse_parts.hpp — the pieces of target-file validation, one concern per source file:
//   intrinsic_parse.cpp  an intrinsic's compute and memory abstractions
//   emit_rules.cpp       which `emit` kinds each target kind supports, and their fields
//   vta_config.cpp       parameters (BATCH, BLOCK_IN, ...) read from a referenced config file
//   target_parse.cpp     the target object that holds them
#pragma once

#include <map>
#include <string>

#include "hw/json_node.hpp"
#include "hw/target.hpp"

namespace attune::hw {

// What an intrinsic's checks need to know about the target around it.
struct TargetContext {
  TargetKind kind = TargetKind::cpu;
  int vector_bits = 0;
  std::string base_dir;  // directory of the target file, for relative config references
};

Intrinsic parse_intrinsic(const JsonNode& node, const TargetContext& ctx);

// Validates node (the `emit` object) against the intrinsic's compute abstraction and returns
// its kind.
std::string check_emit(const JsonNode& node, const Intrinsic& intr, const TargetContext& ctx);

// Resolves the intrinsic's `config` object ({"ref": "vta/default.json", "defaults": {...}}):
// the referenced file's values win over the inline defaults; a missing file falls back to the
// defaults. Returns the parameters and sets config_path to the file used ("" for defaults).
std::map<std::string, std::int64_t> resolve_config(const JsonNode& node, const TargetContext& ctx,
                                                   std::string& config_path);

}  // namespace attune::hw
