// object_features(): counts read off real object code built by the Builder.
#include <gtest/gtest.h>

#include "kernels.hpp"

namespace attune::test {
namespace {

// 8-lane FMAs through GCC's vector extension, with more live accumulators than a loop needs:
// the compiler emits vfmadd instructions for them.
const char* kFmaKernel = R"(
typedef float v8 __attribute__((vector_size(32)));
void attune_kernel(void* const* args) {
  float* c = (float*)args[0];
  const float* a = (const float*)args[1];
  const float* b = (const float*)args[2];
  for (int i = 0; i < 64; i += 8) {
    v8 acc = *(v8*)(c + i);
    for (int k = 0; k < 64; ++k) {
      v8 bv = *(const v8*)(b + 64 * k + i);
      acc += a[k] * bv;
    }
    *(v8*)(c + i) = acc;
  }
}
)";

TEST(ObjectFeatures, CountsTheKernelsVectorFmasLoadsAndStores) {
  ScratchDir dir;
  Builder b(build_options(dir));
  Artifact art = c_artifact(kFmaKernel);
  art.flags = {"-O2", "-mavx2", "-mfma", "-fPIC"};
  const BuildResult r = b.build(art);
  ASSERT_TRUE(r.ok) << r.error;
  const auto f = object_features(r.so_path);
  ASSERT_TRUE(f.is_object());
  ASSERT_TRUE(f.contains("fma")) << "objdump missing? " << f.dump();
  EXPECT_GE(f["fma"].get<long>(), 1);
  EXPECT_GE(f["vector_loads"].get<long>(), 1);
  EXPECT_GE(f["vector_stores"].get<long>(), 1);
  EXPECT_GE(f["branches"].get<long>(), 1);  // the loops
  EXPECT_EQ(f["functions"].get<long>(), 1);
  EXPECT_GT(f["code_bytes"].get<long>(), 16);
  EXPECT_GE(f["instructions"].get<long>(), f["fma"].get<long>() + 2);
}

TEST(ObjectFeatures, AnUnreadableFileGivesAnEmptyObject) {
  const auto f = object_features("/nonexistent/kernel.so");
  EXPECT_TRUE(f.is_object());
  EXPECT_TRUE(f.empty());
}

}  // namespace
}  // namespace attune::test
