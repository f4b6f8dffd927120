// Correctness, end to end, for the multi-stage families: a database with layernorm tuned for a
// few trials and a hand-recorded task (the untransformed nest) for every other multi-stage
// family; the generated library is built with its CMake, and a C program generated from the
// family table calls every family's entry point at its tuned shape (which must report
// is_tuned and name its kernel), at a random shape nobody tuned (the generic kernel), and with
// parameters the template refuses (EINVAL). Every output is compared with attune's reference
// evaluator on random inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "ir/error.hpp"
#include "ir/evaluator.hpp"
#include "libgen/families.hpp"
#include "libgen/libgen.hpp"
#include "libgen_test_util.hpp"
#include "search/tuner.hpp"

namespace attune {
namespace {

namespace fs = std::filesystem;
using libgen::ArgRole;
using libgen::Family;
using libgen::FieldKind;
using Params = std::map<std::string, std::string>;
using testing::shell;
using testing::shell_quote;
using testing::slurp;

constexpr const char* kName = "sk";

// The tuned shape of each family (every one small, so the hand-recorded kernels stay quick).
const std::vector<std::pair<std::string, Params>>& tuned_shapes() {
  static const std::vector<std::pair<std::string, Params>> shapes = {
      {"softmax", {{"B", "1"}, {"M", "6"}, {"N", "40"}}},
      {"log_softmax", {{"B", "2"}, {"M", "3"}, {"N", "16"}}},
      {"layernorm", {{"M", "8"}, {"N", "48"}}},
      {"rmsnorm", {{"M", "5"}, {"N", "24"}, {"eps", "0.001"}}},
      {"batchnorm", {{"N", "1"}, {"C", "4"}, {"H", "5"}, {"W", "6"}, {"layout", "NHWC"}}},
      {"gelu", {{"M", "4"}, {"N", "20"}, {"form", "tanh"}}},
      {"clip", {{"M", "3"}, {"N", "17"}}},
      {"residual_add", {{"M", "4"}, {"N", "9"}, {"relu", "1"}}},
      {"maxpool2d", {{"N", "1"}, {"C", "3"}, {"H", "9"}, {"W", "9"}, {"R", "3"}, {"S", "3"}, {"stride", "2"},
                     {"pad", "1"}}},
      {"avgpool2d", {{"N", "1"}, {"C", "2"}, {"H", "8"}, {"W", "7"}, {"R", "3"}, {"S", "2"}, {"pad", "1"},
                     {"layout", "NHWC"}}},
      {"global_avgpool", {{"N", "2"}, {"C", "3"}, {"H", "4"}, {"W", "5"}}},
      {"conv2d_bias_add_relu", {{"N", "1"}, {"H", "6"}, {"W", "6"}, {"C", "3"}, {"K", "4"}, {"R", "3"}, {"S", "3"},
                                {"pad", "1"}}},
      {"gemm_bias_gelu", {{"M", "5"}, {"N", "6"}, {"K", "7"}}},
      {"attention", {{"H", "2"}, {"T", "6"}, {"D", "4"}}}};
  return shapes;
}

// Every template parameter, the defaults filled in.
Params full_params(const std::string& family, Params p) {
  for (const auto& t : list_templates())
    if (t.name == family)
      for (const auto& tp : t.params)
        if (!p.count(tp.name)) p[tp.name] = tp.default_value;
  return p;
}

// A shape the template accepts, drawn field by field from the family's table.
Params random_params(const Family& f, std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (;;) {
    Params p;
    for (const auto& field : f.fields) {
      const std::string& n = field.name;
      if (field.kind == FieldKind::layout)
        p[n] = f.variants[pick(0, static_cast<int>(f.variants.size()) - 1)].layout;
      else if (field.kind == FieldKind::choice)
        p[n] = field.choices[pick(0, static_cast<int>(field.choices.size()) - 1)];
      else if (field.kind == FieldKind::real)
        p[n] = number_text(std::uniform_real_distribution<double>(n == "eps" ? 1e-6 : -2.0, n == "eps" ? 0.1 : 2.0)(rng));
      else
        p[n] = std::to_string(n == "pad" ? pick(0, 2) : n == "stride" ? pick(1, 3) : pick(1, 11));
    }
    if (p.count("lo") && std::stod(p["lo"]) > std::stod(p["hi"])) std::swap(p["lo"], p["hi"]);
    try {
      instantiate_template(f.name, p);
      return p;
    } catch (const Error&) {
      // Not a valid shape (a window larger than the input, pad >= R): draw again.
    }
  }
}

struct Case {
  std::string family;
  Params params;        // every template parameter
  std::string expect;   // "tuned", "generic" or "invalid"
  bool zeros = false;   // pass 0 for every field whose zero stands for its value
};

// One field's value as the cases file holds it: layouts by enum value, choices by index.
std::string field_text(const libgen::ParamField& field, const Family& f, const std::string& v, bool zeros) {
  if (field.kind == FieldKind::layout) {
    if (zeros && v == f.variants.front().layout) return "0";
    const auto& all = libgen::all_layouts();
    return std::to_string(std::find(all.begin(), all.end(), v) - all.begin() + 1);
  }
  if (field.kind == FieldKind::choice)
    return std::to_string(std::find(field.choices.begin(), field.choices.end(), v) - field.choices.begin());
  if (zeros && ((field.zero_is_one && v == "1") || (!field.zero_means.empty() && v == field.zero_means))) return "0";
  return v;
}

// The consumer: per case, fills the family's struct from the cases file, loads the inputs,
// calls the entry point and writes the output and what ran.
std::string consumer_main() {
  std::ostringstream os;
  os << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <" << kName << ".h>\n\n"
     << R"(static const char* dir;
static float* load(int id, int i, long long bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/case%d_in%d.bin", dir, id, i);
  float* p = malloc(bytes > 0 ? bytes : 4);
  memset(p, 0xff, bytes > 0 ? bytes : 4); /* NaN: outputs must be overwritten */
  FILE* f = fopen(path, "rb");
  if (f) { if (fread(p, 1, bytes, f) != (size_t)bytes) exit(3); fclose(f); }
  return p;
}
static void finish(int id, int rc, int tuned, const char* name, const float* out, long long n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/case%d_out.bin", dir, id);
  FILE* f = fopen(path, "wb");
  if (n > 0) fwrite(out, 4, n, f);
  fclose(f);
  snprintf(path, sizeof path, "%s/case%d_result.txt", dir, id);
  f = fopen(path, "w");
  fprintf(f, "%d %d %s\n", rc, tuned, name);
  fclose(f);
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  dir = argv[2];
  FILE* cases = fopen(argv[1], "r");
  char fam[64];
  int id;
  while (fscanf(cases, "%63s %d", fam, &id) == 2) {
    float* in[8];
    long long bytes;
)";
  for (const auto& f : libgen::families()) {
    if (f.has_bias()) continue;  // the contraction families: libgen_build_test.cpp
    const std::string T = std::string(kName) + "_" + f.name;
    os << "    if (strcmp(fam, \"" << f.name << "\") == 0) {\n      " << T << "_params p;\n      int v;\n"
       << "      memset(&p, 0, sizeof p);\n";
    for (const auto& field : f.fields) {
      if (field.kind == FieldKind::real)
        os << "      if (fscanf(cases, \"%lf\", &p." << field.name << ") != 1) return 4;\n";
      else
        os << "      if (fscanf(cases, \"%d\", &v) != 1) return 4;\n      p." << field.name << " = "
           << (field.kind == FieldKind::layout ? std::string("(") + kName + "_layout)" : "") << "v;\n";
    }
    std::string call;
    int i = 0;
    for (const auto& a : f.c_order())
      if (a.role == ArgRole::input) {
        os << "      if (fscanf(cases, \"%lld\", &bytes) != 1) return 4;\n      in[" << i << "] = load(id, " << i
           << ", bytes);\n";
        call += "in[" + std::to_string(i++) + "], ";
      }
    os << "      long long n = " << T << "_output_size(&p);\n"
       << "      float* out = load(id, 99, (n > 0 ? n : 1) * 4);\n"
       << "      int rc = " << T << "(&p, " << call << "out);\n"
       << "      finish(id, rc, " << T << "_is_tuned(&p), " << T << "_kernel_name(&p), out, n);\n"
       << "      continue;\n    }\n";
  }
  os << "    return 5; /* unknown family */\n  }\n  return 0;\n}\n";
  return os.str();
}

std::string log_of(const std::string& log) { return "\n---- " + log + " ----\n" + slurp(log); }

// The database (layernorm tuned, the others hand-recorded), the library built with its own
// CMake, and the consumer linked against its static archive, at d.file("consumer").
void build_library_and_consumer(const testing::ScratchDir& d) {
  const std::string db = d.file("tuning.db");
  TuneOptions to;
  to.trials = 4;
  to.db_path = db;
  to.threads = 1;
  for (const auto& [fam, p] : tuned_shapes()) {
    const Op op = instantiate_template(fam, p);
    if (fam == "layernorm")
      ASSERT_TRUE(tune(op, to).best.has_value());
    else
      testing::add_verified_task(db, fam, op);
  }
  LibgenOptions lo;
  lo.db_path = db;
  lo.out_dir = d.file("lib");
  lo.name = kName;
  const LibgenResult lib = generate_library(lo);
  ASSERT_EQ(lib.kernels.size(), tuned_shapes().size());
  for (const auto& k : lib.kernels) EXPECT_EQ(k.entry, std::string(kName) + "_" + k.family) << k.task;

  const std::string L = shell_quote(lo.out_dir), log1 = d.file("lib.log");
  ASSERT_EQ(shell("cmake -S " + L + " -B " + L + "/build -DCMAKE_BUILD_TYPE=Release && cmake --build " + L +
                      "/build -j2",
                  log1),
            0)
      << log_of(log1);
  testing::spit(d.file("main.c"), consumer_main());
  const std::string log2 = d.file("consumer.log");
  ASSERT_EQ(shell("cc -std=c11 -Wall -Werror -o " + shell_quote(d.file("consumer")) + " " +
                      shell_quote(d.file("main.c")) + " -I" + L + "/include " + L + "/build/lib" + kName +
                      ".a -fopenmp -lm",
                  log2),
            0)
      << log_of(log2);
}

// Per family its tuned shape (zero-meaning-default fields passed as 0) and a random shape
// nobody tuned; then parameters the templates refuse.
std::vector<Case> make_cases() {
  std::vector<Case> cases;
  std::mt19937 rng(2024);
  for (const auto& [fam, p] : tuned_shapes()) {
    const Family& f = *libgen::find_family(fam);
    cases.push_back({fam, full_params(fam, p), "tuned", true});
    Params other = full_params(fam, random_params(f, rng));
    if (other == cases.back().params) other = full_params(fam, random_params(f, rng));
    cases.push_back({fam, other, "generic"});
  }
  Params bad_pool = full_params("maxpool2d", tuned_shapes()[8].second);
  bad_pool["pad"] = "3";  // not below R
  cases.push_back({"clip", full_params("clip", {{"M", "2"}, {"N", "2"}, {"lo", "1"}, {"hi", "0"}}), "invalid"});
  cases.push_back({"maxpool2d", bad_pool, "invalid"});
  cases.push_back({"layernorm", full_params("layernorm", {{"M", "2"}, {"N", "2"}, {"eps", "-1"}}), "invalid"});
  return cases;
}

// Writes dir/cases.txt and each case's inputs; returns the reference outputs.
std::vector<Buffer> write_cases(const std::vector<Case>& cases, const std::string& dir) {
  fs::create_directories(dir);
  std::ostringstream list;
  std::vector<Buffer> want(cases.size());
  for (std::size_t id = 0; id < cases.size(); ++id) {
    const Case& c = cases[id];
    const Family& f = *libgen::find_family(c.family);
    list << c.family << " " << id;
    for (const auto& field : f.fields) list << " " << field_text(field, f, c.params.at(field.name), c.zeros);
    if (c.expect == "invalid") {
      for (const auto& a : f.args)
        if (a.role == ArgRole::input) list << " 4";
      list << "\n";
      continue;
    }
    const Op op = instantiate_template(c.family, c.params);
    std::vector<Buffer> bufs = make_buffers(op, 300 + id);
    for (std::size_t t = 0; t + 1 < bufs.size(); ++t) {  // every template declares its output last
      testing::spit(dir + "/case" + std::to_string(id) + "_in" + std::to_string(t) + ".bin",
                    std::string(static_cast<const char*>(bufs[t].data()), bufs[t].bytes()));
      list << " " << bufs[t].bytes();
    }
    list << "\n";
    evaluate(op, bufs);
    want[id] = bufs.back();
  }
  testing::spit(dir + "/cases.txt", list.str());
  return want;
}

// What the consumer reported for case `id`, against what it had to do.
void check_case(const Case& c, std::size_t id, const std::string& dir, const Buffer& want) {
  std::string what = c.family + " (" + c.expect + "):";
  for (const auto& [k, v] : c.params) what += " " + k + "=" + v;
  std::istringstream res(slurp(dir + "/case" + std::to_string(id) + "_result.txt"));
  int rc = 99, tuned = -1;
  std::string kernel;
  res >> rc >> tuned >> kernel;
  if (c.expect == "invalid") {
    EXPECT_EQ(rc, -1) << what;
    EXPECT_EQ(kernel, "invalid") << what;
    return;
  }
  ASSERT_EQ(rc, 0) << what;
  EXPECT_EQ(tuned, c.expect == "tuned" ? 1 : 0) << what;
  if (c.expect == "tuned")
    EXPECT_EQ(kernel.rfind(std::string(kName) + "_" + c.family + "_k", 0), 0u) << what << ": " << kernel;
  else
    EXPECT_EQ(kernel, "generic") << what;
  Buffer got(want.dtype(), want.shape());
  const std::string bytes = slurp(dir + "/case" + std::to_string(id) + "_out.bin");
  ASSERT_EQ(bytes.size(), got.bytes()) << what;
  std::memcpy(got.data(), bytes.data(), bytes.size());
  const Comparison cmp = compare(got, want, 1e-4);
  EXPECT_TRUE(cmp.ok) << what << ": " << cmp.str();
}

TEST(LibgenStagesBuild, TunedAndGenericKernelsMatchTheReference) {
  testing::ScratchDir d;
  ASSERT_NO_FATAL_FAILURE(build_library_and_consumer(d));
  const std::vector<Case> cases = make_cases();
  const std::string dir = d.file("cases");
  const std::vector<Buffer> want = write_cases(cases, dir);
  const std::string log = d.file("run.log");
  ASSERT_EQ(shell("OMP_NUM_THREADS=2 " + shell_quote(d.file("consumer")) + " " + shell_quote(dir + "/cases.txt") +
                      " " + shell_quote(dir),
                  log),
            0)
      << log_of(log);
  for (std::size_t id = 0; id < cases.size(); ++id) check_case(cases[id], id, dir, want[id]);
}

}  // namespace
}  // namespace attune
