#include "conformance/npy.h"

#include <fstream>
#include <sstream>

namespace cutwin::conformance {

int64_t NpyArray::size() const {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

namespace {

// NumPy's descr of each element type of dtypes.def: its type code after the byte order
// ('|' where one byte has none).
const std::pair<std::string, DType> kDescr[] = {
#define CUTWIN_SCALAR(id, value, name, code, bytes) {std::string(bytes == 1 ? "|" : "<") + code, DType::id},
#define CUTWIN_RECORD(id, value, name, bytes)
#include "cutwin/dtypes.def"
#undef CUTWIN_SCALAR
#undef CUTWIN_RECORD
};

std::string headerValue(const std::string &h, const std::string &key) {
  auto k = h.find("'" + key + "'");
  if (k == std::string::npos)
    throw Error("npy header lacks '" + key + "'");
  auto colon = h.find(':', k);
  return h.substr(colon + 1);
}

} // namespace

NpyArray readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot open '" + path + "'");
  char magic[8];
  in.read(magic, 8);
  if (!in || std::string(magic, 6) != "\x93NUMPY")
    throw Error("'" + path + "' is not a .npy file");
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    uint16_t l;
    in.read(reinterpret_cast<char *>(&l), 2);
    hlen = l;
  } else {
    in.read(reinterpret_cast<char *>(&hlen), 4);
  }
  std::string h(hlen, '\0');
  in.read(h.data(), hlen);
  NpyArray a;
  std::string descr = headerValue(h, "descr");
  bool found = false;
  for (auto &[d, t] : kDescr)
    if (descr.find("'" + d + "'") < descr.find(',')) {
      a.dtype = t;
      found = true;
    }
  if (!found)
    throw Error("'" + path + "': unsupported dtype in header " + h);
  if (headerValue(h, "fortran_order").find("True") < headerValue(h, "fortran_order").find(','))
    throw Error("'" + path + "': Fortran-order arrays are not supported");
  std::string shape = headerValue(h, "shape");
  shape = shape.substr(shape.find('(') + 1, shape.find(')') - shape.find('(') - 1);
  std::stringstream ss(shape);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item.find_first_not_of(" ") != std::string::npos)
      a.shape.push_back(std::stoll(item));
  a.data.resize(size_t(a.size()) * dtypeSize(a.dtype));
  in.read(reinterpret_cast<char *>(a.data.data()), std::streamsize(a.data.size()));
  if (!in)
    throw Error("'" + path + "' is truncated");
  return a;
}

void writeNpy(const std::string &path, const NpyArray &a) {
  std::string descr;
  for (auto &[d, t] : kDescr)
    if (t == a.dtype)
      descr = d;
  if (descr.empty())
    throw Error("'" + path + "': no .npy descr for this element type");
  std::string shape = "(";
  for (auto d : a.shape)
    shape += std::to_string(d) + ",";
  if (a.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string h = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t l = uint16_t(h.size());
  out.write(reinterpret_cast<const char *>(&l), 2);
  out.write(h.data(), std::streamsize(h.size()));
  out.write(reinterpret_cast<const char *>(a.data.data()), std::streamsize(a.data.size()));
}

} // namespace cutwin::conformance
