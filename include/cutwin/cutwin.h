/// cutwin's C++ API: devices ("sim" or "gpu:N"), device arrays, kernel modules written in
/// the Numba CUDA dialect, and kernel launches.
///
///   auto dev = cutwin::Device::open("sim");
///   auto mod = cutwin::Module::fromFile(dev, "vadd.py");
///   auto a = dev->toDevice(std::vector<float>(n, 1.0f));
///   ...
///   mod->kernel("vadd").launch(blocks, threads, {a, b, out});
///   std::vector<float> host = out.toVector<float>();
#pragma once

#include "cutwin/errors.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace cutwin {

namespace rt {
class Backend;
class LaunchTracker;
class ModuleImpl;
} // namespace rt

/// Element types of device arrays, in numba's naming (cutwin/dtypes.def). Xoroshiro128p is
/// numba's RNG state record (two uint64 words s0, s1; 16 bytes), made by cutwin/random.h and
/// used by the xoroshiro128p_* kernel functions. C64/C128 are complex numbers {real, imag} of
/// float32/float64.
enum class DType : uint8_t {
#define CUTWIN_SCALAR(id, value, ...) id = value,
#define CUTWIN_RECORD(id, value, ...) id = value,
#include "cutwin/dtypes.def"
#undef CUTWIN_SCALAR
#undef CUTWIN_RECORD
};
/// Record dtypes (NumPy's structured dtypes) are made at run time: the values from
/// kFirstRecordDType up, one per record type the process uses, named by numba's spelling
/// (`Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True)`).
constexpr unsigned kFirstRecordDType = 64;
/// The dtype of the record type numba spells `spelling`; throws cutwin::Error if it does not
/// read or the process has made too many record types.
DType recordDType(const std::string &spelling);
bool dtypeIsRecord(DType t);
size_t dtypeSize(DType t);
const char *dtypeName(DType t); ///< a record's: numba's spelling
/// float16, bfloat16, float32 or float64: a scalar of it travels as a double.
bool dtypeIsFloat(DType t);
std::optional<DType> dtypeFromName(const std::string &name); ///< "float32", "f4", "int64", "Record(...)"
template <class T> constexpr DType dtypeOf();

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
};

class Device;

/// A queue of work on a device; launches on one stream run in order. On the simulator
/// every launch completes before it returns.
class Stream {
public:
  void synchronize();
  void *handle() const { return handle_.get(); }
  /// The device the stream belongs to: launches and events on it must be that device's.
  Device &device() const { return *device_; }

private:
  friend class Device;
  std::shared_ptr<Device> device_;
  std::shared_ptr<void> handle_;
};

/// A point in a stream, for timing: `start.record(); ...; end.record();
/// end.synchronize(); end.elapsedMilliseconds(start)`.
class Event {
public:
  void record(const Stream *stream = nullptr);
  void synchronize();
  /// Milliseconds from `start` to this event.
  float elapsedMilliseconds(const Event &start) const;

private:
  friend class Device;
  std::shared_ptr<Device> device_;
  std::shared_ptr<void> handle_;
};

/// An n-dimensional array in a device's memory (a view: strides in bytes).
/// The most dimensions an array a kernel takes or captures may have (NumPy 1's limit).
constexpr unsigned kMaxArrayDims = 32;

class DeviceArray {
public:
  DeviceArray() = default;
  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  const std::vector<int64_t> &strides() const { return strides_; }
  int64_t size() const;
  size_t nbytes() const { return size_t(size()) * dtypeSize(dtype_); }
  unsigned ndim() const { return unsigned(shape_.size()); }
  bool isCContiguous() const;
  /// Device address of the first element.
  void *data() const;

  /// A view of the same memory with another shape and byte strides, starting
  /// `offsetBytes` after this view's first element (strides may be negative). Throws if
  /// any element would lie outside the allocation.
  DeviceArray view(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offsetBytes = 0) const;
  /// The same, reading the bytes as elements of `dtype` (NumPy's `a.view(dtype)` and more).
  DeviceArray view(DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                   int64_t offsetBytes = 0) const;
  /// The view with the axes reversed (NumPy's `a.T`).
  DeviceArray transpose() const;
  Device &device() const { return *device_; }

  /// Whole-array copies; the array must be C-contiguous and `bytes == nbytes()`.
  /// copyToHost first synchronises the device (and reports kernel faults).
  void copyFromHost(const void *src, size_t bytes);
  void copyToHost(void *dst, size_t bytes) const;
  /// The bytes this view's elements lie in, from `begin` bytes relative to element 0
  /// (negative with negative strides), `bytes` long; empty arrays span nothing.
  struct Span {
    int64_t begin = 0;
    size_t bytes = 0;
  };
  Span span() const;
  /// Copies of the whole span, for strided views (a host array with the same strides
  /// over the buffer, offset by -span().begin, sees the elements).
  void copySpanToHost(void *dst) const;
  void copySpanFromHost(const void *src);
  /// Device-to-device copy from an array of the same dtype and size (both contiguous);
  /// `src` may lie on another device (a peer copy, staged through the host between a GPU
  /// and the simulator). Peer copies need no peer access.
  void copyFrom(const DeviceArray &src);
  template <class T> std::vector<T> toVector() const {
    if (dtypeOf<T>() != dtype_)
      throw Error(std::string("toVector: array holds ") + dtypeName(dtype_));
    if constexpr (std::is_same_v<T, bool>) { // std::vector<bool> has no data()
      std::vector<uint8_t> raw(static_cast<size_t>(size()));
      copyToHost(raw.data(), raw.size());
      return std::vector<bool>(raw.begin(), raw.end());
    } else {
      std::vector<T> v(static_cast<size_t>(size()));
      copyToHost(v.data(), v.size() * sizeof(T));
      return v;
    }
  }

private:
  friend class Device;
  std::shared_ptr<Device> device_;
  std::shared_ptr<void> buffer_; ///< owns the allocation
  size_t capacity_ = 0;          ///< bytes in the allocation
  size_t offset_ = 0;            ///< bytes from the allocation's start to element 0
  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_, strides_;
};

/// Free and total device memory, in bytes.
struct MemoryInfo {
  size_t free = 0, total = 0;
};

/// An inter-process handle to device memory (cuIpcGetMemHandle): the 64 opaque bytes and
/// where the pointer lies in its allocation.
struct IpcMemHandle {
  std::vector<uint8_t> bytes;
  void *base = nullptr; ///< start of the allocation containing the pointer
  size_t size = 0;      ///< bytes in that allocation
};

/// Flags of Device::allocateHost and Device::registerHost (the driver's values).
enum HostMemoryFlags : unsigned {
  kHostPortable = 1,      ///< page-locked for every context
  kHostMapped = 2,        ///< addressable by kernels (Device::hostDevicePointer)
  kHostWriteCombined = 4, ///< allocateHost only: write-combined (fast host writes, slow reads)
};

/// A device: a simulated one ("sim", "sim:N") or an NVIDIA GPU ("gpu", "gpu:N").
class Device : public std::enable_shared_from_this<Device> {
public:
  /// `spec`: "sim" (= "sim:0"), "sim:N", "gpu" (= "gpu:0"), "gpu:N" or "auto" (GPU 0 if
  /// present, else simulated device 0). Each call opens a device of its own.
  static std::shared_ptr<Device> open(const std::string &spec = "sim");
  /// How many devices there are of a kind: "sim", the simulated devices (1 unless
  /// CUTWIN_SIM_DEVICES or setSimulatedDevices says otherwise), or "gpu", the GPUs the
  /// driver lists (0 without one).
  static int count(const std::string &kind);
  /// Presents `n` simulated devices (1 to 64) from now on, in place of CUTWIN_SIM_DEVICES;
  /// devices already open stay usable.
  static void setSimulatedDevices(int n);
  ~Device();

  std::string name() const;
  bool isSimulator() const;
  /// The device's number among those of its kind (N of "sim:N" and "gpu:N").
  int ordinal() const;
  /// "sim:N" or "gpu:N".
  std::string spec() const;

  /// Whether kernels of this device can be given access to `peer`'s memory (simulated
  /// devices: any other simulated device; GPUs: as the driver says).
  bool canAccessPeer(const Device &peer) const;
  /// Lets kernels launched on this device use arrays of `peer` (cuCtxEnablePeerAccess);
  /// without it such a launch is refused, where a GPU would fault with an illegal address.
  void enablePeerAccess(const Device &peer);
  void disablePeerAccess(const Device &peer);
  bool peerAccessEnabled(const Device &peer) const;
  /// A device attribute by its CUDA name without the prefix ("MULTIPROCESSOR_COUNT",
  /// "MAX_THREADS_PER_BLOCK", "WARP_SIZE", ...; numba's Device attributes): the GPU's, or
  /// the simulated device's limits. nullopt for a name the backend does not know.
  std::optional<int64_t> attribute(const std::string &name) const;

  DeviceArray empty(DType dtype, std::vector<int64_t> shape);
  DeviceArray zeros(DType dtype, std::vector<int64_t> shape);
  /// An array over device memory cutwin did not allocate (another library's, e.g. from the
  /// CUDA Array Interface): `data` is element 0, strides are in bytes, and `owner` is kept
  /// alive as long as any view of the array.
  DeviceArray wrap(void *data, DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                   std::shared_ptr<void> owner);
  template <class T> DeviceArray toDevice(const std::vector<T> &host, std::vector<int64_t> shape = {}) {
    if (shape.empty())
      shape = {int64_t(host.size())};
    DeviceArray a = empty(dtypeOf<T>(), shape);
    a.copyFromHost(host.data(), host.size() * sizeof(T));
    return a;
  }
  Stream createStream();
  /// A stream another library made (numba's external_stream: a CUstream handle). cutwin
  /// launches and copies on it but never destroys it.
  Stream externalStream(void *handle);
  Event createEvent();

  /// Page-locked host memory (numba's pinned and mapped arrays): on the GPU cuMemHostAlloc
  /// with HostMemoryFlags; on the simulator ordinary memory, which kernels address directly.
  void *allocateHost(size_t bytes, unsigned flags = 0);
  void releaseHost(void *p);
  /// Page-locks (and with kHostMapped maps) existing host memory until unregisterHost.
  void registerHost(void *p, size_t bytes, unsigned flags = 0);
  void unregisterHost(void *p);
  /// The address kernels use for mapped host memory (the same address on the simulator).
  void *hostDevicePointer(void *host);
  MemoryInfo memoryInfo();
  /// An IPC handle for device memory; the simulator throws (no other process can map it).
  IpcMemHandle ipcHandle(void *devicePointer);
  /// Maps device memory another process exported with ipcHandle (its 64 bytes); returns
  /// the start of the allocation. Unmap with ipcClose. A process cannot open its own.
  void *ipcOpen(const std::vector<uint8_t> &handle);
  void ipcClose(void *base);

  /// Waits for all work on the device; throws the KernelError of the first launch since
  /// the last synchronisation that faulted (GPU launches are asynchronous).
  void synchronize();

  rt::Backend &backend() { return *backend_; }
  rt::LaunchTracker &launches() { return *launches_; }

private:
  explicit Device(std::unique_ptr<rt::Backend> b);
  std::unique_ptr<rt::Backend> backend_;
  std::unique_ptr<rt::LaunchTracker> launches_;
  mutable std::mutex peersMu_;
  std::vector<std::string> peers_; ///< specs of the devices this one has peer access to
};

/// One kernel argument: a scalar of a given type, or a device array.
class Arg {
public:
  struct Scalar {
    DType dtype;
    uint64_t bits; ///< integers sign-extended to 64 bits; floats (complex: the real part) as double bits
    uint64_t imagBits = 0; ///< complex: the imaginary part as double bits
  };
  Arg(const DeviceArray &a) : value_(a) {}
  Arg(DeviceArray &&a) : value_(std::move(a)) {}
  /// A scalar of any dtype (e.g. an int8 or a float32 from a NumPy scalar).
  explicit Arg(const Scalar &s) : value_(s) {}
  Arg(bool v) : value_(Scalar{DType::Bool, uint64_t(v)}) {}
  Arg(int32_t v) : value_(Scalar{DType::I32, uint64_t(int64_t(v))}) {}
  Arg(int64_t v) : value_(Scalar{DType::I64, uint64_t(v)}) {}
  Arg(uint32_t v) : value_(Scalar{DType::U32, uint64_t(v)}) {}
  Arg(uint64_t v) : value_(Scalar{DType::U64, v}) {}
  Arg(float v) : value_(Scalar{DType::F32, bitsOf(double(v))}) {}
  Arg(double v) : value_(Scalar{DType::F64, bitsOf(v)}) {}
  /// A tuple of arguments (numba's UniTuple / Tuple): scalars, arrays, tuples.
  static Arg tuple(std::vector<Arg> elems) {
    Arg a{false};
    a.value_ = std::move(elems);
    return a;
  }
  /// A named tuple (collections.namedtuple): a tuple whose elements kernels also read by
  /// field name (`p.x`); `typeName` and `fields` are part of its type.
  static Arg namedTuple(std::string typeName, std::vector<std::string> fields, std::vector<Arg> elems) {
    Arg a = tuple(std::move(elems));
    a.tupleName_ = std::move(typeName);
    a.fields_ = std::move(fields);
    return a;
  }

  /// A member of a Python enum class: `value` is the member's value, `className` its class
  /// ("module:qualname"; `intEnum` for an IntEnum), part of the argument's type as in numba.
  static Arg enumMember(std::string className, bool intEnum, Arg value) {
    value.enumClass_ = std::move(className);
    value.intEnum_ = intEnum;
    return value;
  }

  /// A record (a NumPy structured scalar): `one` holds its bytes, a one-element array of its
  /// record dtype; the kernel gets their address (numba passes records by reference).
  static Arg record(const DeviceArray &one) {
    Arg a(one);
    a.record_ = true;
    return a;
  }

  bool isArray() const { return std::holds_alternative<DeviceArray>(value_); } ///< records too
  bool isRecord() const { return record_; }
  bool isTuple() const { return std::holds_alternative<std::vector<Arg>>(value_); }
  const DeviceArray &array() const { return std::get<DeviceArray>(value_); }
  const Scalar &scalar() const { return std::get<Scalar>(value_); }
  const std::vector<Arg> &elements() const { return std::get<std::vector<Arg>>(value_); }
  /// Named tuples: the class name and the field names (empty for plain tuples).
  const std::string &tupleName() const { return tupleName_; }
  const std::vector<std::string> &fields() const { return fields_; }
  /// Enum members: the class (empty for other values).
  const std::string &enumClass() const { return enumClass_; }
  bool intEnum() const { return intEnum_; }

private:
  static uint64_t bitsOf(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
  }
  std::string tupleName_;
  std::vector<std::string> fields_;
  std::string enumClass_;
  bool intEnum_ = false;
  bool record_ = false;
  std::variant<DeviceArray, Scalar, std::vector<Arg>> value_;
};

struct CompileOptions {
  std::optional<bool> boundscheck; ///< default: on for the simulator, off on the GPU
  /// The simulator's sanitizer (docs/sanitizers.md): "race", "init", "all", "none" or a
  /// comma-separated list; unset: CUTWIN_SANITIZE (none if that is unset too). The GPU ignores it.
  std::optional<std::string> sanitize;
  int optLevel = 2;              ///< simulator code generation
  std::string codegen = "nvptx"; ///< GPU code generator: "nvptx" (LLVM) or "nvvm" (libNVVM)
  /// Keep compiled kernels on disk for later processes (numba's cache=True; docs/simulator.md
  /// "Kernel cache"); unset: the backend's default (on for the simulator). CUTWIN_CACHE=0
  /// or 1 overrides it.
  std::optional<bool> cache;
};

/// A value the host program gives a module-level name: a bool, an integer, a float, a
/// tuple of them (as `N = 256`, `SHAPE = (16, 16)` would in the source), or an array
/// (a global NumPy array), which kernels read from constant memory.
struct HostValue {
  enum class Kind { Bool, Int, Float, Tuple, Array, Str, None, DeviceArray };
  Kind kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s; ///< Str: a string constant (exception messages, print)
  std::vector<HostValue> elems;
  DType dtype = DType::F64;   ///< Array: element type; Bool/Int/Float if typedScalar: the type
  bool typedScalar = false;   ///< a NumPy scalar (np.float32(0.5)): kernels see its own dtype
  std::vector<int64_t> shape; ///< Array: 0 to kMaxArrayDims dimensions
  std::vector<uint8_t> bytes; ///< Array: the elements in C order
  /// DeviceArray: a device array a kernel's global holds, captured by address (numba's
  /// capture: the kernel uses that memory); `shape` and byte `strides` describe it.
  uint64_t address = 0;
  std::vector<int64_t> strides;
  /// A member of a Python enum class (this value is the member's value): the class's name
  /// ("module:qualname"), so that kernels tell members of different classes apart.
  std::string enumClass;
  bool intEnum = false; ///< the class is an IntEnum: its members compute as ints
};

/// A function the host program compiles with `jit` (it need not carry a decorator in the
/// source): what `@cuda.jit(...)` would say.
struct JitDeclaration {
  bool device = false;
  std::vector<std::string> signatures; ///< numba signature text, e.g. "void(float32[:], int64)"
  bool debug = false, fastmath = false, lineinfo = false;
  std::optional<bool> boundscheck;
  /// The simulator sanitizer's checks for this function: "race", "init", "all", "none" or a
  /// comma-separated list (unset: the module's, CompileOptions::sanitize).
  std::optional<std::string> sanitize;
  int opt = 3;
  std::vector<std::string> link; ///< files linked with the kernel (.cu, .ptx, ...)
  /// numba's launch_bounds: max threads per block, then optionally min blocks per
  /// multiprocessor and max cluster rank (empty: none).
  std::vector<int> launchBounds;
  /// numba's inline='always': calls are inlined in the kernel IR (the frontend's inline
  /// step); forceinline=True: the function is marked alwaysinline for the code generator.
  bool inlineAlways = false, forceInline = false;
};

/// What the host program knows of a module's top-level names; it wins over the source.
/// The Python package passes the live values of the globals its kernels use.
struct ModuleBindings {
  std::map<std::string, HostValue> constants;
  std::map<std::string, JitDeclaration> functions;
};

/// What one free name of a function is in the running program (the host read the
/// function's globals, closure cells and builtins): the compiler takes names' meanings
/// from here, never from import statements.
struct NameBinding {
  enum class Kind {
    Module,    ///< `path`: the module's import path ("math", "numba.cuda", "cutwin.cuda.random")
    Member,    ///< `path` + `attrs`: an object reached from a module ("math" + {"sin"})
    Constant,  ///< `value`
    Type,      ///< `text`: numba type text ("float32", "float32[:, ::1]")
    Function,  ///< `text`: the id of the FunctionUnit of a jit function
    Foreign,   ///< cuda.declare_device: `foreignName`, `text` its signature, `foreignLink`
    Exception, ///< `text`: the exception class's name
    HostOnly,  ///< `text`: why kernels cannot use it
  };
  Kind kind = Kind::HostOnly;
  std::string path;
  std::vector<std::string> attrs;
  HostValue value;
  std::string text;
  std::string foreignName;
  std::vector<std::string> foreignLink;
  bool foreignCAbi = false; ///< Foreign: the C ABI (`T name(args...)`), not numba's
  /// Module: for a module the compiler does not know (a user's), the attributes the
  /// function reads from it.
  std::map<std::string, NameBinding> members;
};

/// One jit function of a program, compiled from its own source with its names resolved by
/// the host: functions in other modules, nested functions and closures alike.
struct FunctionUnit {
  std::string id;       ///< unique among one module's units
  std::string file;     ///< path diagnostics and debug information name
  std::string source;   ///< text that defines the function at its own line of `file`
                        ///< (other lines may be blank; the def may be indented as it was)
  std::string function; ///< the def's name
  JitDeclaration declaration;
  std::map<std::string, NameBinding> names;
  /// The values of parameters' defaults (Python evaluated them where the def ran).
  std::map<std::string, HostValue> defaults;
};

/// What Module::compileFunction makes (numba's `compile_ptx` / `cuda.compile`).
struct FunctionCompileRequest {
  /// numba signature text: "float32(float32, int32)", or "(float32, int32)" to infer the
  /// result; kernels return void.
  std::string signature;
  bool device = true;        ///< a device function (else a kernel entry)
  std::string abi = "numba"; ///< device functions: "numba" (`int f(T *ret, args...)`) or "c"
  std::string abiName;       ///< the function's name in the code; default: Python name (C ABI)
                             ///< or an Itanium-style mangled name (numba ABI)
  std::string arch = "sm_90";
  std::string output = "ptx"; ///< "ptx", "ltoir" (needs the nvvm code generator) or "ir" (kernel IR)
};

struct CompiledFunction {
  std::string code;       ///< PTX text, or LTO-IR bytes
  std::string returnType; ///< numba type name of the result ("none" for kernels)
  std::string name;       ///< the entry's name in the code
};

class Module;
/// A kernel of a module; each distinct tuple of argument types compiles once.
/// One function of libdevice as kernels call it (`cuda.libdevice.<name>`; numba-cuda's
/// libdevicefuncs): numba type names of its result and parameters; `output` parameters are
/// pointers it stores results through, which kernels get back as extra results.
struct LibdeviceFunction {
  std::string name; ///< without the `__nv_` prefix
  std::string returnType;
  struct Param {
    std::string type;
    bool output = false;
  };
  std::vector<Param> params;
};
/// Every libdevice function kernels can call (read from the toolkit's libdevice).
std::vector<LibdeviceFunction> libdeviceFunctions();
/// Every builtin function kernels can call, by its path in the compiler's registry
/// ("cuda.popc", "math.sin", "cuda.fp16.hadd", "builtins.abs"; docs/language.md's table).
std::vector<std::string> builtinFunctionNames();
/// The names of the `cuda` module that mean something in kernels only ("grid",
/// "threadIdx", "shared", "atomic", "laneid", ...), sorted: on the host they are stubs.
std::vector<std::string> cudaKernelOnlyNames();

/// What numba's Dispatcher.get_regs_per_thread & co. report for one compiled kernel: the
/// GPU's function attributes; on the simulator the shared and constant bytes the kernel
/// uses, its fiber stack as its local memory, 0 registers (it has none) and the simulated
/// device's thread limit.
struct KernelAttributes {
  int registersPerThread = 0;
  uint64_t sharedBytesPerBlock = 0; ///< static shared memory
  uint64_t localBytesPerThread = 0;
  uint64_t constBytes = 0;
  int maxThreadsPerBlock = 0;
  bool cooperative = false; ///< syncs the grid, so it is launched cooperatively
};

/// A launch's settings beyond its grid and blocks.
struct LaunchOptions {
  uint64_t sharedBytes = 0;       ///< dynamic shared memory per block
  const Stream *stream = nullptr; ///< null: the default stream
  /// The simulator's watchdog for this launch, in seconds (0: CUTWIN_SIM_TIMEOUT's, if set):
  /// a launch running longer throws KernelError (KernelErrorKind::Timeout) saying where its
  /// threads were. GPUs have no watchdog.
  double timeoutSeconds = 0;
};

class Kernel {
public:
  /// Launches the kernel. On the simulator it runs to completion and faults are thrown
  /// here; on the GPU it is asynchronous and faults surface at the next synchronisation.
  void launch(Dim3 grid, Dim3 block, const std::vector<Arg> &args, uint64_t sharedBytes = 0,
              const Stream *stream = nullptr);
  void launch(Dim3 grid, Dim3 block, const std::vector<Arg> &args, const LaunchOptions &opts);
  /// The kernel IR for these argument types (as `cutwin compile --emit=ir` prints it).
  std::string ir(const std::vector<Arg> &args);
  /// The type of each of the kernel's variables (arguments included) for these argument
  /// types, in numba's signature text ("float32[::1]"): what numba's type annotation shows.
  std::map<std::string, std::string> localTypes(const std::vector<Arg> &args);
  /// PTX for these argument types and GPU architecture ("sm_90"), from the module's GPU
  /// code generator (CompileOptions::codegen), whatever its device (works without a GPU).
  std::string ptx(const std::vector<Arg> &args, const std::string &arch = "sm_90");
  /// The largest grid (in blocks of `block` threads) a launch with these argument types can
  /// have when the kernel syncs the grid: all its blocks must be resident at once (numba's
  /// `max_cooperative_grid_blocks`). Compiles the kernel if needed.
  uint64_t maxCooperativeGridBlocks(const std::vector<Arg> &args, Dim3 block, uint64_t sharedBytes = 0);
  /// The same for the specialization compiled last (throws if none was).
  uint64_t maxCooperativeGridBlocks(Dim3 block, uint64_t sharedBytes = 0);
  /// The argument types of every specialization compiled so far (by launches or calls of
  /// ir/ptx), in compilation order, each in numba's signature syntax ("float32[::1]").
  std::vector<std::vector<std::string>> compiledSignatures() const;
  /// Those of them loaded from the kernel cache on disk rather than compiled (CompileOptions::cache).
  std::vector<std::vector<std::string>> cachedSignatures() const;
  /// numba's compile-time warnings (NumbaWarning: a print() of more than 32 items) of the
  /// specializations this kernel's module compiled since the last call; each is given once.
  std::vector<std::string> takeWarnings();
  /// The attributes of the kernel compiled for these argument types (compiling it if needed).
  KernelAttributes attributes(const std::vector<Arg> &args);
  const std::string &name() const { return name_; }
  /// The device the kernel runs on (its module's).
  std::shared_ptr<Device> device() const;

private:
  friend class Module;
  Kernel(std::shared_ptr<rt::ModuleImpl> m, std::string name)
      : module_(std::move(m)), name_(std::move(name)) {}
  std::shared_ptr<rt::ModuleImpl> module_;
  std::string name_;
};

/// A kernel module: a .py file in the Numba CUDA dialect, compiled for one device.
/// The kernel cache on disk (CompileOptions::cache; docs/simulator.md "Kernel cache"): its
/// folder and how many entries and bytes it holds.
struct KernelCacheUsage {
  std::string directory;
  uint64_t entries = 0, bytes = 0;
};
KernelCacheUsage kernelCacheUsage();
/// Removes every entry of the kernel cache (and what writers that died left); returns how
/// many entries went. Processes running keep the kernels they loaded.
uint64_t clearKernelCache();

class Module {
public:
  static std::shared_ptr<Module> fromFile(std::shared_ptr<Device> dev, const std::string &path,
                                          CompileOptions opts = {});
  static std::shared_ptr<Module> fromString(std::shared_ptr<Device> dev, const std::string &source,
                                            const std::string &name = "<string>", CompileOptions opts = {},
                                            const ModuleBindings &bindings = {});
  /// A module of the first unit's function (a kernel, or a device function for
  /// compileFunction) and every function it reaches.
  static std::shared_ptr<Module> fromUnits(std::shared_ptr<Device> dev,
                                           const std::vector<FunctionUnit> &units, CompileOptions opts = {});
  /// A kernel or device function of the module (kernels also through kernel()).
  bool hasFunction(const std::string &name) const;
  Kernel kernel(const std::string &name);
  std::vector<std::string> kernelNames() const;
  /// GPU code for one kernel or device function and signature, whatever the module's
  /// device (works without a GPU).
  CompiledFunction compileFunction(const std::string &name, const FunctionCompileRequest &request);

  /// Called with a kernel's name and its loaded code (the GPU's CUmodule; null on the
  /// simulator) after each specialization is loaded (`loaded` true) and before it is
  /// unloaded with the module (false): numba's setup and teardown callbacks.
  using LoadHook = std::function<void(const std::string &kernel, void *moduleHandle, bool loaded)>;
  void setLoadHook(LoadHook hook);
  /// The folder of the kernel cache on disk where this module's kernels are kept for later
  /// processes (CompileOptions::cache); empty where they are not.
  std::string cacheDirectory() const;

private:
  explicit Module(std::shared_ptr<rt::ModuleImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<rt::ModuleImpl> impl_;
};

template <class T> constexpr DType dtypeOf() {
  if constexpr (std::is_same_v<T, bool>)
    return DType::Bool;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::I8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::I16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::I64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::U8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return DType::U16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return DType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return DType::U64;
  else if constexpr (std::is_same_v<T, float>)
    return DType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::F64;
  else
    static_assert(sizeof(T) == 0, "unsupported element type");
}

} // namespace cutwin
