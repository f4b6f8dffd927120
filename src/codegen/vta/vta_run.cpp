// Running a compiled VTA program: timing mode for tuning, functional mode for the check
// against the reference evaluator.
#include <chrono>

#include "codegen/codegen_vta.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"

namespace attune {

namespace {

// Full-range int8 inputs (Buffer::fill_random draws only [-8, 7]): large values make the
// int32 results use all four byte planes, so the reassembly is checked too.
void fill_full_range(Buffer& b, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  auto* d = b.as<std::int8_t>();
  for (std::int64_t i = 0; i < b.numel(); ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
    d[i] = static_cast<std::int8_t>(x >> 24);
  }
}

// make_buffers(op, seed) with full-range int8 input and weight.
std::vector<Buffer> vta_inputs(const Op& op, const VtaProblem& p, std::uint64_t seed) {
  std::vector<Buffer> tensors = make_buffers(op, seed);
  fill_full_range(tensors[std::size_t(p.in_tensor)], seed + 1);
  fill_full_range(tensors[std::size_t(p.wgt_tensor)], seed + 2);
  return tensors;
}

}  // namespace

VtaTimed vta_time(const VtaCompiled& c, const VtaConfig& cfg) {
  VtaTimed t;
  t.hidden = c.hidden;
  if (!c.ok()) {
    t.m.status = c.status;
    t.m.error = c.error;
    return t;
  }
  // Timing mode reads only the micro-ops; the rest of the region only has to exist.
  std::vector<std::uint8_t> dram(c.image.bytes, 0);
  write_uops(dram, c.image.uop_off, c.uops);
  const VtaResult r = run_vta(c.program, dram, cfg, VtaMode::timing);
  t.cycles = r.total_cycles;
  t.error_kind = r.error_kind;
  t.hidden["cycles"] = r.total_cycles;
  t.hidden["busy_cycles"] = {
      {"load", r.load_busy_cycles}, {"compute", r.compute_busy_cycles}, {"store", r.store_busy_cycles}};
  if (!r.ok()) {
    t.m.status = Status::runtime_error;
    t.m.error = "vta runtime error (" + std::string(vta_error_kind_name(r.error_kind)) + "): " + r.error;
    t.hidden["runtime_error"] = vta_error_kind_name(r.error_kind);
    return t;
  }
  t.m.status = Status::ok;
  t.m.median_s = double(r.total_cycles) / kVtaClockHz;
  t.m.times_s = {t.m.median_s};
  return t;
}

Measurement vta_verify(const Op& op, const VtaCompiled& c, const VtaConfig& cfg, std::uint64_t seed,
                       const Buffer* reference) {
  Measurement m;
  if (!c.ok()) {
    m.status = c.status;
    m.error = c.error;
    return m;
  }
  const VtaProblem p = vta_problem_of(op);
  std::vector<Buffer> tensors = vta_inputs(op, p, seed);
  Buffer want;
  if (!reference) {
    want = vta_reference_output(op, seed);
    reference = &want;
  }
  std::vector<std::uint8_t> dram = vta_make_dram(op, c, cfg, &tensors);
  const VtaResult r = run_vta(c.program, dram, cfg, VtaMode::functional);
  if (!r.ok()) {
    m.status = Status::runtime_error;
    m.error = "vta runtime error (" + std::string(vta_error_kind_name(r.error_kind)) + "): " + r.error;
    return m;
  }
  Buffer& got = tensors[std::size_t(p.out_tensor)];
  vta_read_output(op, c, cfg, dram, got);
  const Comparison cmp = compare(got, *reference);
  m.max_rel_error = cmp.max_rel_error;
  m.median_s = double(r.total_cycles) / kVtaClockHz;
  m.times_s = {m.median_s};
  if (!cmp.ok) {
    m.status = Status::wrong_result;
    m.error = "vta output differs from the reference evaluator: " + cmp.str();
    m.median_s = 0;
    return m;
  }
  m.status = Status::ok;
  return m;
}

// The reference for vta_verify(op, ..., seed): the evaluator's output on the same inputs.
Buffer vta_reference_output(const Op& op, std::uint64_t seed) {
  const VtaProblem p = vta_problem_of(op);
  std::vector<Buffer> tensors = vta_inputs(op, p, seed);
  evaluate(op, tensors);
  return std::move(tensors[std::size_t(p.out_tensor)]);
}

}  // namespace attune
