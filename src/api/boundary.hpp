// api/boundary.hpp — the C++ API promises one exception type (attune::Error). What attune's
// internals may throw besides it (InternalError for a broken invariant, a library's own
// exceptions) is turned into an Error here, once, at every public entry point.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "ir/error.hpp"

namespace attune {

// Runs `f`; an exception other than Error (and bad_alloc, which stays what it is) becomes an
// Error whose message starts with `what` ("load", "tune", ...).
template <class F>
decltype(auto) at_api_boundary(const char* what, F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(std::string(what) + ": internal error in attune: " + e.what());
  }
}

}  // namespace attune
