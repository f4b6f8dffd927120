// graph/npy.hpp — NumPy's .npy files: the inputs `attune run-model` reads and the outputs it
// writes (format 1.0-3.0, little-endian float32, int64, int32 or bool, C order).
#pragma once

#include <string>

#include "graph/host_tensor.hpp"

namespace attune::graph {

// Throws Error naming the file for a missing file, a bad header, an unsupported dtype or
// Fortran order, or data shorter or longer than the shape says.
HostTensor read_npy(const std::string& path);
// Writes format 1.0 ('<f4' or '<i8'). Throws Error when the file cannot be written.
void write_npy(const std::string& path, const HostTensor& t);

}  // namespace attune::graph
