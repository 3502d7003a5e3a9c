/// Reading and writing NumPy .npy files (format 1.0/2.0, little-endian, C order): the
/// conformance cases keep their inputs and expected outputs in them.
#pragma once

#include "cutwin/cutwin.h"

#include <string>
#include <vector>

namespace cutwin::conformance {

struct NpyArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; ///< C order
  int64_t size() const;
};

NpyArray readNpy(const std::string &path);
void writeNpy(const std::string &path, const NpyArray &a);

} // namespace cutwin::conformance
