// affine_expr_test.cpp — AffineExpr construction, normalisation, algebra, printing, equality,
// evaluation, and the dtype helpers.
#include <gtest/gtest.h>

#include "ir/error.hpp"
#include "ir/op.hpp"

namespace attune {
namespace {

TEST(AffineExpr, BuildAndPrint) {
  AffineExpr e = AffineExpr::var("p", 2) + AffineExpr::var("r") + AffineExpr::constant_of(-1);
  EXPECT_EQ(e.str(), "p*2 + r - 1");
  EXPECT_EQ(e.coeff("p"), 2);
  EXPECT_EQ(e.coeff("q"), 0);
  EXPECT_TRUE(e.uses("r"));
  EXPECT_FALSE(e.as_single_var());
  EXPECT_EQ(AffineExpr::var("k").as_single_var(), "k");
  EXPECT_EQ(AffineExpr::constant_of(-3).str(), "-3");
  EXPECT_EQ(AffineExpr().str(), "0");
  EXPECT_EQ((AffineExpr::var("a", -1) + AffineExpr::var("b", -3)).str(), "-a - b*3");
  AffineExpr d = AffineExpr::var("h") + AffineExpr::var("r", -1) + AffineExpr::constant_of(1);
  d.divisor = 2;
  EXPECT_EQ(d.str(), "(h - r + 1)/2");
  EXPECT_FALSE(d.as_single_var());
}

TEST(AffineExpr, NormalisesAndComparesOrderInsensitively) {
  AffineExpr e = AffineExpr::var("p");
  e.add_term("q", 3).add_term("p", -1);
  EXPECT_EQ(e.terms.size(), 1u);
  EXPECT_EQ(e.str(), "q*3");
  AffineExpr a = AffineExpr::var("x") + AffineExpr::var("y", 2);
  AffineExpr b = AffineExpr::var("y", 2) + AffineExpr::var("x");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, b + AffineExpr::constant_of(1));
  EXPECT_EQ((a * 0).terms.size(), 0u);
  EXPECT_EQ((a * -2).str(), "-x*2 - y*4");
}

TEST(AffineExpr, SubstituteAndEval) {
  AffineExpr e = AffineExpr::var("k") + AffineExpr::var("n", 4) + AffineExpr::constant_of(1);
  AffineExpr s = e.substitute("k", AffineExpr::var("ko", 8) + AffineExpr::var("ki"));
  EXPECT_EQ(s.str(), "ko*8 + ki + n*4 + 1");
  std::map<std::string, std::int64_t> vals = {{"ko", 2}, {"ki", 3}, {"n", 1}};
  EXPECT_EQ(s.eval([&](const std::string& v) { return vals.at(v); }), 2 * 8 + 3 + 4 + 1);
  AffineExpr d = AffineExpr::var("h");
  d.divisor = 2;
  EXPECT_EQ(d.eval([](const std::string&) { return 6; }), 3);
  EXPECT_EQ(d.eval([](const std::string&) { return 5; }), std::nullopt);
  EXPECT_THROW(d + d, InternalError);
}

TEST(DType, NamesSizesAndParsing) {
  for (DType t : {DType::f32, DType::f16, DType::i8, DType::u8, DType::i32}) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_EQ(parse_dtype("int8"), DType::i8);
  EXPECT_EQ(parse_dtype("float16"), DType::f16);
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
  EXPECT_TRUE(is_float(DType::f16));
  EXPECT_FALSE(is_float(DType::u8));
  EXPECT_THROW(parse_dtype("bf16"), Error);
}

}  // namespace
}  // namespace attune
