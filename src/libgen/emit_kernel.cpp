// emit_kernel.cpp — src/kernels/<symbol>.c: one tuned kernel, as the CPU backend wrote it,
// behind a header that says where it came from and how fast it was.
//
// The codegen output exports `attune_kernel`; the only change made to it is that name,
// replaced by the kernel's unique symbol, so every kernel can live in one library.
#include <iomanip>
#include <sstream>

#include "codegen/artifact.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "libgen/library.hpp"

namespace attune::libgen {

namespace {

// "/usr/bin/cc | cc (Debian 12.2.0-14) 12.2.0" -> "cc (Debian 12.2.0-14) 12.2.0": the version
// says what matters, and the generated tree keeps no absolute paths.
std::string compiler_without_path(const std::string& c) {
  const auto bar = c.find(" | ");
  if (bar != std::string::npos) return c.substr(bar + 3);
  const auto slash = c.rfind('/');
  return slash == std::string::npos ? c : c.substr(slash + 1);
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

std::string family_params_text(const Kernel& k) {
  if (!k.match) return "";
  std::string s;
  for (const auto& f : k.match->family->fields) s += (s.empty() ? "" : " ") + f.name + "=" + k.match->params.at(f.name);
  const auto ep = k.match->params.find("epilogue");  // contraction families only
  if (ep != k.match->params.end() && ep->second != "none") s += " epilogue=" + ep->second;
  return s;
}

std::string emit_kernel_file(const Library& lib, const Kernel& k) {
  Artifact a;
  a.source = k.source;
  const std::string body = source_with_entry(a, k.symbol);

  const Record& r = k.best;
  std::ostringstream os;
  os << "/* " << lib.name << ": tuned kernel " << k.symbol << "\n *\n";
  std::ostringstream info;
  info << "task:      " << k.task.name << "\n";
  if (k.match)
    info << "family:    " << k.match->family->name << " (" << family_params_text(k) << "), reached through " << k.entry
         << "()\n";
  else
    info << "entry:     " << k.entry << "(void* const* buffers), fixed shapes\n";
  info << "target:    " << k.task.target << (lib.target_arch.empty() ? "" : " (" + lib.target_arch + ")") << "\n";
  info << std::fixed << std::setprecision(4) << "measured:  " << r.median_s * 1e3 << " ms median of "
       << r.times_s.size() << " repeats, " << std::setprecision(2) << k.gflops << " GFLOP/s, " << std::scientific
       << std::setprecision(1) << r.max_rel_error << " max rel. error vs the reference\n";
  info << "recorded:  " << r.created_at << " (record " << r.id << ", trial " << r.trial << ", strategy " << r.strategy
       << ", seed " << r.seed << ")\n";
  info << "compiler:  " << compiler_without_path(r.compiler) << "\n";
  info << "flags:     " << joined(r.flags) << " (as measured; the library builds with: " << joined(lib.flags) << ")\n";
  info << "generated: " << lib.generated_at << " by attune libgen; below, attune's CPU code for the trace\n";
  os << c_comment_lines(info.str()) << " */\n\n" << body;
  return os.str();
}

}  // namespace attune::libgen
