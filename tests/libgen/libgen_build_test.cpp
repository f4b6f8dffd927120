// Correctness, end to end (the issue's "done when"): tune two small tasks with a tiny budget,
// add hand-recorded tasks for every other family plus a raw spec and an int8 task, generate
// the library, build and install it with CMake, build a separate consumer program against the
// installed package with find_package(), run it (shared and static), and compare every output
// with the reference evaluator — tuned shapes through their tuned kernels, other shapes
// through the generic ones, as the is_tuned / kernel_name queries must report.
#include <gtest/gtest.h>

#include <cstring>

#include "ir/buffer.hpp"
#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "libgen/families.hpp"
#include "libgen/libgen.hpp"
#include "libgen_test_util.hpp"
#include "search/tuner.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;
using libgen::families;
using testing::ScratchDir;
using testing::shell;
using testing::shell_quote;
using testing::slurp;
using testing::spit;

constexpr const char* kName = "tk";

using Params = std::map<std::string, std::string>;

Params parse(const std::string& text) {  // "M=1,N=2"
  Params m;
  std::istringstream is(text);
  std::string kv;
  while (std::getline(is, kv, ','))
    if (auto eq = kv.find('='); eq != std::string::npos) m[kv.substr(0, eq)] = kv.substr(eq + 1);
  return m;
}

struct FamilyCase {
  std::string family, params;
  std::string expect;          // "tuned", "generic" or "invalid"
  bool zero_defaults = false;  // pass 0 for stride/dilation/groups of 1 and DEFAULT layout
};

// The consumer: reads cases, calls the library, writes outputs and what ran. Generated from
// the family table so every family's struct is filled field by field.
std::string consumer_main(const std::vector<std::string>& raw_entries) {
  std::ostringstream os;
  os << R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tk.h>

static const char* dir;
static const char* tag;

static void* load(int id, const char* what, long long bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/case%d_%s.bin", dir, id, what);
  void* p = malloc(bytes > 0 ? bytes : 1);
  memset(p, 0xff, bytes > 0 ? bytes : 1); /* NaN: outputs must be overwritten */
  FILE* f = fopen(path, "rb");
  if (f) { if (fread(p, 1, bytes, f) != (size_t)bytes) exit(3); fclose(f); }
  return p;
}
static void save(int id, const void* p, long long bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/case%d_%s_out.bin", dir, id, tag);
  FILE* f = fopen(path, "wb");
  fwrite(p, 1, bytes, f);
  fclose(f);
}
static void result(int id, int rc, int tuned, const char* name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/case%d_%s_result.txt", dir, id, tag);
  FILE* f = fopen(path, "w");
  fprintf(f, "%d %d %s\n", rc, tuned, name);
  fclose(f);
}

typedef void (*raw_fn)(void* const*);
static const raw_fn raw_fns[] = {)";
  for (const auto& e : raw_entries) os << e << ", ";
  os << R"(0};

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  dir = argv[2];
  tag = argv[3];
  FILE* cases = fopen(argv[1], "r");
  char fam[64];
  int id;
  while (fscanf(cases, "%63s %d", fam, &id) == 2) {
    if (strcmp(fam, "raw") == 0) {
      int e, n, out;
      long long bytes[8];
      void* bufs[8];
      if (fscanf(cases, "%d %d %d", &e, &n, &out) != 3) return 4;
      for (int i = 0; i < n; ++i) {
        char what[16];
        if (fscanf(cases, "%lld", &bytes[i]) != 1) return 4;
        snprintf(what, sizeof what, "t%d", i);
        bufs[i] = load(id, what, bytes[i]);
      }
      raw_fns[e](bufs);
      save(id, bufs[out], bytes[out]);
      result(id, 0, 1, "raw");
      continue;
    }
    int v[32];
    long long ba, bb, bbias;
)";
  for (const auto& f : families()) {
    if (!f.has_bias()) continue;  // the multi-stage families: libgen_stages_build_test.cpp
    const std::string T = std::string(kName) + "_" + f.name;
    os << "    if (strcmp(fam, \"" << f.name << "\") == 0) {\n      " << T << "_params p;\n"
       << "      memset(&p, 0, sizeof p);\n"
       << "      for (int i = 0; i < " << f.fields.size() + 2
       << "; ++i) if (fscanf(cases, \"%d\", &v[i]) != 1) return 4;\n";
    for (std::size_t i = 0; i < f.fields.size(); ++i)
      os << "      p." << f.fields[i].name << " = " << (f.fields[i].name == "layout" ? "(tk_layout)" : "") << "v[" << i
         << "];\n";
    os << "      p.bias = v[" << f.fields.size() << "];\n      p.relu = v[" << f.fields.size() + 1 << "];\n"
       << "      if (fscanf(cases, \"%lld %lld %lld\", &ba, &bb, &bbias) != 3) return 4;\n"
       << "      float* a = load(id, \"a\", ba);\n      float* b = load(id, \"b\", bb);\n"
       << "      float* bias = bbias ? load(id, \"bias\", bbias) : NULL;\n"
       << "      long long n = " << T << "_output_size(&p);\n"
       << "      float* out = load(id, \"none\", (n > 0 ? n : 1) * 4);\n"
       << "      int rc = " << T << "(&p, a, b, bias, out);\n"
       << "      save(id, out, (n > 0 ? n : 1) * 4);\n"
       << "      result(id, rc, " << T << "_is_tuned(&p), " << T << "_kernel_name(&p));\n"
       << "      continue;\n    }\n";
  }
  os << "    return 5; /* unknown family */\n  }\n  return 0;\n}\n";
  return os.str();
}

const char* kConsumerCMake = R"(cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES C)
find_package(tk 1.0 REQUIRED)
add_executable(consumer_shared main.c)
target_link_libraries(consumer_shared PRIVATE tk::tk)
add_executable(consumer_static main.c)
target_link_libraries(consumer_static PRIVATE tk::tk_static)
)";

void write_buffer(const fs::path& p, const Buffer& b) {
  spit(p, std::string(static_cast<const char*>(b.data()), b.bytes()));
}

Buffer read_buffer(const fs::path& p, const Tensor& t) {
  Buffer b(t.dtype, t.shape);
  const std::string bytes = slurp(p);
  EXPECT_EQ(bytes.size(), b.bytes()) << p;
  std::memcpy(b.data(), bytes.data(), std::min(bytes.size(), b.bytes()));
  return b;
}

int layout_value(const std::string& layout) {
  const auto& all = libgen::all_layouts();
  return static_cast<int>(std::find(all.begin(), all.end(), layout) - all.begin()) + 1;
}

std::string log_of(const std::string& log) { return "\n---- " + log + " ----\n" + slurp(log); }

TEST(LibgenBuild, TunedAndGenericKernelsMatchTheReference) {
  ScratchDir d;
  const std::string db = d.file("tuning.db");

  // 1. Tune two tasks with a tiny budget.
  TuneOptions to;
  to.trials = 6;
  to.db_path = db;
  to.threads = 1;
  const Op gemm = instantiate_template("gemm", parse("M=32,N=48,K=40"));
  const Op conv = instantiate_template("conv2d", parse("N=1,H=10,W=10,C=8,K=16,R=3,S=3,pad=1,layout=NCHW"));
  for (const Op* op : {&gemm, &conv}) ASSERT_TRUE(tune(*op, to).best.has_value()) << op->name;

  // 2. Hand-recorded tasks: one per other family, a raw spec and an int8 gemm.
  const std::vector<std::pair<std::string, std::string>> recorded = {
      {"batch_matmul", "B=2,M=5,N=6,K=7,epilogue=bias_relu"},
      {"gemv", "M=9,K=11,epilogue=bias"},
      {"conv1d", "N=1,L=12,C=3,K=4,R=3,stride=2,pad=1,layout=NCL"},
      {"conv2d", "N=1,H=7,W=7,C=4,K=6,R=3,S=3,stride=2,pad=1,groups=2,layout=NHWC,epilogue=bias_relu"},
      {"depthwise_conv2d", "N=1,H=8,W=8,C=5,R=3,S=3,pad=1,layout=NHWC"},
      {"conv3d", "N=1,D=4,H=5,W=5,C=2,K=3,T=3,R=3,S=3,pad=1,layout=NCDHW"},
      {"conv2d_transpose", "N=1,H=4,W=4,C=3,K=2,R=3,S=3,stride=2,pad=1,layout=NCHW"},
      {"conv2d_capsule", "N=1,H=5,W=5,C=2,K=2,R=3,S=3,pad=1,capsule=2"}};
  for (const auto& [fam, p] : recorded) testing::add_verified_task(db, fam, instantiate_template(fam, parse(p)));
  const Op raw = parse_spec("tensor M[4,6] f32; tensor v[6] f32; tensor r[4] f32; r[i] += M[i,j] * v[j]");
  testing::add_verified_task(db, "row dot", raw);
  const Op i8 = instantiate_template("gemm", parse("M=4,N=8,K=16,dtype=int8"));
  testing::add_verified_task(db, "gemm_i8", i8);

  // 3. Generate.
  LibgenOptions lo;
  lo.db_path = db;
  lo.out_dir = d.file("lib");
  lo.name = kName;
  const LibgenResult lib = generate_library(lo);
  ASSERT_EQ(lib.tuned_kernels, 12);
  std::map<std::string, std::string> symbol_of;  // family params text or task name -> symbol
  std::vector<std::string> raw_entries;
  for (const auto& k : lib.kernels) {
    if (k.family.empty()) raw_entries.push_back(k.entry);
    symbol_of[k.task] = k.symbol;
  }
  ASSERT_EQ(raw_entries.size(), 2u);
  EXPECT_EQ(raw_entries[0], "tk_row_dot");
  EXPECT_EQ(raw_entries[1], "tk_gemm_i8");

  // No absolute paths (neither the scratch directory nor the source tree) anywhere.
  for (const auto& rel : lib.files) {
    const std::string text = slurp(fs::path(lo.out_dir) / rel);
    EXPECT_EQ(text.find(d.path().string()), std::string::npos) << rel;
    EXPECT_EQ(text.find("/work"), std::string::npos) << rel;
    EXPECT_EQ(text.find("/usr/"), std::string::npos) << rel;
  }
  EXPECT_NE(slurp(lo.out_dir + "/README.md").find("| `" + symbol_of["gemm"] + "` | `tk_gemm` | gemm | M=32 N=48 K=40"),
            std::string::npos);

  // 4. Build and install the library; build the consumer against the installed package.
  const std::string L = shell_quote(lo.out_dir), prefix = shell_quote(d.file("prefix"));
  const std::string log1 = d.file("lib.log");
  ASSERT_EQ(shell("cmake -S " + L + " -B " + L + "/build -DCMAKE_BUILD_TYPE=Release && cmake --build " + L +
                      "/build -j2 && cmake --install " + L + "/build --prefix " + prefix,
                  log1),
            0)
      << log_of(log1);
  for (const char* f : {"include/tk.h", "lib/libtk.a", "lib/cmake/tk/tkConfig.cmake",
                        "lib/cmake/tk/tkConfigVersion.cmake", "lib/pkgconfig/tk.pc"})
    EXPECT_TRUE(fs::exists(d.file("prefix/") + f)) << f;

  const std::string C = d.file("consumer");
  spit(C + "/CMakeLists.txt", kConsumerCMake);
  spit(C + "/main.c", consumer_main(raw_entries));
  const std::string log2 = d.file("consumer.log");
  ASSERT_EQ(shell("cmake -S " + shell_quote(C) + " -B " + shell_quote(C + "/build") + " -DCMAKE_PREFIX_PATH=" + prefix +
                      " && cmake --build " + shell_quote(C + "/build") + " -j2",
                  log2),
            0)
      << log_of(log2);
  // pkg-config describes the same library.
  const std::string log3 = d.file("pkgconfig.log");
  EXPECT_EQ(shell("cc " + shell_quote(C + "/main.c") + " -o " + shell_quote(C + "/consumer_pc") +
                      " $(PKG_CONFIG_PATH=" + prefix + "/lib/pkgconfig pkg-config --cflags --libs tk)",
                  log3),
            0)
      << log_of(log3);

  // 5. Cases: the tuned shapes, other shapes (generic), and invalid params.
  std::vector<FamilyCase> cases = {
      {"gemm", "M=32,N=48,K=40", "tuned"},
      {"conv2d", "N=1,H=10,W=10,C=8,K=16,R=3,S=3,pad=1,layout=NCHW", "tuned", true},
      {"gemm", "M=7,N=5,K=3,epilogue=relu", "generic"},
      {"batch_matmul", "B=1,M=3,N=4,K=5", "generic"},
      {"gemv", "M=5,K=3", "generic"},
      {"conv1d", "N=2,L=10,C=2,K=3,R=3,dilation=2,layout=NLC,epilogue=bias", "generic"},
      {"conv2d", "N=1,H=10,W=10,C=8,K=16,R=3,S=3,pad=1,layout=NCHW,epilogue=relu", "generic"},
      {"conv2d", "N=2,H=9,W=8,C=6,K=4,R=3,S=2,stride=2,pad=1,dilation=2,groups=2,layout=NCHW", "generic"},
      {"conv2d", "N=1,H=6,W=6,C=3,K=2,R=3,S=3", "generic", true},
      {"depthwise_conv2d", "N=1,H=7,W=6,C=3,R=3,S=3,stride=2,pad=2,dilation=2,layout=NCHW,epilogue=bias", "generic"},
      {"conv3d", "N=1,D=4,H=4,W=5,C=2,K=3,T=2,R=2,S=3,pad=1,layout=NDHWC", "generic"},
      {"conv2d_transpose", "N=1,H=3,W=5,C=2,K=3,R=4,S=3,stride=3,pad=1,layout=NHWC,epilogue=bias_relu", "generic"},
      {"conv2d_capsule", "N=1,H=6,W=5,C=2,K=3,R=3,S=2,stride=2,capsule=3", "generic"},
      {"conv2d", "N=1,H=6,W=6,C=8,K=8,R=3,S=3,groups=3", "invalid"},
  };
  for (const auto& [fam, p] : recorded) cases.push_back({fam, p, "tuned"});

  const std::string dir = d.file("cases");
  fs::create_directories(dir);
  std::ostringstream list;
  std::vector<Buffer> want(cases.size() + 2);
  std::vector<Tensor> out_tensor(cases.size() + 2);
  for (std::size_t id = 0; id < cases.size(); ++id) {
    const FamilyCase& c = cases[id];
    const libgen::Family& f = *libgen::find_family(c.family);
    Params p = parse(c.params);
    const std::string file = dir + "/case" + std::to_string(id) + "_";
    if (c.expect == "invalid") {
      list << c.family << " " << id;
      for (const auto& field : f.fields)
        list << " " << (field.name == "layout" ? 0 : std::stoi(p.count(field.name) ? p[field.name] : "0"));
      list << " 0 0 16 16 0\n";
      continue;
    }
    const Op op = instantiate_template(c.family, p);
    std::vector<Buffer> bufs = make_buffers(op, 100 + id);
    write_buffer(file + "a.bin", bufs[0]);
    write_buffer(file + "b.bin", bufs[1]);
    const bool bias = op.tensors.size() == 4;
    if (bias) write_buffer(file + "bias.bin", bufs[3]);
    evaluate(op, bufs);
    want[id] = bufs[2];
    out_tensor[id] = op.tensors[2];

    // Every field, from the template's full parameter list (defaults included).
    Params full = p;
    for (const auto& t : list_templates())
      if (t.name == c.family)
        for (const auto& tp : t.params)
          if (!full.count(tp.name)) full[tp.name] = tp.default_value;
    list << c.family << " " << id;
    for (const auto& field : f.fields) {
      int v = field.name == "layout" ? layout_value(full.at("layout")) : std::stoi(full.at(field.name));
      if (c.zero_defaults && field.zero_is_one && v == 1) v = 0;
      if (c.zero_defaults && field.name == "layout" && full.at("layout") == f.variants.front().layout) v = 0;
      list << " " << v;
    }
    const std::string& ep = full.at("epilogue");
    list << " " << (ep == "bias" || ep == "bias_relu") << " " << (ep == "relu" || ep == "bias_relu") << " "
         << bufs[0].bytes() << " " << bufs[1].bytes() << " " << (bias ? bufs[3].bytes() : 0) << "\n";
  }
  // The raw entries: every tensor is passed; the output is the third.
  const std::vector<const Op*> raws = {&raw, &i8};
  for (std::size_t e = 0; e < raws.size(); ++e) {
    const std::size_t id = cases.size() + e;
    std::vector<Buffer> bufs = make_buffers(*raws[e], 200 + id);
    list << "raw " << id << " " << e << " " << bufs.size() << " 2";
    for (std::size_t t = 0; t < bufs.size(); ++t) {
      if (t != 2) write_buffer(dir + "/case" + std::to_string(id) + "_t" + std::to_string(t) + ".bin", bufs[t]);
      list << " " << bufs[t].bytes();
    }
    list << "\n";
    evaluate(*raws[e], bufs);
    want[id] = bufs[2];
    out_tensor[id] = raws[e]->tensors[2];
  }
  spit(dir + "/cases.txt", list.str());

  // 6. Run both consumers with two threads and check every case.
  for (const std::string tag : {"shared", "static"}) {
    const std::string log = d.file("run_" + tag + ".log");
    ASSERT_EQ(shell("OMP_NUM_THREADS=2 " + shell_quote(C + "/build/consumer_" + tag) + " " +
                        shell_quote(dir + "/cases.txt") + " " + shell_quote(dir) + " " + tag,
                    log),
              0)
        << log_of(log);
    for (std::size_t id = 0; id < want.size(); ++id) {
      const bool is_raw = id >= cases.size();
      const std::string what = is_raw ? "raw" : cases[id].family + ":" + cases[id].params;
      std::istringstream res(slurp(dir + "/case" + std::to_string(id) + "_" + tag + "_result.txt"));
      int rc = 99, tuned = -1;
      std::string kernel;
      res >> rc >> tuned >> kernel;
      if (!is_raw && cases[id].expect == "invalid") {
        EXPECT_EQ(rc, -1) << what;
        EXPECT_EQ(tuned, 0) << what;
        EXPECT_EQ(kernel, "invalid") << what;
        continue;
      }
      ASSERT_EQ(rc, 0) << what;
      if (!is_raw) {
        const bool expect_tuned = cases[id].expect == "tuned";
        EXPECT_EQ(tuned, expect_tuned ? 1 : 0) << what;
        if (expect_tuned)
          EXPECT_EQ(kernel.rfind(std::string(kName) + "_" + cases[id].family + "_k", 0), 0u) << what << ": " << kernel;
        else
          EXPECT_EQ(kernel, "generic") << what;
      }
      const Buffer got = read_buffer(dir + "/case" + std::to_string(id) + "_" + tag + "_out.bin", out_tensor[id]);
      const Comparison cmp = compare(got, want[id], 1e-4);
      EXPECT_TRUE(cmp.ok) << tag << " " << what << ": " << cmp.str();
    }
  }
  EXPECT_EQ(symbol_of.count("gemm"), 1u);
}

}  // namespace
}  // namespace attune
