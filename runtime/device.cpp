// Devices, device arrays and dtypes.
#include "cutwin/cutwin.h"
#include "frontend/sema/record_layout.h"
#include "runtime/backend.h"
#include "runtime/launch_tracker.h"

#include <cstdlib>

namespace cutwin {

namespace {

struct DTypeRow {
  DType id;
  const char *name, *code; ///< NumPy's name and type code (none for a record)
  size_t bytes;
};

constexpr DTypeRow kDTypes[] = {
#define CUTWIN_SCALAR(id, value, name, code, bytes) {DType::id, name, code, bytes},
#define CUTWIN_RECORD(id, value, name, bytes) {DType::id, name, nullptr, bytes},
#include "cutwin/dtypes.def"
#undef CUTWIN_SCALAR
#undef CUTWIN_RECORD
};

constexpr bool inValueOrder() {
  for (size_t i = 0; i < std::size(kDTypes); ++i)
    if (size_t(kDTypes[i].id) != i)
      return false;
  return true;
}
static_assert(inValueOrder(), "dtypes.def lists the types in the order of their values");

/// A type's row: its value indexes the table (launches ask for sizes of every argument).
const DTypeRow &rowOf(DType t) {
  if (size_t(t) >= std::size(kDTypes))
    throw Error("not a dtype: " + std::to_string(int(t)));
  return kDTypes[size_t(t)];
}

} // namespace

DType recordDType(const std::string &spelling) {
  const fe::RecordLayout *r = fe::parseRecord(spelling);
  if (r == fe::xoroshiro128pRecord())
    return DType::Xoroshiro128p;
  if (kFirstRecordDType + r->index > 255)
    throw Error("too many record types in one process (at most " + std::to_string(256 - kFirstRecordDType) +
                ")");
  return DType(kFirstRecordDType + r->index);
}

bool dtypeIsRecord(DType t) { return unsigned(t) >= kFirstRecordDType; }

size_t dtypeSize(DType t) {
  return dtypeIsRecord(t) ? fe::recordAt(unsigned(t) - kFirstRecordDType)->size : rowOf(t).bytes;
}

const char *dtypeName(DType t) {
  return dtypeIsRecord(t) ? fe::recordAt(unsigned(t) - kFirstRecordDType)->text.c_str() : rowOf(t).name;
}

bool dtypeIsFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
}

std::optional<DType> dtypeFromName(const std::string &n) {
  if (n.rfind("Record(", 0) == 0)
    return recordDType(n);
  for (const DTypeRow &r : kDTypes)
    if (n == r.name || (r.code && n == r.code))
      return r.id;
  return std::nullopt;
}

// ---- DeviceArray ---------------------------------------------------------------------------

int64_t DeviceArray::size() const {
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

bool DeviceArray::isCContiguous() const {
  int64_t expected = int64_t(dtypeSize(dtype_));
  for (size_t k = shape_.size(); k-- > 0;) {
    if (shape_[k] != 1 && strides_[k] != expected)
      return false;
    expected *= shape_[k];
  }
  return true;
}

void *DeviceArray::data() const { return static_cast<char *>(buffer_.get()) + offset_; }

DeviceArray DeviceArray::view(std::vector<int64_t> shape, std::vector<int64_t> strides,
                              int64_t offsetBytes) const {
  return view(dtype_, std::move(shape), std::move(strides), offsetBytes);
}

DeviceArray DeviceArray::view(DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                              int64_t offsetBytes) const {
  if (shape.size() != strides.size())
    throw Error("view: shape and strides must have the same length");
  int64_t lo = int64_t(offset_) + offsetBytes, hi = lo;
  bool empty = false;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] < 0)
      throw Error("view: negative dimension");
    empty = empty || shape[k] == 0;
    int64_t span = (shape[k] - 1) * strides[k];
    (span < 0 ? lo : hi) += span;
  }
  if (!empty && (lo < 0 || hi + int64_t(dtypeSize(dtype)) > int64_t(capacity_)))
    throw Error("view: elements would lie outside the array's memory");
  DeviceArray v = *this;
  v.dtype_ = dtype;
  v.shape_ = std::move(shape);
  v.strides_ = std::move(strides);
  v.offset_ = size_t(int64_t(offset_) + offsetBytes);
  return v;
}

DeviceArray DeviceArray::transpose() const {
  return view(std::vector<int64_t>(shape_.rbegin(), shape_.rend()),
              std::vector<int64_t>(strides_.rbegin(), strides_.rend()));
}

void DeviceArray::copyFromHost(const void *src, size_t bytes) {
  if (!isCContiguous() || bytes != nbytes())
    throw Error("copyFromHost: expected " + std::to_string(nbytes()) +
                " bytes into a contiguous array, got " + std::to_string(bytes));
  device_->backend().memory().copyToDevice(data(), src, bytes);
}

void DeviceArray::copyToHost(void *dst, size_t bytes) const {
  if (!isCContiguous() || bytes != nbytes())
    throw Error("copyToHost: expected " + std::to_string(nbytes()) + " bytes from a contiguous array, got " +
                std::to_string(bytes));
  device_->synchronize();
  device_->backend().memory().copyToHost(dst, data(), bytes);
}

DeviceArray::Span DeviceArray::span() const {
  Span s;
  int64_t hi = 0;
  for (size_t k = 0; k < shape_.size(); ++k) {
    if (shape_[k] == 0)
      return {};
    int64_t extent = (shape_[k] - 1) * strides_[k];
    (extent < 0 ? s.begin : hi) += extent;
  }
  s.bytes = size_t(hi - s.begin) + dtypeSize(dtype_);
  return s;
}

void DeviceArray::copySpanToHost(void *dst) const {
  Span s = span();
  device_->synchronize();
  if (s.bytes)
    device_->backend().memory().copyToHost(dst, static_cast<char *>(data()) + s.begin, s.bytes);
}

void DeviceArray::copySpanFromHost(const void *src) {
  Span s = span();
  if (s.bytes)
    device_->backend().memory().copyToDevice(static_cast<char *>(data()) + s.begin, src, s.bytes);
}

void DeviceArray::copyFrom(const DeviceArray &src) {
  if (!isCContiguous() || !src.isCContiguous() || src.dtype_ != dtype_ || src.nbytes() != nbytes())
    throw Error("copyFrom: arrays must be contiguous, of the same dtype and size");
  rt::Backend &to = device_->backend(), &from = src.device_->backend();
  if (&to == &from) {
    to.memory().copyOnDevice(data(), src.data(), nbytes());
  } else if (to.capabilities().simulator == from.capabilities().simulator) {
    src.device_->synchronize(); // the source's kernels have written it (and not faulted)
    to.memory().copyFromPeer(data(), from, src.data(), nbytes());
  } else { // between a GPU and the simulator: through the host
    std::vector<char> staged(nbytes());
    src.copyToHost(staged.data(), staged.size());
    copyFromHost(staged.data(), staged.size());
  }
}

// ---- Device ----------------------------------------------------------------------------------

Device::Device(std::unique_ptr<rt::Backend> b)
    : backend_(std::move(b)), launches_(std::make_unique<rt::LaunchTracker>(*backend_)) {}
Device::~Device() {
  launches_.reset(); // releases its device memory through the backend
}

std::string Device::name() const { return backend_->name(); }
bool Device::isSimulator() const { return backend_->capabilities().simulator; }
std::optional<int64_t> Device::attribute(const std::string &name) const { return backend_->attribute(name); }
void *Device::allocateHost(size_t bytes, unsigned flags) {
  return backend_->memory().allocateHost(bytes, flags);
}
void Device::releaseHost(void *p) { backend_->memory().releaseHost(p); }
void Device::registerHost(void *p, size_t bytes, unsigned flags) {
  backend_->memory().registerHost(p, bytes, flags);
}
void Device::unregisterHost(void *p) { backend_->memory().unregisterHost(p); }
void *Device::hostDevicePointer(void *host) { return backend_->memory().hostDevicePointer(host); }
MemoryInfo Device::memoryInfo() { return backend_->memory().memoryInfo(); }
IpcMemHandle Device::ipcHandle(void *p) { return backend_->memory().ipcHandle(p); }
void *Device::ipcOpen(const std::vector<uint8_t> &handle) { return backend_->memory().ipcOpen(handle); }
void Device::ipcClose(void *base) { backend_->memory().ipcClose(base); }
void Device::synchronize() { launches_->check(); }

Stream Device::externalStream(void *handle) {
  // (On a backend without driver streams the handle is only an identity: launches on it run
  // in order, as on any stream.)
  Stream s;
  s.device_ = shared_from_this();
  s.handle_ = std::shared_ptr<void>(handle, [](void *) {}); // not ours to destroy
  return s;
}

Stream Device::createStream() {
  Stream s;
  s.device_ = shared_from_this();
  auto self = shared_from_this();
  s.handle_ = std::shared_ptr<void>(backend_->streams().createStream(),
                                    [self](void *h) { self->backend().streams().destroyStream(h); });
  return s;
}

Event Device::createEvent() {
  Event e;
  e.device_ = shared_from_this();
  auto self = shared_from_this();
  e.handle_ = std::shared_ptr<void>(backend_->streams().createEvent(),
                                    [self](void *h) { self->backend().streams().destroyEvent(h); });
  return e;
}

void Stream::synchronize() {
  device_->backend().streams().synchronizeStream(handle_.get());
  device_->synchronize(); // reports faults of launches since the last synchronisation
}

void Event::record(const Stream *stream) {
  if (stream && &stream->device() != device_.get())
    throw DeviceError("an event of " + device_->spec() + " recorded on a stream of " +
                      stream->device().spec() + ": CUDA_ERROR_INVALID_HANDLE (invalid resource handle)");
  device_->backend().streams().recordEvent(handle_.get(), stream ? stream->handle() : nullptr);
}

void Event::synchronize() { device_->backend().streams().synchronizeEvent(handle_.get()); }

float Event::elapsedMilliseconds(const Event &start) const {
  if (start.device_ != device_ && start.device_->spec() != device_->spec())
    throw DeviceError("elapsed time between an event of " + start.device_->spec() + " and one of " +
                      device_->spec() + ": CUDA_ERROR_INVALID_HANDLE (invalid resource handle)");
  return device_->backend().streams().elapsedMilliseconds(start.handle_.get(), handle_.get());
}

DeviceArray Device::wrap(void *data, DType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                         std::shared_ptr<void> owner) {
  if (shape.size() != strides.size())
    throw Error("wrap: shape and strides must have the same length");
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] < 0)
      throw Error("wrap: negative dimension");
    empty = empty || shape[k] == 0;
    int64_t span = (shape[k] - 1) * strides[k];
    (span < 0 ? lo : hi) += span;
  }
  if (empty)
    lo = hi = 0;
  DeviceArray a;
  a.device_ = shared_from_this();
  a.dtype_ = dtype;
  a.shape_ = std::move(shape);
  a.strides_ = std::move(strides);
  char *base = static_cast<char *>(data) + lo; // the lowest byte any element uses
  a.buffer_ = std::shared_ptr<void>(std::move(owner), base);
  a.capacity_ = size_t(hi - lo) + (empty ? 0 : dtypeSize(dtype));
  a.offset_ = size_t(-lo);
  return a;
}

DeviceArray Device::empty(DType dtype, std::vector<int64_t> shape) {
  DeviceArray a;
  a.device_ = shared_from_this();
  a.dtype_ = dtype;
  a.shape_ = std::move(shape);
  a.strides_.resize(a.shape_.size());
  int64_t stride = int64_t(dtypeSize(dtype));
  for (size_t k = a.shape_.size(); k-- > 0;) {
    if (a.shape_[k] < 0)
      throw Error("array dimensions must not be negative");
    a.strides_[k] = stride;
    stride *= a.shape_[k];
  }
  rt::Backend *b = backend_.get();
  auto self = shared_from_this();
  void *p = b->memory().allocate(size_t(stride));
  a.capacity_ = size_t(stride);
  a.buffer_ = std::shared_ptr<void>(p, [self](void *q) { self->backend().memory().release(q); });
  return a;
}

DeviceArray Device::zeros(DType dtype, std::vector<int64_t> shape) {
  DeviceArray a = empty(dtype, std::move(shape));
  backend_->memory().fill(a.data(), 0, a.nbytes());
  return a;
}

} // namespace cutwin
