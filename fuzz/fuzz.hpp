// fuzz/fuzz.hpp — what every fuzz target shares.
//
// Each target (fuzz/<target>.cpp) defines LLVMFuzzerTestOneInput: it hands the input to one
// library entry point and catches attune::Error, the documented way to refuse an input. Any
// other exception, a crash, a sanitizer report, or a broken promise checked with finding()
// (a documented round trip) is a finding. Built two ways (fuzz/CMakeLists.txt): with clang's
// libFuzzer under ASan + UBSan (ATTUNE_FUZZ, `make fuzz`), and in every build with
// corpus_main.cpp, which runs each seed of fuzz/corpus/<target>/ once (ctest fuzz.<target>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace attune::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A promise the library documents was broken: prints both sides and aborts (a crash to
// libFuzzer, a failed test to corpus_main).
[[noreturn]] void finding(std::string_view what, std::string_view detail);

}  // namespace attune::fuzz
