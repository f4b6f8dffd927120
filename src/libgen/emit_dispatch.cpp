// emit_dispatch.cpp — src/NAME_internal.h and src/NAME_dispatch.c.
//
// Per family the dispatcher normalises the params (zero stride means 1, DEFAULT layout means
// the first one, flags become 0/1), validates them, then looks the normalised struct up in a
// constant table of tuned shapes — every field compared, so a tuned kernel only ever runs on
// exactly the computation it was verified on. No match: the generic kernel. The tables are
// const and the functions keep no state, so every entry point is reentrant.
#include <iomanip>
#include <sstream>

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

// Normalise and validate, generated from the family's fields.
std::string check_fn(const Family& f) {
  const std::string t = "@P@_" + f.name + "_params";
  std::ostringstream os;
  std::string norms;
  for (const auto& p : f.fields)
    if (p.zero_is_one) norms += (norms.empty() ? "zero " : "/") + p.name;
  if (!norms.empty()) norms += " -> 1, ";
  if (f.has_layout()) norms += "DEFAULT layout -> " + f.variants.front().layout + ", ";
  os << "/* Normalises *p into *o (" << norms << "flags -> 0/1); 0 when valid. */\n";
  os << "static int " << f.name << "_check(const " << t << "* p, " << t << "* o) {\n";
  os << "  if (!p) return -1;\n  *o = *p;\n";
  for (const auto& p : f.fields) {
    if (p.name == "layout") {
      os << "  if (o->layout == @U@_LAYOUT_DEFAULT) o->layout = " << layout_const(f.variants.front().layout) << ";\n";
      os << "  if (";
      for (std::size_t i = 0; i < f.variants.size(); ++i)
        os << (i ? " && " : "") << "o->layout != " << layout_const(f.variants[i].layout);
      os << ") return -1;\n";
    } else if (p.zero_is_one) {
      os << "  if (o->" << p.name << " == 0) o->" << p.name << " = 1;\n";
      os << "  if (o->" << p.name << " < 1) return -1;\n";
    } else {
      os << "  if (o->" << p.name << " < " << (p.may_be_zero ? 0 : 1) << ") return -1;\n";
    }
  }
  os << "  o->bias = o->bias != 0;\n  o->relu = o->relu != 0;\n";
  os << "  return @P@_impl_" << f.name << "_out_numel(o) > 0 ? 0 : -1;\n}\n\n";
  return os.str();
}

std::string same_fn(const Family& f) {
  const std::string t = "@P@_" + f.name + "_params";
  std::ostringstream os;
  os << "static int " << f.name << "_same(const " << t << "* a, const " << t << "* b) {\n  return ";
  for (const auto& p : f.fields) os << "a->" << p.name << " == b->" << p.name << " &&\n         ";
  os << "a->bias == b->bias && a->relu == b->relu;\n}\n\n";
  return os.str();
}

std::string key_of(const Family& f, const FamilyMatch& m) {
  std::string s = "{";
  for (const auto& p : f.fields) {
    const std::string& v = m.params.at(p.name);
    s += "." + p.name + " = " + (p.name == "layout" ? layout_const(v) : v) + ", ";
  }
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

std::string entry_points(const Family& f) {
  const std::string P = "@P@_" + f.name, T = P + "_params", a = f.inputs[0], b = f.inputs[1], c = f.output;
  std::ostringstream os;
  os << "int " << P << "(const " << T << "* p, const float* " << a << ", const float* " << b
     << ", const float* bias, float* " << c << ") {\n"
     << "  " << T << " o;\n"
     << "  if (" << f.name << "_check(p, &o) != 0 || !" << a << " || !" << b << " || !" << c
     << " || (o.bias && !bias)) return @U@_EINVAL;\n"
     << "  const " << f.name << "_tuned* t = " << f.name << "_find(&o);\n"
     << "  if (t) {\n"
     << "    /* The kernel ABI: one pointer per tensor in the op's order (inputs, output, bias). */\n"
     << "    void* buffers[4] = {(void*)" << a << ", (void*)" << b << ", " << c << ", (void*)bias};\n"
     << "    t->run(buffers);\n"
     << "  } else {\n"
     << "    @P@_impl_" << f.name << "_generic(&o, " << a << ", " << b << ", o.bias ? bias : 0, " << c << ");\n"
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
  os << "\n/* Generic kernels (@P@_generic.c); p is normalised and valid. out_numel: the output's\n"
     << " * element count, <= 0 when the shape leaves no output or groups do not divide. */\n";
  for (const auto& f : families()) {
    const std::string T = "const @P@_" + f.name + "_params*";
    os << "long long @P@_impl_" << f.name << "_out_numel(" << T << " p);\n"
       << "void @P@_impl_" << f.name << "_generic(" << T << " p, const float* " << f.inputs[0] << ", const float* "
       << f.inputs[1] << ", const float* bias, float* " << f.output << ");\n";
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
