// A main for the fuzz targets without libFuzzer:
//   fuzz_seeds_<target> [--mutations N] [--seed S] [--last FILE] CORPUS_DIR_OR_FILE...
// runs every file named on the command line, or found in a directory named there, through
// LLVMFuzzerTestOneInput once, in name order. Every build (g++ included) links each target with
// it, so ctest fuzz.<target> replays its seed corpus and the regressions kept there; the
// sanitizer build runs them under ASan + UBSan.
//
// With --mutations N it then runs N mutants of those inputs: a short, bounded smoke test of the
// refusal paths near the seeds (cut and repeated fields, flipped bits, numbers at the edges of
// their types) in every CI build, where libFuzzer itself (clang only, long runs) does not run.
// It finds far less than libFuzzer and is no substitute for it. The mutants depend only on the
// inputs, N and S (a fixed PRNG, no std distributions), so a failure reruns the same anywhere;
// --last FILE writes each mutant to FILE before running it, so after a crash FILE holds it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxMutantSize = std::size_t{1} << 16;

// splitmix64: a small generator whose sequence is the same on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n); 0 when n is 0.
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// Values at the edges of the integer types the parsers convert to, and the limits they check.
constexpr std::int64_t kInteresting[] = {0,         1,          -1,        16,        127,      128,
                                         255,       256,        32767,     65535,     65536,    INT32_MAX,
                                         INT32_MIN, UINT32_MAX, 1LL << 40, INT64_MAX, INT64_MIN};

// Applies one mutation to b. `inputs` are the corpus, for splicing.
void mutate_once(std::string& b, const std::vector<std::string>& inputs, Rng& rng) {
  const std::int64_t number = kInteresting[rng.below(std::size(kInteresting))];
  switch (rng.below(7)) {
    case 0:  // flip one bit
      if (!b.empty()) b[rng.below(b.size())] ^= static_cast<char>(1u << rng.below(8));
      break;
    case 1:  // insert a byte
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size() + 1)), static_cast<char>(rng.below(256)));
      break;
    case 2: {  // delete up to 16 bytes
      if (b.empty()) break;
      const std::size_t at = rng.below(b.size());
      b.erase(at, 1 + rng.below(std::min<std::size_t>(b.size() - at, 16)));
      break;
    }
    case 3: {  // copy a chunk of up to 64 bytes elsewhere
      if (b.empty()) break;
      const std::size_t at = rng.below(b.size());
      const std::string chunk = b.substr(at, 1 + rng.below(std::min<std::size_t>(b.size() - at, 64)));
      b.insert(rng.below(b.size() + 1), chunk);
      break;
    }
    case 4: {  // splice: a prefix of this input, then a suffix of another
      const std::string& other = inputs[rng.below(inputs.size())];
      b = b.substr(0, rng.below(b.size() + 1)) + other.substr(rng.below(other.size() + 1));
      break;
    }
    case 5: {  // overwrite 1, 2, 4 or 8 bytes with an interesting integer, little-endian (binary formats)
      const std::size_t width = std::size_t{1} << rng.below(4);
      if (b.size() < width) break;
      const std::size_t at = rng.below(b.size() - width + 1);
      for (std::size_t i = 0; i < width; ++i)
        b[at + i] = static_cast<char>(static_cast<std::uint64_t>(number) >> (8 * i));
      break;
    }
    default: {  // replace a run of digits with an interesting integer in decimal (text formats)
      const std::string text = std::to_string(number);
      const std::size_t at = b.find_first_of("0123456789", rng.below(b.size() + 1));
      if (at == std::string::npos) {
        b.insert(rng.below(b.size() + 1), text);
      } else {
        const std::size_t end = std::min(b.find_first_not_of("0123456789", at), b.size());
        b.replace(at, end - at, text);
      }
      break;
    }
  }
}

void run(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

bool parse_count(const char* text, std::uint64_t& out) {
  char* end = nullptr;
  out = std::strtoull(text, &end, 10);
  return *text >= '0' && *text <= '9' && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t mutations = 0;
  std::uint64_t seed = 1;
  const char* last = nullptr;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--mutations") == 0 && has_value && parse_count(argv[i + 1], mutations)) {
      ++i;
    } else if (std::strcmp(argv[i], "--seed") == 0 && has_value && parse_count(argv[i + 1], seed)) {
      ++i;
    } else if (std::strcmp(argv[i], "--last") == 0 && has_value) {
      last = argv[++i];
    } else if (std::strncmp(argv[i], "--", 2) == 0) {
      std::fprintf(stderr, "%s: bad option %s (--mutations N, --seed S, --last FILE)\n", argv[0], argv[i]);
      return 2;
    } else if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--mutations N] [--seed S] [--last FILE] CORPUS_DIR_OR_FILE...: no input files\n",
                 argv[0]);
    return 2;
  }
  std::vector<std::string> inputs;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", f.c_str());
      return 2;
    }
    inputs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    run(inputs.back());
  }
  // Each mutant starts from the next input in turn and takes one to four mutations.
  Rng rng(seed);
  for (std::uint64_t n = 0; n < mutations; ++n) {
    std::string b = inputs[n % inputs.size()];
    for (std::size_t k = 1 + rng.below(4); k > 0; --k) mutate_once(b, inputs, rng);
    if (b.size() > kMaxMutantSize) b.resize(kMaxMutantSize);
    if (last) {
      std::ofstream out(last, std::ios::binary | std::ios::trunc);
      out.write(b.data(), static_cast<std::streamsize>(b.size()));
    }
    run(b);
  }
  std::printf("%zu inputs and %llu mutants (seed %llu) ran\n", inputs.size(),
              static_cast<unsigned long long>(mutations), static_cast<unsigned long long>(seed));
  return 0;
}
