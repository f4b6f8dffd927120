// ir/names.hpp — which names and labels may reach generated code (part of the ir stage).
//
// Tensor names become C identifiers in every kernel attune generates (`float* restrict A`);
// an op's label is printed in the kernels' header comments and in the GPU harness. Both come
// from text a user, or a shared database, supplies. The rules live here, in the first stage,
// so that the spec parser refuses a bad name where it is written (`line:col: ...`) and the
// code generators (attune/c_text.hpp) check the same rules again before writing C.
//
// A tensor name must be a C identifier that is not
//   - a keyword of C11, GNU C or C++ (the CUDA path compiles as C++): int, for, restrict,
//     typeof, asm, class, ...;
//   - a name the generated code declares or includes itself: `buffers`, the vector helpers
//     (vf, vld, vst, vbc, vrelu, ...), the tensorizers' staging arrays (a_s, As, ...), the
//     harness's to_d / reference_at, macros and typedefs of the C headers (NULL, *_t, *_MAX);
//   - shaped like one: a prefix of loop variables (`i_`, `v_`), a leading or trailing '_' (the
//     implementation's and the tensorizers' locals), or a suffix of generated buffers (`_ws`,
//     `_r<digits>`).
// A label is 1 to 128 characters from letters, digits and `_ . - + = : , @`, so that it reads
// the same in a comment, a file name or a report line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attune {

inline constexpr std::size_t kMaxNameLength = 64;
inline constexpr std::size_t kMaxLabelLength = 128;

// Letters, digits and '_', not starting with a digit, at most kMaxNameLength characters.
bool is_c_identifier(std::string_view s);
// A keyword of C11, GNU C or C++20 (including the alternative tokens `and`, `or`, ...).
bool is_c_keyword(std::string_view s);

// Why `name` cannot be a tensor name, as a phrase ("is a C keyword"); nullopt when it can.
std::optional<std::string> tensor_name_problem(std::string_view name);
// Why `label` cannot be an op label; nullopt when it can.
std::optional<std::string> label_problem(std::string_view label);

}  // namespace attune
