// names.cpp — the rules of ir/names.hpp: C identifiers, keywords, the names generated code
// uses itself, and op labels.
#include "ir/names.hpp"

#include <algorithm>
#include <iterator>

namespace attune {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

template <std::size_t N>
bool among(const std::string_view (&list)[N], std::string_view s) {
  return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

// C11, GNU C extensions spelled without underscores, and C++20 (CUDA kernels are C++).
// Names with a leading underscore (_Bool, __restrict__, ...) are refused by shape instead.
// clang-format off
constexpr std::string_view kKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "import", "inline", "int", "long", "module", "mutable", "namespace", "new", "noexcept",
    "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof",
    "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
    "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "typeof",
    "typeof_unqual", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
    "while", "xor", "xor_eq"};
// clang-format on

// Names the generators declare in a kernel's scope, or that the headers they include define
// as object-like macros: a tensor of that name would shadow or be replaced by them.
constexpr std::string_view kGeneratorNames[] = {
    // every kernel: the ABI's argument and the exported symbols
    "buffers", "attune_kernel", "main",
    // the CPU kernels' vector helpers (cpu_codegen.cpp)
    "vf", "vi", "vld", "vst", "vbc", "vrelu",
    // the tensorizers' staging arrays (tensorize_cpu.cpp, cuda_emitter.cpp)
    "a_s", "b_s", "c_s", "As", "Bs", "Cs",
    // the GPU harness's helpers (harness.cpp) and CUDA's built-in names
    "to_d", "fill", "time_ms", "reference_at", "CK", "std", "nvcuda", "wmma", "half", "dim3", "threadIdx", "blockIdx",
    "blockDim", "gridDim", "warpSize",
    // functions and macros of the C headers the kernels include
    "aligned_alloc", "malloc", "free", "memcpy", "memset", "NULL", "RAND_MAX", "MB_CUR_MAX",
    // the math the multi-stage kernels call (C: cpu/c_compute.cpp; CUDA: cuda/stage_kernels.cpp),
    // which a kernel parameter of that name would shadow, and math.h's macros
    "expf", "logf", "sqrtf", "rsqrtf", "erff", "tanhf", "fabsf", "fmaxf", "fminf", "INFINITY", "NAN"};

constexpr std::string_view kReservedPrefixes[] = {"i_", "v_", "attune_"};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// `X_r0`, `X_r12`: the registers of a promoted buffer X (c_vector.cpp).
bool is_register_name(std::string_view s) {
  const auto r = s.rfind("_r");
  if (r == std::string_view::npos || r + 2 == s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(r) + 2, s.end(), is_digit);
}

bool is_label_char(char c) {
  if (is_alpha(c) || is_digit(c)) return true;
  return std::string_view("_.-+=:,@").find(c) != std::string_view::npos;
}

}  // namespace

bool is_c_identifier(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameLength || is_digit(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; });
}

bool is_c_keyword(std::string_view s) { return among(kKeywords, s); }

std::optional<std::string> tensor_name_problem(std::string_view name) {
  if (name.size() > kMaxNameLength) return "is longer than " + std::to_string(kMaxNameLength) + " characters";
  if (!is_c_identifier(name))
    return std::string("is not a C identifier (letters, digits and '_', not starting with a digit)");
  if (is_c_keyword(name)) return std::string("is a C or C++ keyword");
  if (among(kGeneratorNames, name)) return std::string("is a name attune's generated code uses itself");
  for (auto p : kReservedPrefixes)
    if (name.substr(0, p.size()) == p)
      return "starts with '" + std::string(p) + "', which attune's generated names use";
  if (name.front() == '_' || name.back() == '_')
    return std::string("starts or ends with '_', which attune's generated names and the C implementation use");
  if (ends_with(name, "_t") || ends_with(name, "_MAX") || ends_with(name, "_MIN") || ends_with(name, "_C"))
    return std::string("ends like a type or macro of the C headers (_t, _MAX, _MIN, _C)");
  if (ends_with(name, "_ws") || is_register_name(name))
    return std::string("ends like a buffer attune generates (_ws, _r<digits>)");
  return std::nullopt;
}

std::optional<std::string> label_problem(std::string_view label) {
  if (label.size() > kMaxLabelLength) return "is longer than " + std::to_string(kMaxLabelLength) + " characters";
  for (char c : label)
    if (!is_label_char(c)) {
      const auto u = static_cast<unsigned char>(c);
      const std::string shown = u > ' ' && u < 127 ? "'" + std::string(1, c) + "'" : "byte " + std::to_string(u);
      return "holds " + shown + "; a label has letters, digits and _ . - + = : , @ only";
    }
  return std::nullopt;
}

}  // namespace attune
