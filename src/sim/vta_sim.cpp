// run_vta: the three modules and their token queues (see sim/vta_sim.hpp).
//
// Event order: among the modules whose next instruction has every token it pops, the one that
// can start earliest runs next (ties: load, compute, store). Start times therefore never go
// backwards, so the shared DRAM channel is granted in time order, and a correctly synchronised
// program computes the same data in every order the hardware could pick. When no module can
// start and some still have instructions, the program is deadlocked.
#include <algorithm>
#include <array>
#include <deque>
#include <exception>
#include <limits>
#include <sstream>

#include "sim/vta_sim.hpp"
#include "vta_check.hpp"
#include "vta_exec.hpp"
#include "vta_state.hpp"
#include "vta_timing.hpp"

namespace attune {

using vta_detail::Check;
using vta_detail::Fault;
using vta_detail::Module;

namespace {

enum Queue : int { l2g = 0, g2l = 1, g2s = 2, s2g = 3, none = -1 };
constexpr const char* kQueueName[] = {"l2g", "g2l", "g2s", "s2g"};
constexpr const char* kModuleName[] = {"load", "compute", "store"};

struct Ports {
  std::array<Queue, 2> pop{none, none};
  std::array<Queue, 2> push{none, none};
};

// check_static has already refused flags a module cannot honour.
Ports ports_of(const VtaInsn& in, Module m) {
  Ports p;
  const VtaDeps& d = in.deps;
  switch (m) {
    case Module::load:
      if (d.pop_next) p.pop[0] = g2l;
      if (d.push_next) p.push[0] = l2g;
      break;
    case Module::compute:
      if (d.pop_prev) p.pop[0] = l2g;
      if (d.pop_next) p.pop[1] = s2g;
      if (d.push_prev) p.push[0] = g2l;
      if (d.push_next) p.push[1] = g2s;
      break;
    case Module::store:
      if (d.pop_prev) p.pop[0] = g2s;
      if (d.push_prev) p.push[0] = s2g;
      break;
  }
  return p;
}

std::string describe(std::size_t idx, const VtaInsn& in) {
  std::ostringstream os;
  os << "insn " << idx << " (" << vta_opcode_name(in.opcode);
  if (in.opcode == VtaOpcode::load || in.opcode == VtaOpcode::store) os << " " << vta_mem_name(in.mem);
  os << ")";
  return os.str();
}

class Machine {
 public:
  Machine(const VtaProgram& prog, std::span<std::uint8_t> dram, const VtaConfig& cfg, VtaMode mode, VtaResult& r)
      : prog_(prog), dram_(dram), cfg_(cfg), data_(mode == VtaMode::functional), r_(r), sram_(cfg, data_) {}

  void run() {
    if (!validate()) return;
    for (std::size_t i = 0; i < prog_.insns.size(); ++i)
      stream_[static_cast<int>(vta_detail::module_of(prog_.insns[i]))].push_back(i);
    while (step()) {
    }
    r_.total_cycles = *std::max_element(clock_.begin(), clock_.end());
  }

 private:
  bool validate() {
    std::int64_t at = -1;
    if (Check c = vta_detail::check_program(prog_, at)) return fail(at, *c);
    for (std::size_t i = 0; i < prog_.insns.size(); ++i)
      if (Check c = vta_detail::check_static(prog_.insns[i])) return fail(std::int64_t(i), *c);
    return true;
  }

  bool fail(std::int64_t idx, const Fault& f) {
    r_.status = Status::runtime_error;
    r_.error_kind = f.kind;
    r_.error_insn = idx;
    r_.error = idx >= 0 ? describe(std::size_t(idx), prog_.insns[std::size_t(idx)]) + ": " + f.message : f.message;
    return false;
  }

  // Runs one instruction; false when the program is over (done or faulted).
  bool step() {
    int best = -1;
    std::uint64_t best_start = std::numeric_limits<std::uint64_t>::max();
    for (int m = 0; m < 3; ++m) {
      if (pos_[m] == stream_[m].size()) continue;
      const Ports p = ports_of(prog_.insns[stream_[m][pos_[m]]], Module(m));
      bool ready = true;
      std::uint64_t start = clock_[m];
      for (Queue q : p.pop) {
        if (q == none) continue;
        if (tokens_[q].empty())
          ready = false;
        else
          start = std::max(start, tokens_[q].front());
      }
      if (ready && start < best_start) {
        best = m;
        best_start = start;
      }
    }
    if (best >= 0) return execute(Module(best), best_start);
    for (int m = 0; m < 3; ++m)
      if (pos_[m] < stream_[m].size()) return deadlock();
    return false;
  }

  bool deadlock() {
    std::ostringstream os;
    os << "deadlock:";
    std::size_t first = prog_.insns.size();
    for (int m = 0; m < 3; ++m) {
      os << (m ? "; " : " ") << kModuleName[m] << " module ";
      if (pos_[m] == stream_[m].size()) {
        os << "is done";
        continue;
      }
      const std::size_t idx = stream_[m][pos_[m]];
      first = std::min(first, idx);
      os << "waits at " << describe(idx, prog_.insns[idx]) << " for";
      const char* sep = " ";
      for (Queue q : ports_of(prog_.insns[idx], Module(m)).pop) {
        if (q == none || !tokens_[q].empty()) continue;
        os << sep << "a " << kQueueName[q] << " token";
        sep = " and ";
      }
    }
    r_.status = Status::runtime_error;
    r_.error_kind = VtaErrorKind::deadlock;
    r_.error_insn = std::int64_t(first);
    r_.error = os.str();
    return false;
  }

  bool execute(Module m, std::uint64_t start) {
    const int mi = static_cast<int>(m);
    const std::size_t idx = stream_[mi][pos_[mi]];
    const VtaInsn& in = prog_.insns[idx];
    const Ports p = ports_of(in, m);
    for (Queue q : p.pop)
      if (q != none) tokens_[q].pop_front();

    std::uint64_t end = start;
    switch (in.opcode) {
      case VtaOpcode::load:
      case VtaOpcode::store: {
        if (Check c = vta_detail::check_dma(in, cfg_, dram_.size())) return fail(std::int64_t(idx), *c);
        end = vta_detail::dma_end(in, cfg_, start, channel_);
        if (in.opcode == VtaOpcode::load)
          vta_detail::exec_load(in, cfg_, dram_, sram_, data_);
        else if (data_)
          vta_detail::exec_store(in, cfg_, dram_, sram_);
        r_.dma_bytes[static_cast<int>(in.mem)] += vta_detail::dma_bytes(in, cfg_);
        if (in.mem == VtaMemType::uop) r_.uops_loaded += std::uint64_t(in.y_size) * in.x_size;
        break;
      }
      case VtaOpcode::gemm:
      case VtaOpcode::alu: {
        if (Check c = vta_detail::check_loop(in, cfg_, sram_.uop)) return fail(std::int64_t(idx), *c);
        end = start + vta_detail::compute_cycles(in, cfg_);
        const std::uint64_t iters = vta_detail::loop_iters(in);
        if (in.opcode == VtaOpcode::gemm) {
          r_.gemm_uop_iters += iters;
          if (!in.reset) r_.macs += iters * cfg_.batch() * cfg_.block_in() * cfg_.block_out();
          if (data_) vta_detail::exec_gemm(in, cfg_, sram_);
        } else {
          r_.alu_uop_iters += iters;
          if (data_) vta_detail::exec_alu(in, cfg_, sram_);
        }
        break;
      }
      case VtaOpcode::finish: end = start + vta_detail::compute_cycles(in, cfg_); break;
    }
    r_.insn_count[static_cast<int>(in.opcode)] += 1;
    busy(m) += end - start;
    clock_[mi] = end;
    for (Queue q : p.push)
      if (q != none) tokens_[q].push_back(end);
    ++pos_[mi];
    return true;
  }

  std::uint64_t& busy(Module m) {
    switch (m) {
      case Module::load: return r_.load_busy_cycles;
      case Module::compute: return r_.compute_busy_cycles;
      case Module::store: break;
    }
    return r_.store_busy_cycles;
  }

  const VtaProgram& prog_;
  std::span<std::uint8_t> dram_;
  const VtaConfig& cfg_;
  const bool data_;
  VtaResult& r_;
  vta_detail::VtaSram sram_;
  vta_detail::DramChannel channel_;
  std::array<std::vector<std::size_t>, 3> stream_;  // instruction indices per module, in order
  std::array<std::size_t, 3> pos_{};
  std::array<std::uint64_t, 3> clock_{};             // when each module is next free
  std::array<std::deque<std::uint64_t>, 4> tokens_;  // arrival times of pending tokens
};

}  // namespace

std::string_view vta_error_kind_name(VtaErrorKind k) {
  switch (k) {
    case VtaErrorKind::none: return "none";
    case VtaErrorKind::bad_insn: return "bad_insn";
    case VtaErrorKind::buffer_overflow: return "buffer_overflow";
    case VtaErrorKind::uop_overflow: return "uop_overflow";
    case VtaErrorKind::dram_out_of_range: return "dram_out_of_range";
    case VtaErrorKind::acc_hazard: return "acc_hazard";
    case VtaErrorKind::deadlock: return "deadlock";
  }
  return "unknown";
}

VtaResult run_vta(const VtaProgram& prog, std::span<std::uint8_t> dram, const VtaConfig& cfg, VtaMode mode) {
  VtaResult r;
  // The boundary of the run API: nothing escapes but the result (bad_alloc of a huge config
  // included).
  try {
    validate_vta_config(cfg, "VtaConfig '" + cfg.name + "'");
    Machine(prog, dram, cfg, mode, r).run();
  } catch (const std::exception& e) {
    r.status = Status::runtime_error;
    r.error = std::string("simulator failure: ") + e.what();
  }
  return r;
}

}  // namespace attune
