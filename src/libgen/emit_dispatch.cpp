// emit_dispatch.cpp — src/NAME_internal.h and src/NAME_dispatch.c.
//
// Per family the dispatcher normalises the params (zero stride means 1, DEFAULT layout means
// the first one, flags become 0/1), validates them, then looks the normalised struct up in a
// constant table of tuned shapes — every field compared, so a tuned kernel only ever runs on
// exactly the computation it was verified on. No match: the generic kernel. The tables are
// const and the functions keep no state, so every entry point is reentrant.
#include <algorithm>
#include <iomanip>
#include <sstream>

#include "ir/error.hpp"
#include "libgen/library.hpp"
#include "search/tuner.hpp"

namespace attune::libgen {

namespace {

std::string ms(double s) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(4) << s * 1e3 << " ms";
  return os.str();
}

std::string layout_const(const std::string& layout) { return "@U@_LAYOUT_" + layout; }

// "zero stride/dilation -> 1, DEFAULT layout -> NCHW, zero eps -> 1e-5, flags -> 0/1"
std::string normalisations(const Family& f) {
  std::string norms;
  for (const auto& p : f.fields)
    if (p.zero_is_one) norms += (norms.empty() ? "zero " : "/") + p.name;
  if (!norms.empty()) norms += " -> 1, ";
  if (f.has_layout()) norms += "DEFAULT layout -> " + f.variants.front().layout + ", ";
  for (const auto& p : f.fields)
    if (!p.zero_means.empty()) norms += "zero " + p.name + " -> " + p.zero_means + ", ";
  if (f.has_bias()) return norms + "flags -> 0/1";
  return norms.empty() ? "nothing to fill in" : norms.substr(0, norms.size() - 2);
}

// The normalisation and validation of one field.
std::string check_field(const Family& f, const ParamField& p) {
  std::ostringstream os;
  const std::string v = "o->" + p.name;
  switch (p.kind) {
    case FieldKind::layout:
      os << "  if (" << v << " == @U@_LAYOUT_DEFAULT) " << v << " = " << layout_const(f.variants.front().layout)
         << ";\n  if (";
      for (std::size_t i = 0; i < f.variants.size(); ++i)
        os << (i ? " && " : "") << v << " != " << layout_const(f.variants[i].layout);
      os << ") return -1;\n";
      break;
    case FieldKind::choice:
      os << "  if (" << v << " < 0 || " << v << " >= " << p.choices.size() << ") return -1;\n";
      break;
    case FieldKind::real:
      if (!p.zero_means.empty()) {
        os << "  if (" << v << " == 0) " << v << " = " << c_double_literal(std::stod(p.zero_means)) << ";\n";
        os << "  if (" << v << " < 0) return -1;\n";
      }
      os << "  if (!(" << v << " - " << v << " == 0)) return -1; /* NaN or infinite */\n";
      break;
    case FieldKind::integer:
      if (p.zero_is_one)
        os << "  if (" << v << " == 0) " << v << " = 1;\n  if (" << v << " < 1) return -1;\n";
      else
        os << "  if (" << v << " < " << (p.may_be_zero ? 0 : 1) << ") return -1;\n";
      break;
  }
  return os.str();
}

// Normalise and validate, generated from the family's fields; the family's own rules (clip's
// lo <= hi, pooling's pad < R) are the generic kernel's out_numel <= 0.
std::string check_fn(const Family& f) {
  const std::string t = "@P@_" + f.name + "_params";
  std::ostringstream os;
  os << "/* Normalises *p into *o (" << normalisations(f) << "); 0 when valid. */\n";
  os << "static int " << f.name << "_check(const " << t << "* p, " << t << "* o) {\n";
  os << "  if (!p) return -1;\n  *o = *p;\n";
  for (const auto& p : f.fields) os << check_field(f, p);
  if (f.has_bias()) os << "  o->bias = o->bias != 0;\n  o->relu = o->relu != 0;\n";
  os << "  return @P@_impl_" << f.name << "_out_numel(o) > 0 ? 0 : -1;\n}\n\n";
  return os.str();
}

// Every field compared (reals exactly: a tuned kernel has its constants compiled in).
std::string same_fn(const Family& f) {
  const std::string t = "@P@_" + f.name + "_params";
  std::vector<std::string> terms;
  for (const auto& p : f.fields) terms.push_back("a->" + p.name + " == b->" + p.name);
  if (f.has_bias()) terms.push_back("a->bias == b->bias && a->relu == b->relu");
  std::ostringstream os;
  os << "static int " << f.name << "_same(const " << t << "* a, const " << t << "* b) {\n  return ";
  for (std::size_t i = 0; i < terms.size(); ++i) os << (i ? " &&\n         " : "") << terms[i];
  os << ";\n}\n\n";
  return os.str();
}

// A field's value in a tuned kernel's key, as C.
std::string key_value(const ParamField& p, const std::string& v) {
  switch (p.kind) {
    case FieldKind::layout: return layout_const(v);
    case FieldKind::real: return c_double_literal(std::stod(v));
    case FieldKind::choice: {
      const auto it = std::find(p.choices.begin(), p.choices.end(), v);
      if (it == p.choices.end()) throw InternalError("libgen: '" + v + "' is not a choice of field " + p.name);
      return std::to_string(it - p.choices.begin());
    }
    case FieldKind::integer: break;
  }
  return std::to_string(std::stoll(v));  // digits only, whatever the map holds
}

std::string key_of(const Family& f, const FamilyMatch& m) {
  std::string s = "{";
  for (const auto& p : f.fields) s += "." + p.name + " = " + key_value(p, m.params.at(p.name)) + ", ";
  if (!f.has_bias()) return s.substr(0, s.size() - 2) + "}";
  return s + ".bias = " + (m.bias() ? "1" : "0") + ", .relu = " + (m.relu() ? "1" : "0") + "}";
}

std::string table(const Library& lib, const Family& f) {
  std::ostringstream os;
  os << "typedef struct " << f.name << "_tuned {\n  @P@_" << f.name << "_params key;\n"
     << "  void (*run)(void* const* buffers);\n  const char* name;\n} " << f.name << "_tuned;\n\n";
  os << "static const " << f.name << "_tuned " << f.name << "_table[] = {\n";
  for (const Kernel* k : lib.of_family(f.name)) {
    os << "    /* task '" << comment_safe(k->task.name) << "': " << ms(k->best.median_s) << ", " << std::fixed
       << std::setprecision(2) << k->gflops << " GFLOP/s */\n";
    os << "    {" << key_of(f, *k->match) << ",\n     " << k->symbol << ", \"" << k->symbol << "\"},\n";
  }
  os << "    {{0}, 0, 0} /* end */\n};\n\n";
  os << "static const " << f.name << "_tuned* " << f.name << "_find(const @P@_" << f.name << "_params* o) {\n"
     << "  for (const " << f.name << "_tuned* t = " << f.name << "_table; t->run; ++t)\n"
     << "    if (" << f.name << "_same(&t->key, o)) return t;\n  return 0;\n}\n\n";
  return os.str();
}

// "!X || !Y" for every pointer, the bias only when the flag asks for it; declaration order.
std::string null_checks(const Family& f) {
  std::string s;
  for (const auto& a : f.args)
    s += std::string(s.empty() ? "" : " || ") + (a.role == ArgRole::bias ? "(o.bias && !bias)" : "!" + a.name);
  return s;
}

// "{(void*)A, (void*)B, C, (void*)bias}": the kernel ABI, one pointer per tensor in the op's order.
std::string buffer_list(const Family& f) {
  std::string s;
  for (const auto& a : f.args)
    s += (s.empty() ? "" : ", ") + (a.role == ArgRole::output ? a.name : "(void*)" + a.name);
  return "{" + s + "}";
}

// "A, B, o.bias ? bias : 0, C": the generic kernel's arguments, in the C order.
std::string generic_args(const Family& f) {
  std::string s;
  for (const auto& a : f.c_order())
    s += (s.empty() ? "" : ", ") + (a.role == ArgRole::bias ? "o.bias ? bias : 0" : a.name);
  return s;
}

std::string entry_points(const Family& f) {
  const std::string P = "@P@_" + f.name, T = P + "_params";
  std::ostringstream os;
  os << "int " << P << "(const " << T << "* p, " << pointer_params(f) << ") {\n"
     << "  " << T << " o;\n"
     << "  if (" << f.name << "_check(p, &o) != 0 || " << null_checks(f) << ") return @U@_EINVAL;\n"
     << "  const " << f.name << "_tuned* t = " << f.name << "_find(&o);\n"
     << "  if (t) {\n"
     << (f.has_bias() ? "    /* The kernel ABI: one pointer per tensor in the op's order (inputs, output, bias). */\n"
                      : "    /* The kernel ABI: one pointer per tensor in the op's order. */\n")
     << "    void* buffers[" << f.args.size() << "] = " << buffer_list(f) << ";\n"
     << "    t->run(buffers);\n"
     << "  } else {\n"
     << "    @P@_impl_" << f.name << "_generic(&o, " << generic_args(f) << ");\n"
     << "  }\n  return @U@_OK;\n}\n\n";
  os << "int " << P << "_is_tuned(const " << T << "* p) {\n  " << T << " o;\n"
     << "  return " << f.name << "_check(p, &o) == 0 && " << f.name << "_find(&o) != 0;\n}\n\n";
  os << "const char* " << P << "_kernel_name(const " << T << "* p) {\n  " << T << " o;\n"
     << "  if (" << f.name << "_check(p, &o) != 0) return \"invalid\";\n"
     << "  const " << f.name << "_tuned* t = " << f.name << "_find(&o);\n"
     << "  return t ? t->name : \"generic\";\n}\n\n";
  os << "long long " << P << "_output_size(const " << T << "* p) {\n  " << T << " o;\n"
     << "  return " << f.name << "_check(p, &o) == 0 ? @P@_impl_" << f.name << "_out_numel(&o) : -1;\n}\n\n";
  return os.str();
}

}  // namespace

std::string emit_internal_header(const Library& lib) {
  std::ostringstream os;
  os << "/* @P@_internal.h — declarations shared by the library's sources (not installed). */\n"
     << "#ifndef @U@_INTERNAL_H\n#define @U@_INTERNAL_H\n\n#include \"@P@.h\"\n\n"
     << "/* Tuned kernels (src/kernels/), fixed shapes: buffers[i] is the op's i-th tensor. */\n";
  for (const auto& k : lib.kernels) os << "void " << k.symbol << "(void* const* buffers);\n";
  os << "\n/* Generic kernels (@P@_generic.c, @P@_generic_stages.c); p is normalised and valid.\n"
     << " * out_numel: the output's element count, <= 0 when the shape leaves no output, groups do\n"
     << " * not divide, or the family's own rules refuse p (clip: lo > hi; pooling: pad >= R). */\n";
  for (const auto& f : families()) {
    const std::string T = "const @P@_" + f.name + "_params*";
    os << "long long @P@_impl_" << f.name << "_out_numel(" << T << " p);\n"
       << "void @P@_impl_" << f.name << "_generic(" << T << " p, " << pointer_params(f) << ");\n";
  }
  os << "\n#endif /* @U@_INTERNAL_H */\n";
  return substitute(os.str(), lib);
}

std::string emit_dispatch(const Library& lib) {
  std::ostringstream os;
  os << "/* @P@_dispatch.c — the public entry points: each family's tuned kernel for its tuned\n"
     << " * shapes, the generic kernel otherwise. Generated by attune libgen. */\n"
     << "#include \"@P@_internal.h\"\n\n";
  for (const auto& f : families()) {
    os << "/* ---- " << f.name << " ---- */\n\n" << check_fn(f) << same_fn(f) << table(lib, f) << entry_points(f);
  }
  bool any_raw = false;
  for (const auto& k : lib.kernels) {
    if (k.match) continue;
    if (!any_raw) os << "/* ---- tuned tasks without a family: fixed shapes, no fallback ---- */\n\n";
    any_raw = true;
    os << "/* task '" << comment_safe(k.task.name) << "': " << ms(k.best.median_s) << ", " << std::fixed
       << std::setprecision(2) << k.gflops << " GFLOP/s */\n"
       << "void " << k.entry << "(void* const* buffers) { " << k.symbol << "(buffers); }\n\n";
  }
  return substitute(os.str(), lib);
}

}  // namespace attune::libgen
