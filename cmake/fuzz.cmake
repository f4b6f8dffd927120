# ATTUNE_FUZZ: the libFuzzer build of fuzz/ (scripts/fuzz.sh configures it in build-fuzz/ with
# clang). Everything is compiled with the fuzzer's coverage instrumentation and ASan + UBSan,
# so a crash, an out-of-bounds access or undefined behaviour anywhere in the library under a
# fuzz target is a finding; only the fuzz_<target> executables link libFuzzer itself.
option(ATTUNE_FUZZ "Build the libFuzzer targets of fuzz/ (clang; scripts/fuzz.sh)" OFF)
if(ATTUNE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ATTUNE_FUZZ needs clang (CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  set(ATTUNE_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                        -fno-omit-frame-pointer)
  add_compile_options(${ATTUNE_FUZZ_FLAGS})
  add_link_options(-fsanitize=address,undefined)
endif()
