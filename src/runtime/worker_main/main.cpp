// attune-worker — measures one candidate kernel for attune's runner (src/runtime/worker.cpp).
// The executable's main only: it lives beside the runtime it forwards to, and attune_stage()
// keeps *_main/ folders out of the stage library (CMakeLists.txt).
// Not meant to be run by hand: `attune-worker REQUEST.json` prints a JSON result on stdout.
#include <unistd.h>

#include <cstdio>

#include "runtime/runtime.hpp"

int main(int argc, char** argv) {
  const int rc = attune::worker_main(argc, argv);
  // The result is out. Skip static destructors and atexit handlers: a kernel's library (or the
  // OpenMP runtime it started) crashing on the way out must not turn a result into a crash.
  std::fflush(nullptr);
  ::_exit(rc);
}
