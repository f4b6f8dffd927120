// object_features(): counts read off a built kernel's machine code (runtime.hpp).
//
// objdump's AT&T listing puts the destination last, so an instruction whose last operand is a
// memory reference stores and one with a memory reference elsewhere loads. Stack-relative
// vector accesses are register spills and reloads: the symptom of a register tile too big for
// the register file, which is exactly what a model cannot see before compiling.
#include <sstream>

#include "runtime/runtime.hpp"
#include "runtime/subprocess.hpp"

namespace attune {

namespace {

bool is_vector_operand(const std::string& ops) {
  return ops.find("%ymm") != std::string::npos || ops.find("%xmm") != std::string::npos ||
         ops.find("%zmm") != std::string::npos;
}

}  // namespace

nlohmann::json object_features(const std::string& so_path, const std::string& entry) {
  const std::string objdump = runtime::find_program("objdump");
  if (objdump.empty()) return nlohmann::json::object();
  runtime::ProcessOptions po;
  po.timeout_s = 30;
  po.max_output = 64u << 20;
  const auto r = runtime::run_process({objdump, "-d", "--no-show-raw-insn", so_path}, po);
  if (!r.exited_ok()) return nlohmann::json::object();

  long fma = 0, vloads = 0, vstores = 0, spill_st = 0, spill_ld = 0, branches = 0, calls = 0, insns = 0, functions = 0;
  unsigned long long code_bytes = 0, fn_first = 0, fn_last = 0;
  bool in_kernel = false;
  auto close_fn = [&] {
    if (in_kernel && fn_last >= fn_first) code_bytes += fn_last - fn_first + 1;
  };
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    // "0000000000001120 <attune_kernel._omp_fn.0>:" starts a function.
    const auto lt = line.find(" <");
    if (!line.empty() && line.back() == ':' && lt != std::string::npos && line[0] != ' ') {
      close_fn();
      const std::string name = line.substr(lt + 2, line.size() - lt - 4);
      in_kernel = name == entry || name.rfind(entry + ".", 0) == 0 || name.rfind(entry + "._omp", 0) == 0;
      if (in_kernel) {
        ++functions;
        fn_first = std::stoull(line.substr(0, lt), nullptr, 16);
        fn_last = fn_first;
      }
      continue;
    }
    if (!in_kernel) continue;
    // "    1130:\tvfmadd231ps (%rax),%ymm1,%ymm0"
    const auto colon = line.find(":\t");
    if (colon == std::string::npos) continue;
    try {
      fn_last = std::stoull(line.substr(0, colon), nullptr, 16);
    } catch (const std::exception&) {
      continue;
    }
    std::string text = line.substr(colon + 2);
    const auto sp = text.find_first_of(" \t");
    const std::string mnem = text.substr(0, sp);
    const std::string ops = sp == std::string::npos ? "" : text.substr(text.find_first_not_of(" \t", sp));
    ++insns;
    if (mnem.empty()) continue;
    if (mnem[0] == 'j') ++branches;
    if (mnem.rfind("call", 0) == 0) ++calls;
    if ((mnem.rfind("vfmadd", 0) == 0 || mnem.rfind("vfnmadd", 0) == 0 || mnem.rfind("vfmsub", 0) == 0) &&
        (mnem.ends_with("ps") || mnem.ends_with("pd")))
      ++fma;
    const auto paren = ops.find('(');
    if (paren == std::string::npos || !is_vector_operand(ops)) continue;
    const bool store = ops.back() == ')';
    const bool stack = ops.find("(%rsp") != std::string::npos || ops.find("(%rbp") != std::string::npos;
    if (stack)
      (store ? spill_st : spill_ld) += 1;
    else
      (store ? vstores : vloads) += 1;
  }
  close_fn();
  return {{"fma", fma},
          {"vector_loads", vloads},
          {"vector_stores", vstores},
          {"spill_stores", spill_st},
          {"spill_loads", spill_ld},
          {"branches", branches},
          {"calls", calls},
          {"instructions", insns},
          {"code_bytes", code_bytes},
          {"functions", functions}};
}

}  // namespace attune
