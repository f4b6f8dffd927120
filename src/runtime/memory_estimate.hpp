// runtime/memory_estimate.hpp — how much memory measuring an op takes, checked before any of
// it is allocated (part of the runtime stage, which makes the copies).
//
// Checking one candidate keeps, at its peak, in the calling process: every tensor
// (make_buffers) and the reference output's bytes written to a file (in /tmp, often memory);
// and in the attune-worker process: every tensor again, the reference read back (its bytes and
// a Buffer) and the kernel's own packed copies (at most the inputs once more). So
//   estimate = 3 x (input tensor bytes) + 5 x (output tensor bytes)
// where the reference file counts once more with the output. A spec that fits in RAM plus swap
// but not in memory would meet the OOM killer on a shared machine; `attune verify` and
// `attune tune` refuse such an op up front (--max-memory, default half of physical memory).
//
// Tests: tests/runtime/memory_estimate_test.cpp, tests/cli/errors_test.sh.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/op.hpp"

namespace attune {

// The estimate above, in bytes.
std::uint64_t measurement_memory_bytes(const Op& op);

// Half of the machine's physical memory (sysconf), or 4 GiB when it cannot be read.
std::uint64_t default_memory_limit();

// "4G", "512M", "64k", "1.5G", "1000000" (bytes; K/M/G/T are powers of 1024, an optional
// trailing "B" or "iB" is accepted) -> bytes. Throws Error naming `what` for anything else.
std::uint64_t parse_byte_size(std::string_view text, const std::string& what);

// "1.5 GiB", "512 MiB", "12 KiB", "100 B".
std::string format_bytes(std::uint64_t bytes);

// Throws Error when measurement_memory_bytes(op) exceeds `limit`: the message gives both
// numbers and how to raise the limit.
void check_memory_limit(const Op& op, std::uint64_t limit);

}  // namespace attune
