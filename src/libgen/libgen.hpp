// libgen/libgen.hpp — turn a tuning database into a standalone C library (the libgen/ stage).
//
// generate_library() takes the best verified record (Database::best: status ok, checked
// against the reference evaluator) of every task tuned for the target, or of the tasks named
// by a workload file, and writes into out_dir:
//   include/NAME.h         the documented public header
//   src/kernels/*.c        one readable C file per tuned kernel, with a comment header
//                          (spec, trace, measured time and GFLOP/s, date, compiler)
//   src/NAME_dispatch.c    per family an entry point `int NAME_<family>(const
//                          NAME_<family>_params* p, pointers...)` that dispatches on the shape
//                          to the tuned kernel, else falls back to a generic kernel;
//                          `NAME_<family>_is_tuned` / `_kernel_name` say which one runs. The
//                          struct's fields are the template's parameters; the pointers are
//                          the op's tensors in declaration order, inputs first, the output
//                          last (a contraction's optional bias just before it). Families
//                          (families.hpp): the contractions (gemm, conv2d, ...) and the
//                          multi-stage ops (softmax, layernorm, maxpool2d, attention, ...)
//   src/NAME_generic.c     the generic kernels of the contractions, and
//   src/NAME_generic_stages.c  those of the multi-stage ops: plain C loops, correct for any
//                          valid shape (float in and out, double accumulation)
//   CMakeLists.txt         static and shared libraries, install rules, NAMEConfig.cmake
//   cmake/, NAME.pc        find_package(NAME) -> NAME::NAME; pkg-config
//   README.md              the kernels and their measured speed
//   .attune-libgen         the list of files written (not in LibgenResult::files): what a
//                          later run with `force` may replace or remove, and nothing else
// out_dir must be new, empty, or hold an earlier libgen output (then `force` is needed); the
// filesystem root, top-level and system directories and the home directory are refused, and
// a file libgen did not write is never replaced or deleted (src/libgen/out_dir.hpp).
// Tasks that match no template, and non-float tasks, get a tuned entry point of their own
// (`void NAME_<task>(void* const* buffers)`, the kernel ABI of artifact.hpp) and no dispatcher.
// Nothing in the output refers to attune or to absolute paths: it builds anywhere with CMake,
// a C compiler with OpenMP, and the target's ISA.
//
// Tests: tests/libgen/.
#pragma once

#include <string>
#include <vector>

namespace attune {

struct LibgenOptions {
  std::string db_path;                  // the tuning database (must exist)
  std::string out_dir;                  // new, empty, or an earlier libgen output (with force)
  bool force = false;                   // replace an earlier libgen output in out_dir
  std::string name = "attune_kernels";  // C identifier: the library, header and symbol prefix
  std::string target = "cpu";           // target name or file (load_target); tasks of it only
  std::string ops_file;                 // optional workload file: only these ops (each must be tuned)
};

struct LibgenKernel {
  std::string symbol;  // the kernel's C function, e.g. "mylib_conv2d_k1a2b3c4d"
  std::string task;    // the task's name in the database
  std::string family;  // "conv2d", ...; empty when the task matched no float template
  std::string entry;   // the public entry point that reaches it ("mylib_conv2d", "mylib_foo")
  std::string file;    // its source, relative to out_dir
  double time_s = 0;   // measured median
  double gflops = 0;
};

struct LibgenResult {
  int tuned_kernels = 0;
  std::vector<LibgenKernel> kernels;  // in task order
  std::vector<std::string> files;     // every file written, relative to out_dir, sorted
};

// Throws attune::Error (one line) for: a missing or unreadable database, a bad name, an
// unknown target, an ops file naming an op that has no verified record, no tuned task at all,
// or an output directory that cannot be created or written, or that the rules above refuse.
LibgenResult generate_library(const LibgenOptions& options);

// The C flags a generated library compiles kernels with: the target's, without those that
// would tie it to the tuning machine (-march=native) or that CMake sets itself (OpenMP, PIC).
struct Target;
std::vector<std::string> library_flags(const Target& t);

}  // namespace attune
