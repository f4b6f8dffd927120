// Fuzz target spec_parser: any text is an op or an attune::Error (op.hpp's parse_spec), and an
// op prints to text that parses back to the same op (parse_spec(print_spec(x)) == x).
#include <optional>
#include <string>

#include "fuzz.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attune;
  std::optional<Op> op;
  try {
    op = parse_spec(fuzz::as_text(data, size));
  } catch (const Error&) {
    return 0;
  }
  const std::string printed = print_spec(*op);
  try {
    if (!(parse_spec(printed) == *op)) fuzz::finding("the printed spec parses to another op", printed);
  } catch (const Error& e) {
    fuzz::finding("the printed spec does not parse", printed + "\n" + e.what());
  }
  return 0;
}
