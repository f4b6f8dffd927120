// .npy files: random tensors round-trip; damaged files are one-line errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>

#include "graph/npy.hpp"
#include "ir/error.hpp"
#include "onnx_test_util.hpp"

namespace attune::graph {
namespace {

TEST(Npy, RandomTensorsRoundTrip) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    Shape shape;
    const int rank = static_cast<int>(rng() % 5);
    for (int k = 0; k < rank; ++k) shape.push_back(1 + rng() % 5);
    std::vector<float> data(element_count(shape));
    for (auto& x : data) x = std::normal_distribution<float>()(rng);
    const auto path = test::write_temp("t.npy", "");
    write_npy(path, HostTensor::floats(shape, data));
    const HostTensor back = read_npy(path);
    EXPECT_EQ(back.shape, shape);
    EXPECT_EQ(back.f, data);
  }
}

TEST(Npy, DamagedFilesAreErrors) {
  const auto good = test::write_temp("g.npy", "");
  write_npy(good, HostTensor::floats({2, 3}, std::vector<float>(6, 1.0f)));
  std::ifstream f(good, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), {});
  auto error_of = [](const std::string& content) {
    try {
      read_npy(test::write_temp("bad.npy", content));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("hello").find("no NumPy magic"), std::string::npos);
  EXPECT_NE(error_of(bytes.substr(0, bytes.size() - 4)).find("data is shorter"), std::string::npos);
  EXPECT_NE(error_of(bytes + "xxxx").find("data is longer"), std::string::npos);
  std::string f8 = bytes;
  f8.replace(f8.find("<f4"), 3, "<f8");
  EXPECT_NE(error_of(f8).find("dtype '<f8' is not supported"), std::string::npos);
  std::string fortran = bytes;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_NE(error_of(fortran).find("Fortran order"), std::string::npos);
  for (std::size_t len = 0; len < 70; len += 3) EXPECT_FALSE(error_of(bytes.substr(0, len)).empty()) << len;
}

}  // namespace
}  // namespace attune::graph
