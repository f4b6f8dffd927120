// Builder: C artifacts -> shared objects in a content-addressed cache.
//
// Cache layout: <dir>/<key>.c (the source as given) and <dir>/<key>.so, where key hashes the
// compiler (path and version), the flags and the source. Both are written by rename from a
// temporary, so a killed build leaves at most a stray *.tmp.<pid>.<n> file, never a truncated
// .so; each Builder removes the strays of dead processes when it starts.
// A hit also needs the stored .c to equal the source byte for byte, which guards against hash
// collisions. Failed builds are not cached: their cause (a missing header, a full disk) may be
// fixed between runs.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "ir/error.hpp"
#include "runtime/files.hpp"
#include "runtime/hash.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/runtime.hpp"
#include "runtime/subprocess.hpp"

namespace attune {

namespace {

using runtime::file_exists;
using runtime::read_file;

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::istringstream in(s);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string default_cache_dir() {
  if (const char* d = std::getenv("ATTUNE_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/attune";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/attune";
  throw Error("no cache directory: set ATTUNE_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

// The compiler's diagnostics: stderr, then stdout (some compilers print errors there), without
// trailing blank lines. run_process caps each at 1 MiB.
std::string compiler_message(const runtime::ProcessResult& p) {
  std::string msg = p.err;
  if (!p.out.empty()) msg += (msg.empty() ? "" : "\n") + p.out;
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return msg;
}

struct Compiler {
  std::vector<std::string> argv;  // resolved path, then the leading arguments
  std::string info;
};

// Finds the compiler (`spec` empty: $CC, else "cc") and asks it for its version.
Compiler resolve_compiler(const std::string& spec_or_empty) {
  const std::string spec = spec_or_empty.empty() ? env_or("CC", "cc") : spec_or_empty;
  Compiler c{split_words(spec), ""};
  if (c.argv.empty()) throw Error("empty compiler command (CC or BuildOptions::compiler)");
  const std::string path = runtime::find_program(c.argv[0]);
  if (path.empty()) throw Error("compiler '" + c.argv[0] + "' not found in PATH (set CC to a C compiler)");
  c.argv[0] = path;

  std::vector<std::string> version_cmd = c.argv;
  version_cmd.push_back("--version");
  runtime::ProcessOptions popts;
  popts.timeout_s = 30;
  auto v = runtime::run_process(version_cmd, popts);
  if (!v.exited_ok())
    throw Error("compiler '" + path +
                "' did not answer --version: " + (v.started ? compiler_message(v) : v.spawn_error));
  c.info = path + " | " + v.out.substr(0, v.out.find('\n'));
  for (std::size_t i = 1; i < c.argv.size(); ++i) c.info += " " + c.argv[i];
  return c;
}

}  // namespace

Builder::Builder(BuildOptions options) : options_(std::move(options)) {
  Compiler c = resolve_compiler(options_.compiler);
  compiler_argv_ = std::move(c.argv);
  compiler_info_ = std::move(c.info);

  cache_dir_ = options_.cache_dir.empty() ? default_cache_dir() : options_.cache_dir;
  std::error_code ec;
  std::filesystem::create_directories(cache_dir_, ec);
  if (ec || !std::filesystem::is_directory(cache_dir_, ec))
    throw Error("cannot create cache directory '" + cache_dir_ + "': " + ec.message());
  runtime::remove_stale_temp_files(cache_dir_);
}

std::string Builder::cache_key(const Artifact& artifact) const {
  runtime::Fnv1a64 h;
  h.field("attune-build-v1").field(compiler_info_);
  for (const auto& a : compiler_argv_) h.field(a);
  h.field(artifact.language).field(std::to_string(artifact.flags.size()));
  for (const auto& f : artifact.flags) h.field(f);
  h.field(artifact.source);
  return h.hex();
}

BuildResult Builder::build(const Artifact& artifact) const {
  BuildResult r;
  if (artifact.language != "c") {
    r.error = "the builder compiles language \"c\" only, not \"" + artifact.language + "\"";
    return r;
  }
  const std::string base = cache_dir_ + "/" + cache_key(artifact);
  const std::string src = base + ".c", so = base + ".so";
  if (file_exists(so) && read_file(src) == artifact.source) {
    r.ok = r.cached = true;
    r.so_path = so;
    return r;
  }

  try {
    runtime::write_file_atomic(src, artifact.source);
  } catch (const Error& e) {
    r.error = e.what();
    return r;
  }
  const std::string tmp_so = runtime::temp_name_for(so);
  std::vector<std::string> argv = compiler_argv_;
  argv.insert(argv.end(), {"-shared", "-fPIC"});
  argv.insert(argv.end(), artifact.flags.begin(), artifact.flags.end());
  argv.insert(argv.end(), {"-o", tmp_so, src});

  runtime::ProcessOptions popts;
  popts.timeout_s = options_.timeout_s;
  auto p = runtime::run_process(argv, popts);
  r.compile_s = p.wall_s;
  if (p.exited_ok() && file_exists(tmp_so) && std::rename(tmp_so.c_str(), so.c_str()) == 0) {
    r.ok = true;
    r.so_path = so;
    return r;
  }
  std::remove(tmp_so.c_str());
  if (!p.started)
    r.error = p.spawn_error;
  else if (p.timed_out)
    r.error = fmt::format("compiler timed out after {} s", options_.timeout_s);
  else if (p.signal != 0)
    r.error = "compiler killed by " + signal_name(p.signal);
  else if (p.exit_code != 0)
    r.error = compiler_message(p);
  else
    r.error = "compiler succeeded but '" + tmp_so + "' could not be moved into the cache";
  if (r.error.empty()) r.error = "compiler exited with code " + std::to_string(p.exit_code);
  return r;
}

std::vector<BuildResult> Builder::build_batch(const std::vector<Artifact>& artifacts) const {
  // Compile each distinct artifact once; duplicates share the result.
  std::vector<std::size_t> first_of(artifacts.size());
  std::vector<std::size_t> unique;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    auto [it, fresh] = seen.emplace(cache_key(artifacts[i]), i);
    first_of[i] = it->second;
    if (fresh) unique.push_back(i);
  }

  std::vector<BuildResult> results(artifacts.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t u; (u = next++) < unique.size();) {
      const std::size_t i = unique[u];
      try {
        results[i] = build(artifacts[i]);
      } catch (const std::exception& e) {  // e.g. out of memory: fail this one, keep the batch
        results[i] = BuildResult{};
        results[i].error = e.what();
      }
    }
  };
  unsigned jobs =
      options_.jobs > 0 ? static_cast<unsigned>(options_.jobs) : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(unique.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(work);
  work();  // this thread works too
  for (auto& t : pool) t.join();

  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    if (first_of[i] == i) continue;
    results[i] = results[first_of[i]];
    if (results[i].ok) {  // it did not cost a compile of its own
      results[i].cached = true;
      results[i].compile_s = 0;
    }
  }
  return results;
}

std::string compiler_info() { return resolve_compiler("").info; }

}  // namespace attune
