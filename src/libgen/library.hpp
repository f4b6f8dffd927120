// libgen/library.hpp — what generate_library() collects before writing, and the writers.
//
// libgen.cpp gathers a Library (the tasks' best records, their family matches, the kernel
// symbols and sources); each emit_* function turns it into the text of one generated file.
// Keeping the model apart from the writers lets each file's emitter stay small and testable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/c_safe.hpp"
#include "db/db.hpp"
#include "ir/op.hpp"
#include "libgen/family_match.hpp"

namespace attune::libgen {

struct Kernel {
  TaskInfo task;
  Record best;
  Op op;                             // parsed from the task's canonical spec, named after it
  std::optional<FamilyMatch> match;  // set only for f32 tasks of a family: reached by dispatch
  std::string symbol;                // NAME_<family or task>_k<hash>
  std::string entry;                 // public entry: NAME_<family>, or NAME_<task> when raw
  std::string file;                  // "src/kernels/<symbol>.c"
  std::string source;                // the kernel's C text (codegen output, symbol renamed)
  double gflops = 0;
};

struct Library {
  std::string name;    // C identifier, lower or mixed case as given
  std::string macro;   // NAME in upper case, for macros
  std::string target;  // the target's name
  std::string target_arch;
  std::vector<std::string> flags;  // C flags for every source (target's, minus -march=native)
  std::string db_name;             // the database file's base name (no directories)
  std::string generated_at;        // ISO-8601 UTC
  std::vector<Kernel> kernels;     // in task order

  std::vector<const Kernel*> of_family(const std::string& family) const;
};

// Each returns the complete text of one generated file.
std::string emit_header(const Library& lib);           // include/NAME.h
std::string emit_internal_header(const Library& lib);  // src/NAME_internal.h
std::string emit_dispatch(const Library& lib);         // src/NAME_dispatch.c
std::string emit_generic(const Library& lib);          // src/NAME_generic.c
std::string emit_generic_stages(const Library& lib);   // src/NAME_generic_stages.c
std::string emit_kernel_file(const Library& lib, const Kernel& k);
// "N=1 H=10 ... layout=NCHW epilogue=relu": a dispatched kernel's parameters; empty when raw.
std::string family_params_text(const Kernel& k);
std::string emit_cmake(const Library& lib);           // CMakeLists.txt
std::string emit_package_config(const Library& lib);  // cmake/NAMEConfig.cmake
std::string emit_pkgconfig(const Library& lib);       // NAME.pc
std::string emit_readme(const Library& lib);          // README.md

// "const float* in, const float* w, const float* bias, float* out": a family's pointer
// arguments in the C order (Family::c_order), for every declaration of its functions.
std::string pointer_params(const Family& f);

// Replaces every "@P@" by the library name and "@U@" by its macro prefix.
std::string substitute(std::string text, const Library& lib);
// Outside text (task names, record fields) reaches the generated files only through
// codegen/c_safe.hpp (comment_safe, c_comment_lines) or markdown_cell() below.
// Text as one cell of a Markdown table: comment_safe() with '|' and '`' escaped.
std::string markdown_cell(const std::string& text);

}  // namespace attune::libgen
