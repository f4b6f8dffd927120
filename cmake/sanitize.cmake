# ATTUNE_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer on everything this build
# compiles and links. `make test-asan` uses it for the fast unit tests (tests/CMakeLists.txt,
# label `unit`), configured without libtorch (ATTUNE_WITH_TORCH=OFF; only attune_search would
# link it). They do not link OpenMP either: only bench/ does, and the generated kernels, which
# the system compiler builds with their own flags and which run in a separate, uninstrumented
# worker process. So neither runtime meets the sanitizers there.
option(ATTUNE_SANITIZE "Build with ASan + UBSan (the fast unit tests: make test-asan)" OFF)
if(ATTUNE_SANITIZE)
  # -fno-sanitize-recover: undefined behaviour fails the test instead of printing and going on.
  # -fno-omit-frame-pointer: whole stack traces in the reports.
  set(ATTUNE_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(${ATTUNE_SANITIZE_FLAGS})
  add_link_options(${ATTUNE_SANITIZE_FLAGS})
endif()
