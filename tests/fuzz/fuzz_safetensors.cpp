// libFuzzer target for the safetensors parser: parse_safetensors() on
// arbitrary bytes must return a value or an error, never crash, leak or hit
// UB. On success every tensor's bytes and every metadata string are read,
// and each tensor of rank 1 or 2 goes through get_bf16 / get_f64 /
// get_as_double with its own shape (1-D [n] as 1 x n); the results must agree
// with the raw bytes, else the target aborts. No files are written.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "safetensors.hpp"

namespace {

volatile uint64_t g_sink;  // keeps the byte reads from being optimised away

void require(bool cond) {
  if (!cond) std::abort();
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Reads every byte of s (so ASan checks the whole buffer).
uint64_t touch(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

void check_tensor(const ltt::SafeTensors& st, const std::string& name, const ltt::StTensor& t) {
  g_sink = g_sink + touch(t.bytes.data(), t.bytes.size());
  g_sink = g_sink + touch(reinterpret_cast<const uint8_t*>(name.data()), name.size());
  g_sink = g_sink + std::strlen(ltt::st_dtype_name(t.dtype));

  int64_t r64, c64;
  if (t.shape.size() == 2) {
    r64 = t.shape[0];
    c64 = t.shape[1];
  } else if (t.shape.size() == 1) {
    r64 = 1;
    c64 = t.shape[0];
  } else {
    return;  // the get_* accessors take rows x cols only
  }
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (r64 < 0 || c64 < 0 || r64 > kIntMax || c64 > kIntMax) return;
  const int rows = static_cast<int>(r64), cols = static_cast<int>(c64);
  const size_t n = static_cast<size_t>(r64) * static_cast<size_t>(c64);
  const size_t esz = ltt::st_dtype_size(t.dtype);
  require(t.bytes.size() == n * esz);

  auto d = st.get_as_double(name, rows, cols);
  require(d.ok());
  require(d->rows() == rows && d->cols() == cols);
  const uint8_t* p = t.bytes.data();
  for (size_t i = 0; i < n; ++i) {
    double want;
    if (t.dtype == ltt::StDtype::BF16) {
      ltt::bf16 b;
      std::memcpy(&b.bits, p + 2 * i, 2);
      want = ltt::to_double(b);
    } else if (t.dtype == ltt::StDtype::F32) {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      want = static_cast<double>(f);
    } else {
      std::memcpy(&want, p + 8 * i, 8);
    }
    require(same(d->data()[i], want));
  }

  auto b = st.get_bf16(name, rows, cols);
  require(b.ok() == (t.dtype == ltt::StDtype::BF16));
  if (b.ok()) {
    require(b->rows == rows && b->cols == cols && b->size() == n);
    if (n) require(std::memcmp(b->v.data(), p, t.bytes.size()) == 0);
    ltt::MatD w = ltt::widen<double>(*b);
    for (size_t i = 0; i < n; ++i) require(same(w.data()[i], d->data()[i]));
  } else {
    g_sink = g_sink + b.error().describe().size();
  }

  auto f = st.get_f64(name, rows, cols);
  require(f.ok() == (t.dtype == ltt::StDtype::F64));
  if (f.ok() && n) require(std::memcmp(f->data(), p, t.bytes.size()) == 0);

  // A wrong shape is an error, never a read past the bytes.
  if (cols < std::numeric_limits<int>::max()) {
    auto wrong = st.get_as_double(name, rows, cols + 1);
    require(!wrong.ok());
    g_sink = g_sink + wrong.error().message.size();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = ltt::parse_safetensors("fuzz", data, size);
  if (!r.ok()) {
    require(r.error().code == ltt::Errc::usage);
    g_sink = g_sink + r.error().describe().size();
    return 0;
  }
  const ltt::SafeTensors& st = *r;
  for (const auto& [k, v] : st.metadata)
    g_sink = g_sink + touch(reinterpret_cast<const uint8_t*>(k.data()), k.size()) +
             touch(reinterpret_cast<const uint8_t*>(v.data()), v.size());
  for (const auto& [name, t] : st.tensors) check_tensor(st, name, t);
  auto missing = st.get_as_double("__ltt_fuzz_no_such_tensor__", 1, 1);
  require(!missing.ok() || st.tensors.count("__ltt_fuzz_no_such_tensor__"));
  return 0;
}
