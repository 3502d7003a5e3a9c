#include "conformance/runner.h"
#include "cutwin/time_cases.h"

#include "conformance/npy.h"
#include "cutwin/random.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;

namespace cutwin::conformance {

namespace {

llvm::json::Object loadJson(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    throw Error("cannot read '" + path + "'");
  auto v = llvm::json::parse((*buf)->getBuffer());
  if (!v) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << v.takeError();
    throw Error("'" + path + "': " + os.str());
  }
  if (!v->getAsObject())
    throw Error("'" + path + "': expected a JSON object");
  return std::move(*v->getAsObject());
}

Dim3 dims(const llvm::json::Object &o, const char *key) {
  const llvm::json::Array *a = o.getArray(key);
  if (!a || a->empty() || a->size() > 3)
    throw Error(std::string("case: '") + key + "' must be a list of 1 to 3 integers");
  uint32_t d[3] = {1, 1, 1};
  for (size_t i = 0; i < a->size(); ++i)
    d[i] = uint32_t((*a)[i].getAsInteger().value_or(0));
  return Dim3(d[0], d[1], d[2]);
}

std::vector<int64_t> shapeOf(const llvm::json::Object &o) {
  std::vector<int64_t> s;
  if (const llvm::json::Array *a = o.getArray("shape"))
    for (auto &v : *a)
      s.push_back(v.getAsInteger().value_or(0));
  return s;
}

DType dtypeField(const llvm::json::Object &o, const char *key) {
  auto name = o.getString(key);
  if (!name)
    throw Error(std::string("case: missing '") + key + "'");
  auto t = dtypeFromName(name->str());
  if (!t)
    throw Error("case: unknown dtype '" + name->str() + "'");
  return *t;
}

Arg scalarArg(const llvm::json::Object &o) {
  DType t = dtypeField(o, "dtype");
  const llvm::json::Value *v = o.get("scalar");
  switch (t) {
  case DType::F32: return Arg(float(v->getAsNumber().value_or(0)));
  case DType::F64: return Arg(v->getAsNumber().value_or(0));
  case DType::Bool: return Arg(v->getAsBoolean().value_or(false));
  case DType::I32: return Arg(int32_t(v->getAsInteger().value_or(0)));
  case DType::U32: return Arg(uint32_t(v->getAsInteger().value_or(0)));
  case DType::U64: return Arg(uint64_t(v->getAsUINT64().value_or(0)));
  default: return Arg(int64_t(v->getAsInteger().value_or(0)));
  }
}

/// Distance in units in the last place between two floats of the same type (0 for
/// identical bits, including identical NaNs).
uint64_t ulpDistance(const uint8_t *a, const uint8_t *b, DType t) {
  auto ordered = [](int64_t bits, bool f32) {
    int64_t signMask = f32 ? int64_t(1) << 31 : INT64_MIN;
    return bits & signMask ? (f32 ? int64_t(0x80000000) - (bits & 0x7fffffff) : INT64_MIN - bits) : bits;
  };
  if (t == DType::F16) {
    uint16_t x, y;
    std::memcpy(&x, a, 2);
    std::memcpy(&y, b, 2);
    auto isNan = [](uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); };
    if (isNan(x) || isNan(y))
      return isNan(x) && isNan(y) ? 0 : UINT64_MAX;
    auto ord = [](uint16_t h) { return h & 0x8000 ? -int64_t(h & 0x7fff) : int64_t(h); };
    return uint64_t(std::llabs(ord(x) - ord(y)));
  }
  if (t == DType::F32) {
    int32_t x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    float fx, fy;
    std::memcpy(&fx, a, 4);
    std::memcpy(&fy, b, 4);
    if (std::isnan(fx) || std::isnan(fy))
      return std::isnan(fx) && std::isnan(fy) ? 0 : UINT64_MAX;
    int64_t ox = ordered(uint32_t(x), true), oy = ordered(uint32_t(y), true);
    return uint64_t(std::llabs(ox - oy));
  }
  int64_t x, y;
  std::memcpy(&x, a, 8);
  std::memcpy(&y, b, 8);
  double fx, fy;
  std::memcpy(&fx, a, 8);
  std::memcpy(&fy, b, 8);
  if (std::isnan(fx) || std::isnan(fy))
    return std::isnan(fx) && std::isnan(fy) ? 0 : UINT64_MAX;
  __int128 d = (__int128)ordered(x, false) - (__int128)ordered(y, false);
  return uint64_t(d < 0 ? -d : d);
}

std::string formatValue(const uint8_t *p, DType t) {
  std::ostringstream os;
  os << std::setprecision(9);
  switch (t) {
  case DType::F16: {
    _Float16 v;
    std::memcpy(&v, p, 2);
    os << std::setprecision(5) << float(v);
    break;
  }
  case DType::BF16: { // the upper half of a float32's bits
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    uint32_t wide = uint32_t(bits) << 16;
    float v;
    std::memcpy(&v, &wide, 4);
    os << std::setprecision(4) << v;
    break;
  }
  case DType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    os << v;
    break;
  }
  case DType::F64: {
    double v;
    std::memcpy(&v, p, 8);
    os << std::setprecision(17) << v;
    break;
  }
  case DType::Bool: os << (*p ? "True" : "False"); break;
  case DType::FP8E5M2:
  case DType::FP8E4M3:
  case DType::FP8E8M0:
    os << "0x" << std::hex << unsigned(*p) << std::dec;
    break;                     // the bits
    CUTWIN_TIME_CASES(DType) { // the count of units
      int64_t v;
      std::memcpy(&v, p, 8);
      os << v;
      break;
    }
  case DType::I8: os << int(int8_t(*p)); break;
  case DType::U8: os << unsigned(*p); break;
  case DType::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    os << v;
    break;
  }
  case DType::U16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    os << v;
    break;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    os << v;
    break;
  }
  case DType::U32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    os << v;
    break;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    os << v;
    break;
  }
  case DType::U64: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    os << v;
    break;
  }
  case DType::C64: // values are compared part by part (comparedAs); a whole element prints both
  case DType::C128: {
    DType part = t == DType::C64 ? DType::F32 : DType::F64;
    os << "(" << formatValue(p, part) << ", " << formatValue(p + (t == DType::C64 ? 4 : 8), part) << ")";
    break;
  }
  case DType::Xoroshiro128p: os << "<rng state>"; break;
  }
  return os.str();
}

/// Complex arrays are compared part by part (value i is part i % 2 of element i / 2).
DType comparedAs(DType t) { return t == DType::C64 ? DType::F32 : t == DType::C128 ? DType::F64 : t; }

/// FNV-1a, 64 bits: the digest of one row of an output (conformance/tools/numba_case.py
/// computes the same).
uint64_t fnv1a64(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/// CUTWIN_DUMP_OUTPUTS=DIR writes every output a case computes to
/// DIR/<case>.<backend>.<name>.npy: the values behind a digest, to compare backends.
void dumpOutput(const CaseResult &r, const std::string &name, const DeviceArray &a,
                const std::vector<uint8_t> &got) {
  const char *dir = std::getenv("CUTWIN_DUMP_OUTPUTS");
  if (!dir || !*dir)
    return;
  NpyArray out;
  out.dtype = a.dtype();
  out.shape = a.shape();
  out.data = got;
  writeNpy((fs::path(dir) / (r.name + "." + r.backend + "." + name + ".npy")).string(), out);
}

/// The rows of a digest-checked output that `backend` is documented to compute differently
/// ("known_differences": {backend: {"rows": [labels], "why": text}}), by index.
std::set<size_t> knownDifferentRows(const llvm::json::Object &spec, const std::string &backend,
                                    std::string *why) {
  std::set<size_t> rows;
  const llvm::json::Object *kd = spec.getObject("known_differences");
  const llvm::json::Object *mine = kd ? kd->getObject(backend) : nullptr;
  const llvm::json::Array *labels = spec.getArray("rows");
  if (!mine || !labels)
    return rows;
  if (why)
    *why = mine->getString("why").value_or("").str();
  if (const llvm::json::Array *names = mine->getArray("rows"))
    for (const llvm::json::Value &n : *names)
      for (size_t r = 0; r < labels->size(); ++r)
        if ((*labels)[r].getAsString() == n.getAsString())
          rows.insert(r);
  return rows;
}

/// An output checked by the digests of its rows (one per row of the leading dimension,
/// hex, recorded on a GPU): the outputs too large to keep as golden files. Throws naming
/// the first row that differs; CUTWIN_PRINT_DIGESTS=1 prints every row's digest. A
/// documented difference of one backend ("known_differences": {backend: {"rows": [labels],
/// "why": text}}) leaves those rows uncompared there and says so in the result. With
/// "nans": "any" every NaN is hashed as one pattern: which of two NaN operands an operation
/// returns depends on the operand order a compiler chose (docs/numerics.md).
std::string compareRowDigests(const std::string &name, std::vector<uint8_t> got, DType type,
                              const llvm::json::Array &digests, const llvm::json::Object &spec,
                              const std::string &backend) {
  if (spec.getString("nans").value_or("") == "any") {
    bool f32 = type == DType::F32 || type == DType::C64, f64 = type == DType::F64 || type == DType::C128;
    for (size_t i = 0; f32 && i + 4 <= got.size(); i += 4) {
      float v;
      std::memcpy(&v, got.data() + i, 4);
      if (v != v)
        std::memcpy(got.data() + i, "\xff\xff\xff\x7f", 4);
    }
    for (size_t i = 0; f64 && i + 8 <= got.size(); i += 8) {
      double v;
      std::memcpy(&v, got.data() + i, 8);
      if (v != v)
        std::memcpy(got.data() + i, "\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
    }
  }
  size_t rows = digests.size(), rowBytes = rows ? got.size() / rows : 0;
  if (rows == 0 || rowBytes * rows != got.size())
    throw Error(name + ": " + std::to_string(rows) + " row digests do not fit its " +
                std::to_string(got.size()) + " bytes");
  const llvm::json::Array *labels = spec.getArray("rows");
  auto label = [&](size_t r) {
    return labels && r < labels->size() ? labels->operator[](r).getAsString().value_or("").str() : "";
  };
  std::string why;
  std::set<size_t> known = knownDifferentRows(spec, backend, &why);
  std::string mismatch;
  const char *env = std::getenv("CUTWIN_PRINT_DIGESTS");
  bool print = env && *env == '1';
  if (print)
    std::printf("digests %s:", name.c_str());
  for (size_t r = 0; r < rows; ++r) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx",
                  (unsigned long long)fnv1a64(got.data() + r * rowBytes, rowBytes));
    if (print)
      std::printf(" \"%s\"%s", hex, r + 1 < rows ? "," : "\n");
    if (known.count(r))
      continue;
    if (mismatch.empty() && digests[r].getAsString().value_or("") != hex)
      mismatch = name + " row " + std::to_string(r) + (label(r).empty() ? "" : " (" + label(r) + ")") +
                 ": digest " + hex + ", expected " + digests[r].getAsString().value_or("").str();
  }
  if (!mismatch.empty())
    throw Error("mismatch: " + mismatch);
  std::string out = "bit-exact by digest (" + std::to_string(rows - known.size()) + " rows of " +
                    std::to_string(rowBytes) + " bytes)";
  if (!known.empty()) {
    out += "; not compared here (known difference):";
    for (size_t k : known)
      out += " " + label(k);
    out += " - " + why;
  }
  return out;
}

/// Compares `got` with the expected array; empty string if they agree.
std::string compare(const std::string &name, const NpyArray &want, const std::vector<uint8_t> &got,
                    DType gotType, const llvm::json::Object &spec, std::string &summary) {
  if (want.dtype != gotType)
    return name + ": expected dtype " + dtypeName(want.dtype) + ", got " + dtypeName(gotType);
  if (want.data.size() != got.size())
    return name + ": expected " + std::to_string(want.size()) + " elements";
  gotType = comparedAs(gotType);
  uint64_t maxUlp = uint64_t(spec.getInteger("max_ulp").value_or(0));
  double atol = spec.getNumber("atol").value_or(0), rtol = spec.getNumber("rtol").value_or(0);
  bool isFloat = gotType == DType::F16 || gotType == DType::F32 || gotType == DType::F64;
  auto asDouble = [&](const uint8_t *p) {
    if (gotType == DType::F16)
      return double(*reinterpret_cast<const _Float16 *>(p));
    return gotType == DType::F32 ? double(*reinterpret_cast<const float *>(p))
                                 : *reinterpret_cast<const double *>(p);
  };
  size_t es = dtypeSize(gotType);
  uint64_t worst = 0;
  for (size_t i = 0; i < got.size() / es; ++i) {
    const uint8_t *g = got.data() + i * es, *w = want.data.data() + i * es;
    if (std::memcmp(g, w, es) == 0)
      continue;
    bool ok = false;
    if (isFloat) {
      uint64_t d = ulpDistance(g, w, gotType);
      worst = std::max(worst, d);
      ok = d <= maxUlp;
      if (!ok && (atol > 0 || rtol > 0)) {
        double gv = asDouble(g), wv = asDouble(w);
        ok = std::fabs(gv - wv) <= atol + rtol * std::fabs(wv);
      }
    }
    if (!ok)
      return name + "[" + std::to_string(i) + "] = " + formatValue(g, gotType) + ", expected " +
             formatValue(w, gotType);
  }
  summary = worst == 0 ? "bit-exact" : "max " + std::to_string(worst) + " ulp";
  return "";
}

/// A case read from its folder, with its arguments on a device.
struct LoadedCase {
  llvm::json::Object spec;
  std::shared_ptr<Module> module;
  std::string kernel;
  std::vector<Arg> args;
  std::map<std::string, DeviceArray> arrays;
};

/// An array argument or a steps case's array on `dev`: from an .npy file, zeros, or RNG states.
DeviceArray loadArray(const llvm::json::Object &o, const std::string &name, const std::string &caseDir,
                      const std::shared_ptr<Device> &dev) {
  if (auto file = o.getString("npy")) {
    NpyArray host = readNpy((fs::path(caseDir) / file->str()).string());
    DeviceArray a = dev->empty(host.dtype, host.shape);
    a.copyFromHost(host.data.data(), host.data.size());
    return a;
  }
  if (o.get("zeros"))
    return dev->zeros(dtypeField(o, "zeros"), shapeOf(o));
  if (auto n =
          o.getInteger("xoroshiro128p_states")) // as create_xoroshiro128p_states(n, seed, subsequence_start)
    return random::createXoroshiro128pStates(*dev, *n, o.getInteger("seed").value_or(0),
                                             o.getInteger("subsequence_start").value_or(0));
  throw Error("case: argument '" + name + "' needs 'scalar', 'npy', 'zeros' or 'xoroshiro128p_states'");
}

CompileOptions compileOptions(const llvm::json::Object &c, const std::string &codegen,
                              std::optional<bool> boundscheck) {
  // "compile": {"boundscheck": true} asks for bounds checks on every backend.
  CompileOptions co;
  co.codegen = codegen;
  co.boundscheck = boundscheck;
  if (const llvm::json::Object *compile = c.getObject("compile"))
    if (auto bc = compile->getBoolean("boundscheck"))
      co.boundscheck = *bc;
  return co;
}

std::string moduleFile(const llvm::json::Object &c, const std::string &caseDir) {
  // "module" names a kernel file shared with another case; by default kernel.py.
  return (fs::path(caseDir) / c.getString("module").value_or("kernel.py").str()).lexically_normal().string();
}

/// A case of one launch, its case.json read as `spec`.
LoadedCase loadCase(llvm::json::Object spec, const std::string &caseDir, const std::shared_ptr<Device> &dev,
                    const std::string &codegen, std::optional<bool> boundscheck = {}) {
  LoadedCase lc;
  lc.spec = std::move(spec);
  const llvm::json::Object &c = lc.spec;
  auto kernelName = c.getString("kernel");
  if (!kernelName)
    throw Error("case: missing 'kernel'");
  lc.kernel = kernelName->str();
  lc.module = Module::fromFile(dev, moduleFile(c, caseDir), compileOptions(c, codegen, boundscheck));
  const llvm::json::Array *argSpecs = c.getArray("args");
  if (!argSpecs)
    throw Error("case: missing 'args'");
  for (const llvm::json::Value &v : *argSpecs) {
    const llvm::json::Object *o = v.getAsObject();
    std::string name = o->getString("name").value_or("").str();
    if (o->get("scalar")) {
      lc.args.push_back(scalarArg(*o));
      continue;
    }
    DeviceArray a = loadArray(*o, name, caseDir, dev);
    lc.arrays[name] = a;
    lc.args.push_back(a);
  }
  return lc;
}

/// Compares a case's outputs ("expect") with their goldens; fills `r` (passed, detail,
/// outputs) or throws Error at the first mismatch.
void checkExpected(const llvm::json::Object &c, std::map<std::string, DeviceArray> &arrays,
                   const std::string &caseDir, CaseResult &r) {
  const llvm::json::Object *expect = c.getObject("expect");
  if (!expect || expect->empty())
    throw Error("case: nothing to compare ('expect' is empty)");
  std::vector<std::string> parts;
  std::string firstMismatch;
  for (auto &[key, val] : *expect) {
    std::string name = key.str();
    auto it = arrays.find(name);
    if (it == arrays.end())
      throw Error("case: 'expect' names unknown array '" + name + "'");
    const llvm::json::Object *spec = val.getAsObject();
    std::vector<uint8_t> got(it->second.nbytes());
    it->second.copyToHost(got.data(), got.size());
    r.outputs[name] = {got, it->second.dtype()};
    dumpOutput(r, name, it->second, got);
    if (const llvm::json::Array *digests = spec->getArray("row_digests")) {
      try {
        parts.push_back(name + " " +
                        compareRowDigests(name, got, it->second.dtype(), *digests, *spec, r.backend));
      } catch (const Error &e) { // every output's digests printed before the case fails
        if (firstMismatch.empty())
          firstMismatch = e.what();
      }
      continue;
    }
    NpyArray want = readNpy((fs::path(caseDir) / spec->getString("npy").value_or("").str()).string());
    std::string summary;
    std::string diff = compare(name, want, got, it->second.dtype(), *spec, summary);
    if (!diff.empty())
      throw Error("mismatch: " + diff);
    parts.push_back(name + " " + summary + " (" + std::to_string(want.size()) + " values)");
  }
  if (!firstMismatch.empty())
    throw Error(firstMismatch);
  r.passed = true;
  for (size_t i = 0; i < parts.size(); ++i)
    r.detail += (i ? "; " : "") + parts[i];
}

/// A case of several devices ("devices", "arrays", "steps"): each array lives on its
/// device; a step launches a kernel on one device, or copies an array into a stretch of
/// another (a peer copy between devices). Where the backend has fewer devices than the case
/// names (a machine of one GPU), device k is device k modulo those there are.
struct StepsCase {
  std::vector<std::shared_ptr<Device>> devices;
  std::map<const Device *, std::shared_ptr<Module>> modules;
  std::map<std::string, DeviceArray> arrays;
  std::string note; ///< how the case's devices map onto the backend's, where they differ
};

StepsCase loadSteps(const llvm::json::Object &c, const std::string &caseDir,
                    const std::shared_ptr<Device> &dev, const std::string &codegen,
                    std::optional<bool> boundscheck) {
  StepsCase sc;
  int count = int(c.getInteger("devices").value_or(1));
  if (!c.getArray("steps") || count < 1)
    throw Error("case: 'steps' must be a list, 'devices' a number of devices");
  bool sim = dev->isSimulator();
  int simulated = Device::count("sim"); // the case's simulated devices, for this case only
  if (sim && simulated < count)
    Device::setSimulatedDevices(count);
  int have = sim ? std::max(simulated, count) : Device::count("gpu");
  sc.devices.push_back(dev);
  for (int k = 1; k < count; ++k)
    sc.devices.push_back(k < have ? Device::open((sim ? "sim:" : "gpu:") + std::to_string(k))
                                  : sc.devices[size_t(k % have)]);
  if (sim)
    Device::setSimulatedDevices(simulated);
  if (have < count)
    sc.note = " [" + std::to_string(count) + " devices on " + std::to_string(have) + "]";
  CompileOptions co = compileOptions(c, codegen, boundscheck);
  for (auto &d : sc.devices)
    if (!sc.modules.count(d.get()))
      sc.modules[d.get()] = Module::fromFile(d, moduleFile(c, caseDir), co);
  const llvm::json::Object *arrays = c.getObject("arrays");
  if (!arrays)
    throw Error("case: 'steps' needs 'arrays'");
  for (auto &[key, val] : *arrays) {
    const llvm::json::Object *o = val.getAsObject();
    size_t k = size_t(o ? o->getInteger("device").value_or(0) : 0);
    if (!o || k >= sc.devices.size())
      throw Error("case: array '" + key.str() + "' needs a device below 'devices'");
    sc.arrays[key.str()] = loadArray(*o, key.str(), caseDir, sc.devices[k]);
  }
  return sc;
}

/// A launch step's device and arguments (arrays by name, scalars as in "args").
std::pair<std::shared_ptr<Device>, std::vector<Arg>> stepLaunch(const llvm::json::Object &step,
                                                                StepsCase &sc) {
  size_t k = size_t(step.getInteger("device").value_or(0));
  if (k >= sc.devices.size())
    throw Error("case: a step's device is not below 'devices'");
  std::vector<Arg> args;
  if (const llvm::json::Array *names = step.getArray("args"))
    for (const llvm::json::Value &v : *names) {
      if (const llvm::json::Object *o = v.getAsObject()) {
        args.push_back(scalarArg(*o));
        continue;
      }
      std::string name = v.getAsString().value_or("").str();
      auto it = sc.arrays.find(name);
      if (it == sc.arrays.end())
        throw Error("case: a step names unknown array '" + name + "'");
      args.push_back(it->second);
    }
  return {sc.devices[k], std::move(args)};
}

void runSteps(const llvm::json::Object &c, StepsCase &sc) {
  const llvm::json::Array *steps = c.getArray("steps");
  for (const llvm::json::Value &v : *steps) {
    const llvm::json::Object *step = v.getAsObject();
    if (!step)
      throw Error("case: a step must be an object");
    if (auto dst = step->getString("copy")) { // {"copy": dst, "from": src, "offset": elements}
      auto to = sc.arrays.find(dst->str()), from = sc.arrays.find(step->getString("from").value_or("").str());
      if (to == sc.arrays.end() || from == sc.arrays.end())
        throw Error("case: a copy step names an unknown array");
      int64_t es = int64_t(dtypeSize(to->second.dtype()));
      DeviceArray flat = to->second.view({to->second.size()}, {es});
      flat.view({from->second.size()}, {es}, step->getInteger("offset").value_or(0) * es)
          .copyFrom(from->second);
      continue;
    }
    auto [dev, args] = stepLaunch(*step, sc);
    sc.modules.at(dev.get())
        ->kernel(step->getString("kernel").value_or("").str())
        .launch(dims(*step, "grid"), dims(*step, "block"), args,
                uint64_t(step->getInteger("shared_bytes").value_or(0)));
  }
  for (auto &d : sc.devices)
    d->synchronize();
}

/// Runs a case of one launch and checks its outputs, or the error it expects; fills `r`.
void runLaunch(LoadedCase &lc, Device &dev, const std::string &caseDir, CaseResult &r) {
  const llvm::json::Object &c = lc.spec;
  uint64_t shared = uint64_t(c.getInteger("shared_bytes").value_or(0));
  const llvm::json::Object *expectError = c.getObject("expect_error");
  try {
    lc.module->kernel(lc.kernel).launch(dims(c, "grid"), dims(c, "block"), lc.args, shared);
    dev.synchronize(); // GPU launches are asynchronous: faults surface here
  } catch (const KernelError &e) {
    if (!expectError)
      throw;
    std::string kind = expectError->getString("kind").value_or("").str();
    std::string contains = expectError->getString("contains").value_or("").str();
    static const std::map<std::string, KernelErrorKind> kinds = {
        {"IndexOutOfBounds", KernelErrorKind::IndexOutOfBounds},
        {"BarrierDivergence", KernelErrorKind::BarrierDivergence},
        {"Assertion", KernelErrorKind::Assertion},
        {"Exception", KernelErrorKind::Exception}};
    auto k = kinds.find(kind);
    if (k == kinds.end() || k->second != e.kind())
      throw Error(std::string("expected a ") + kind + " error, got: " + e.what());
    if (std::string(e.what()).find(contains) == std::string::npos)
      throw Error("error message lacks \"" + contains + "\": " + e.what());
    // The device must still work after a fault: run the case's follow-up if any.
    r.passed = true;
    r.detail = std::string("raised as expected: ") + e.what();
  }
  if (expectError && !r.passed)
    throw Error("expected a " + expectError->getString("kind").value_or("").str() +
                " error, but the kernel ran to completion");
  if (!expectError)
    checkExpected(c, lc.arrays, caseDir, r);
}

} // namespace

CaseResult runCase(const std::string &caseDir, const std::shared_ptr<Device> &dev, const std::string &codegen,
                   std::optional<bool> boundscheck) {
  CaseResult r;
  r.name = fs::path(caseDir).filename().string();
  r.backend = dev->isSimulator() ? "sim" : codegen == "nvvm" ? "gpu-nvvm" : "gpu";
  auto start = std::chrono::steady_clock::now();
  try {
    llvm::json::Object spec = loadJson((fs::path(caseDir) / "case.json").string());
    if (spec.get("steps")) {
      StepsCase sc = loadSteps(spec, caseDir, dev, codegen, boundscheck);
      runSteps(spec, sc);
      checkExpected(spec, sc.arrays, caseDir, r);
      r.detail += sc.note;
    } else {
      LoadedCase lc = loadCase(std::move(spec), caseDir, dev, codegen, boundscheck);
      runLaunch(lc, *dev, caseDir, r);
    }
  } catch (const std::exception &e) {
    r.passed = false;
    r.detail = e.what();
  }
  r.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<std::string> listCases(const std::string &dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir))
    throw Error("conformance: '" + dir + "' is not a directory");
  for (auto &e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "case.json"))
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

/// Assembles `ptx` for `arch` with ptxas; its -v output, or Error with ptxas's complaint.
std::string assemblePtx(const std::string &ptx, const std::string &arch, const std::string &name) {
  const char *env = std::getenv("CUTWIN_PTXAS");
  std::string ptxas = env ? env : CUTWIN_PTXAS;
  fs::path file = fs::temp_directory_path() / ("cutwin-" + name + "-" + std::to_string(::getpid()) + ".ptx");
  std::ofstream(file) << ptx;
  // Kernels calling foreign device functions are relocatable code: the driver links them.
  bool relocatable = ptx.find(".extern .func") != std::string::npos;
  std::string cmd = ptxas + " -arch=" + arch + (relocatable ? " --compile-only" : "") + " -v -o /dev/null " +
                    file.string() + " 2>&1";
  std::string output;
  FILE *p = popen(cmd.c_str(), "r");
  if (!p)
    throw Error("cannot run " + ptxas);
  char buf[512];
  while (fgets(buf, sizeof buf, p))
    output += buf;
  int rc = pclose(p);
  fs::remove(file);
  if (rc != 0)
    throw Error("ptxas -arch=" + arch + " rejected the PTX: " + output);
  return output;
}

} // namespace

CaseResult checkCasePtx(const std::string &caseDir, const std::string &arch, const std::string &codegen) {
  CaseResult r;
  r.name = fs::path(caseDir).filename().string();
  r.backend = codegen;
  auto start = std::chrono::steady_clock::now();
  try {
    // Argument types come from the case's inputs, placed on the simulator.
    llvm::json::Object spec = loadJson((fs::path(caseDir) / "case.json").string());
    std::string output;
    if (spec.get("steps")) { // every launch's kernel
      StepsCase sc = loadSteps(spec, caseDir, Device::open("sim"), codegen, {});
      for (const llvm::json::Value &v : *spec.getArray("steps"))
        if (const llvm::json::Object *step = v.getAsObject(); step && step->get("kernel")) {
          auto [dev, args] = stepLaunch(*step, sc);
          output =
              assemblePtx(sc.modules.at(dev.get())->kernel(step->getString("kernel")->str()).ptx(args, arch),
                          arch, r.name);
        }
    } else {
      LoadedCase lc = loadCase(std::move(spec), caseDir, Device::open("sim"), codegen);
      output = assemblePtx(lc.module->kernel(lc.kernel).ptx(lc.args, arch), arch, r.name);
    }
    auto regs = output.find("Used ");
    r.passed = true;
    r.detail = "ptxas " + arch + " ok" +
               (regs == std::string::npos ? std::string()
                                          : ", " + output.substr(regs, output.find(',', regs) - regs));
  } catch (const std::exception &e) {
    r.detail = e.what();
  }
  r.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

Agreement compareBackends(const CaseResult &a, const CaseResult &b, const std::string &caseDir) {
  Agreement g;
  if (a.outputs.empty() || b.outputs.empty()) {
    g.detail = a.passed && b.passed ? "both raised the expected error" : "not comparable";
    g.agree = a.passed && b.passed;
    return g;
  }
  llvm::json::Object c = loadJson((fs::path(caseDir) / "case.json").string());
  const llvm::json::Object *expect = c.getObject("expect");
  size_t values = 0;
  uint64_t worst = 0;
  for (auto &[name, out] : a.outputs) {
    auto it = b.outputs.find(name);
    if (it == b.outputs.end() || it->second.first.size() != out.first.size()) {
      g.agree = false;
      g.detail = name + " missing or of another size";
      return g;
    }
    DType t = comparedAs(out.second);
    size_t es = dtypeSize(t);
    uint64_t allowed = 0;
    std::set<size_t> skipped; // rows either backend is documented to compute differently
    size_t rowValues = 1;
    if (const llvm::json::Object *spec = expect ? expect->getObject(name) : nullptr) {
      allowed = uint64_t(spec->getInteger("max_ulp").value_or(0));
      if (const llvm::json::Array *digests = spec->getArray("row_digests"); digests && !digests->empty()) {
        rowValues = out.first.size() / es / digests->size();
        for (const CaseResult *r : {&a, &b})
          for (size_t k : knownDifferentRows(*spec, r->backend, nullptr))
            skipped.insert(k);
      }
    }
    for (size_t i = 0; i < out.first.size() / es; ++i) {
      if (!skipped.empty() && skipped.count(i / rowValues))
        continue;
      const uint8_t *x = out.first.data() + i * es, *y = it->second.first.data() + i * es;
      if (std::memcmp(x, y, es) == 0)
        continue;
      uint64_t d =
          (t == DType::F16 || t == DType::F32 || t == DType::F64) ? ulpDistance(x, y, t) : UINT64_MAX;
      worst = std::max(worst, d);
      if (d > allowed) {
        g.agree = false;
        g.detail = name + "[" + std::to_string(i) + "]: " + formatValue(x, t) + " vs " + formatValue(y, t);
        return g;
      }
    }
    values += out.first.size() / es - skipped.size() * rowValues;
  }
  g.detail = (worst == 0 ? std::string("bit-exact") : "within " + std::to_string(worst) + " ulp") + " (" +
             std::to_string(values) + " values)";
  return g;
}

bool runSuite(const RunOptions &opts, std::ostream &out) {
  std::vector<std::shared_ptr<Device>> devices;
  bool ptx = opts.backend == "ptx";
  if (opts.backend == "sim" || opts.backend == "both" || opts.backend == "available")
    devices.push_back(Device::open("sim"));
  if (opts.backend == "gpu" || opts.backend == "both")
    devices.push_back(Device::open("gpu"));
  if (opts.backend == "available") {
    try {
      devices.push_back(Device::open("gpu"));
    } catch (const DeviceError &e) {
      out << "no GPU backend available (" << e.what() << "): simulator only\n";
    }
  }
  if (devices.empty() && !ptx)
    throw Error("unknown backend '" + opts.backend + "' (expected sim, gpu, both, available or ptx)");
  size_t passed = 0, failed = 0, notApplicable = 0;
  out << std::left << std::setw(28) << "case" << std::setw(14) << "backend" << std::setw(7) << "result"
      << std::setw(10) << "ms"
      << "detail\n";
  for (auto &dir : listCases(opts.dir)) {
    std::string name = fs::path(dir).filename().string();
    if (!opts.filter.empty() && name.find(opts.filter) == std::string::npos)
      continue;
    std::vector<CaseResult> results;
    if (ptx)
      results.push_back(checkCasePtx(dir, opts.arch, opts.codegen));
    for (auto &dev : devices) {
      // "backends": the case applies only to these (e.g. what only the simulator detects).
      std::string backend = dev->isSimulator() ? "sim" : "gpu";
      llvm::json::Object spec = loadJson((fs::path(dir) / "case.json").string());
      if (const llvm::json::Array *only = spec.getArray("backends");
          only && std::none_of(only->begin(), only->end(), [&](const llvm::json::Value &v) {
            return v.getAsString() && *v.getAsString() == backend;
          })) {
        out << std::left << std::setw(28) << name << std::setw(14) << backend << std::setw(7) << "n/a"
            << std::setw(10) << "-" << spec.getString("backends_reason").value_or("").str() << "\n";
        ++notApplicable;
        continue;
      }
      results.push_back(runCase(dir, dev, opts.codegen, opts.boundscheck));
    }
    if (results.size() == 2 && results[0].backend == "sim" && results[1].backend.rfind("gpu", 0) == 0) {
      Agreement g = compareBackends(results[0], results[1], dir);
      CaseResult row;
      row.name = name;
      row.backend = "sim=" + results[1].backend;
      row.passed = g.agree;
      row.detail = g.detail;
      results.push_back(row);
    }
    for (CaseResult &r : results) {
      (r.passed ? passed : failed)++;
      std::string detail = r.detail;
      if (!opts.verbose && detail.size() > 160)
        detail = detail.substr(0, 157) + "...";
      std::replace(detail.begin(), detail.end(), '\n', ' ');
      out << std::left << std::setw(28) << r.name << std::setw(14) << r.backend << std::setw(7)
          << (r.passed ? "PASS" : "FAIL") << std::setw(10) << std::fixed << std::setprecision(1)
          << r.milliseconds << detail << "\n";
    }
  }
  out << passed << " passed, " << failed << " failed";
  if (notApplicable)
    out << ", " << notApplicable << " not applicable";
  out << "\n";
  return failed == 0 && passed > 0;
}

} // namespace cutwin::conformance
