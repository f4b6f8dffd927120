// spec_fuzz_test.cpp — random character deletions, insertions and replacements in valid specs
// must either parse (and then round-trip through the printer) or raise attune::Error with a
// "line:col: " prefix; nothing else may escape and nothing may crash.
#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "ir/error.hpp"
#include "ir/op.hpp"

namespace attune {
namespace {

std::vector<std::string> seeds() {
  std::vector<std::string> s = {
      "op g\ntensor A[4, 8] f32; tensor B[8, 5] f32\ntensor C[4, 5] f32\nC[m, n] += A[m, k] * B[k, n]\n",
      "tensor I[4] f32; tensor W[3] f32; tensor O[8] f32; tensor Bias[8] f32\n"
      "O[p] += I[(p + 1 - r)/2] * W[r]\nepilogue bias Bias[p]\nepilogue relu # done\n",
      "var g < 2\nvar k < 3\ntensor A[6] i8\ntensor B[6] u8\ntensor O[6] i32\nO[g*3 + k] += A[k + 3*g] * B[-k + 5]\n",
  };
  s.push_back(print_spec(instantiate_template("conv2d", {{"N", "1"},
                                                         {"H", "9"},
                                                         {"W", "7"},
                                                         {"C", "8"},
                                                         {"K", "12"},
                                                         {"R", "3"},
                                                         {"S", "3"},
                                                         {"stride", "2"},
                                                         {"pad", "1"},
                                                         {"groups", "4"},
                                                         {"layout", "NHWC"},
                                                         {"epilogue", "bias_relu"}})));
  s.push_back(print_spec(instantiate_template(
      "conv2d_capsule",
      {{"N", "1"}, {"H", "8"}, {"W", "8"}, {"C", "2"}, {"K", "3"}, {"R", "3"}, {"S", "3"}, {"capsule", "2"}})));
  return s;
}

TEST(SpecFuzz, MutationsOnlyErrorOrSucceed) {
  const std::string alphabet = "[](),;+-*/<=#_ \n\t0123456789abcdefkmnpqrsABCOW\x01\xff";
  const std::regex position("^[0-9]+:[0-9]+: .+");
  std::mt19937_64 rng(20240607);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  int parsed = 0, refused = 0;
  for (const auto& seed : seeds()) {
    for (int iter = 0; iter < 1000; ++iter) {
      std::string text = seed;
      int edits = 1 + static_cast<int>(pick(3));
      for (int e = 0; e < edits; ++e) {
        std::size_t at = pick(text.size() + 1);
        switch (pick(3)) {
          case 0:
            if (at < text.size()) text.erase(at, 1 + pick(3));
            break;
          case 1: text.insert(at, 1, alphabet[pick(alphabet.size())]); break;
          default:
            if (at < text.size()) text[at] = alphabet[pick(alphabet.size())];
        }
      }
      try {
        Op op = parse_spec(text);
        ++parsed;
        ASSERT_EQ(parse_spec(print_spec(op)), op) << text;
      } catch (const Error& e) {
        ++refused;
        ASSERT_TRUE(std::regex_match(std::string(e.what()), position)) << e.what() << "\n" << text;
      }
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace attune
