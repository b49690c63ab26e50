// safetensors reading, validation and atomic writing (format in safetensors.hpp).
// Tensor bytes are copied as-is, so this code requires a little-endian host;
// typed access goes through memcpy. JSON errors are caught and become values.
#include "safetensors.hpp"

#include "jsononce.hpp"
#include "outfile.hpp"
#include "sha256.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace ltt {

namespace {
// safetensors' other dtypes: a valid file, in a form ltt does not read.
constexpr const char* kNotRead = " F16 F8_E4M3 F8_E5M2 F8_E8M0 F4 F6_E2M3 F6_E3M2 I8 U8 I16 U16 I32 U32 I64 U64 BOOL C64 ";
constexpr const char* kNotReadRemedy =
    " is a safetensors dtype ltt does not read: ltt reads BF16, F32 and F64 (outputs to verify are BF16 or F32: convert, "
    "e.g. .to(torch.bfloat16) or .float())";
}  // namespace

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian and is copied as-is");
static_assert(sizeof(bf16) == 2 && sizeof(float) == 4 && sizeof(double) == 8);

namespace {

// A value from the file, for a message: scalars as written, containers by kind
// and size only (json::dump() recurses once per nesting level, so a deeply
// nested header would overflow the stack).
std::string brief(const nlohmann::json& v) {
  if (v.is_primitive()) return v.dump();
  return cat(v.is_array() ? "an array of " : "an object of ", v.size(), " entries");
}


using json = nlohmann::json;
constexpr uint64_t kMaxBytes = uint64_t{1} << 40;  // cap on one tensor's size

// A shape for a message: its first 8 dimensions, then how many there are
// (a header can give a shape of 100,000 entries).
std::string shape_str(const std::vector<int64_t>& s) {
  if (s.size() <= 8) return cat("[", join(s), "]");
  return cat("[", join(std::vector<int64_t>(s.begin(), s.begin() + 8)), ", ...] (", s.size(), " dimensions)");
}

// The bytes a tensor of this shape holds; nullopt on a negative dimension or
// past kMaxBytes (a zero dimension makes the size 0 whatever the others).
std::optional<uint64_t> tensor_bytes(const std::vector<int64_t>& shape, StDtype d) {
  if (std::any_of(shape.begin(), shape.end(), [](int64_t x) { return x < 0; })) return std::nullopt;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  uint64_t n = st_dtype_size(d);
  for (int64_t x : shape) {
    if (static_cast<uint64_t>(x) > kMaxBytes / n) return std::nullopt;
    n *= static_cast<uint64_t>(x);
  }
  return n;
}

template <class T>
void put(SafeTensors& st, const std::string& name, StDtype d, int64_t rows, int64_t cols,
         const T* p, bool vector) {
  StTensor t{d, vector ? std::vector<int64_t>{rows * cols} : std::vector<int64_t>{rows, cols}, {}};
  t.bytes.resize(static_cast<size_t>(rows * cols) * sizeof(T));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), p, t.bytes.size());
  st.tensors[name] = std::move(t);
}

// The tensor `name`, checked to be rows x cols (or [cols] when rows == 1) and
// of dtype `want` when given.
Result<const StTensor*> find(const SafeTensors& st, const std::string& name, int rows, int cols,
                             std::optional<StDtype> want) {
  std::string where = st.source.empty() ? "" : st.source + ": ";
  auto it = st.tensors.find(name);
  if (it == st.tensors.end()) return LTT_USAGE(where, "tensor '", name, "' not found");
  const StTensor& t = it->second;
  if (want && t.dtype != *want)
    return LTT_USAGE(where, "tensor '", name, "' is ", st_dtype_name(t.dtype), ", expected ",
                     st_dtype_name(*want));
  std::vector<int64_t> two{rows, cols}, one{cols};
  if (t.shape != two && !(rows == 1 && t.shape == one))
    return LTT_USAGE(where, "tensor '", name, "' has shape ", shape_str(t.shape), ", expected ",
                     shape_str(two));
  auto need = tensor_bytes(t.shape, t.dtype);
  if (!need || *need != t.bytes.size())
    return LTT_USAGE(where, "tensor '", name, "' holds ", t.bytes.size(), " bytes, not what shape ",
                     shape_str(t.shape), " of ", st_dtype_name(t.dtype), " needs");
  return &t;
}

}  // namespace

const char* st_dtype_name(StDtype d) {
  return d == StDtype::BF16 ? "BF16" : d == StDtype::F32 ? "F32" : "F64";
}
size_t st_dtype_size(StDtype d) { return d == StDtype::BF16 ? 2 : d == StDtype::F32 ? 4 : 8; }

void SafeTensors::put_bf16(const std::string& name, const MatrixB& m, bool vector) {
  put(*this, name, StDtype::BF16, m.rows, m.cols, m.v.data(), vector);
}
void SafeTensors::put_f32(const std::string& name, const MatF& m, bool vector) {
  put(*this, name, StDtype::F32, m.rows(), m.cols(), m.data(), vector);
}
void SafeTensors::put_f64(const std::string& name, const MatD& m, bool vector) {
  put(*this, name, StDtype::F64, m.rows(), m.cols(), m.data(), vector);
}

Result<MatrixB> SafeTensors::get_bf16(const std::string& name, int rows, int cols) const {
  auto t = find(*this, name, rows, cols, StDtype::BF16);
  if (!t.ok()) return t.error();
  MatrixB m(rows, cols);
  if (m.size()) std::memcpy(m.v.data(), (*t)->bytes.data(), (*t)->bytes.size());
  return m;
}

Result<MatD> SafeTensors::get_f64(const std::string& name, int rows, int cols) const {
  auto t = find(*this, name, rows, cols, StDtype::F64);
  if (!t.ok()) return t.error();
  return get_as_double(name, rows, cols);
}

Result<MatD> SafeTensors::get_as_double(const std::string& name, int rows, int cols) const {
  auto r = find(*this, name, rows, cols, std::nullopt);
  if (!r.ok()) return r.error();
  const StTensor& t = **r;
  MatD m(rows, cols);
  const uint8_t* p = t.bytes.data();
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    if (t.dtype == StDtype::BF16) {
      bf16 b;
      std::memcpy(&b.bits, p + 2 * i, 2);
      m.data()[i] = to_double(b);
    } else if (t.dtype == StDtype::F32) {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      m.data()[i] = static_cast<double>(f);
    } else {
      std::memcpy(m.data() + i, p + 8 * i, 8);
    }
  }
  return m;
}

namespace {

// The file's first bytes: the 8-byte little-endian header length, then the
// header (tensors in name order, their data contiguous in that order),
// space-padded to a multiple of 8. Errors name `path`.
Result<std::string> encode_head(const std::string& path, const SafeTensors& st) {
  json h = json::object();
  if (!st.metadata.empty()) h["__metadata__"] = st.metadata;
  uint64_t off = 0;
  for (const auto& [name, t] : st.tensors) {
    if (name == "__metadata__") return LTT_USAGE(path, ": '__metadata__' cannot name a tensor");
    auto need = tensor_bytes(t.shape, t.dtype);
    if (!need || *need != t.bytes.size())
      return LTT_USAGE(path, ": tensor '", name, "' holds ", t.bytes.size(), " bytes, not what shape ",
                       shape_str(t.shape), " of ", st_dtype_name(t.dtype), " needs");
    h[name] = {{"dtype", st_dtype_name(t.dtype)},
               {"shape", t.shape},
               {"data_offsets", json::array({off, off + *need})}};
    off += *need;
  }
  std::string head;
  try {
    head = h.dump();
  } catch (const json::exception& e) {
    return LTT_USAGE(path, ": cannot encode the header: ", e.what());
  }
  head.append((8 - head.size() % 8) % 8, ' ');
  std::string len(8, '\0');
  for (int i = 0; i < 8; ++i) len[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint64_t>(head.size()) >> (8 * i));
  return len + head;
}

// Writes `file` (flushed and fsynced; removed on failure); messages name
// `path`, the file the caller means, and `file` too when it is a temporary.
Status write_file(const std::string& path, const std::string& file, const SafeTensors& st) {
  auto head = encode_head(path, st);
  if (!head.ok()) return head.error();
  const std::string via = file == path ? "" : cat(" (via ", file, ")");
  FILE* f = std::fopen(file.c_str(), "wb");
  if (!f) return LTT_USAGE(path, ": cannot create", via, ": ", std::strerror(errno));
  bool ok = std::fwrite(head->data(), 1, head->size(), f) == head->size();
  for (const auto& [name, t] : st.tensors)
    ok = ok && (t.bytes.empty() || std::fwrite(t.bytes.data(), 1, t.bytes.size(), f) == t.bytes.size());
  ok = ok && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(file.c_str());
    return LTT_USAGE(path, ": cannot write", via, ": ", std::strerror(err));
  }
  return {};
}

}  // namespace

Status write_safetensors_in_place(const std::string& path, const SafeTensors& st) { return write_file(path, path, st); }

Result<StDigest> safetensors_digest(const SafeTensors& st) {
  auto head = encode_head("the case", st);
  if (!head.ok()) return head.error();
  Sha256 h;
  h.update(reinterpret_cast<const uint8_t*>(head->data()), head->size());
  StDigest d{"", head->size()};
  for (const auto& [name, t] : st.tensors) {
    h.update(t.bytes.data(), t.bytes.size());
    d.bytes += t.bytes.size();
  }
  d.sha256 = h.hex_digest();
  return d;
}

Status write_safetensors(const std::string& path, const SafeTensors& st) {
  const std::string tmp = cat(path, ".tmp.", ::getpid());
  LTT_TRY(write_file(path, tmp, st));
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return LTT_USAGE(path, ": cannot rename ", tmp, " to it: ", std::strerror(err));
  }
  return {};
}

Result<SafeTensors> read_safetensors(const std::string& path, StRole role) {
  LTT_TRY(regular_file_to_read(path, true));
  auto opened = open_to_read(path);
  if (!opened.ok()) return opened.error();
  std::FILE* f = *opened;
  std::vector<uint8_t> buf;
  uint8_t chunk[1 << 16];
  // The file is read whole, then parsed (its tensors copied out): one
  // larger than the memory ltt may take is said by its size, not by a
  // bad_alloc's generic remedy.
  int err = 0;
  try {
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) buf.insert(buf.end(), chunk, chunk + n);
    err = std::ferror(f) ? errno : 0;
  } catch (const std::bad_alloc&) {
    std::fclose(f);
    return LTT_USAGE(path, ": out of memory after reading ", buf.size(), " bytes of it: ltt reads a safetensors file "
                     "whole, and this one is larger than the memory it may take (keep only the tensors it needs in "
                     "the file, or give ltt more memory)");
  }
  std::fclose(f);
  if (err) return LTT_USAGE(path, ": cannot read: ", std::strerror(err));
  // The tensors are copied out of the buffer: the file's size again.
  bool no_memory = false;
  auto parse = [&]() -> Result<SafeTensors> {
    try {
      return parse_safetensors(path, buf.data(), buf.size(), role);
    } catch (const std::bad_alloc&) {
      no_memory = true;
      return LTT_USAGE(path, ": out of memory copying the tensors of this file of ", buf.size(),
                       " bytes: ltt holds a safetensors file and its tensors in memory at once (keep only the tensors it "
                       "needs in the file, or give ltt more memory)");
    }
  };
  auto st = parse();
  if (!st.ok() && !no_memory) {  // what to do, after what is wrong
    Error e = st.error();
    if (e.message.find(kNotReadRemedy) == std::string::npos)  // a valid file of a dtype ltt does not read says its own remedy
      e.message += role == StRole::case_file ? ": the file is cut short, damaged or not safetensors; write it again (ltt golden makes case files)"
                                             : ": the file is cut short, damaged or not safetensors; write the outputs again";
    return e;
  }
  return st;
}

#define BAD(...) LTT_USAGE(where, ": ", __VA_ARGS__)
#define BADT(...) LTT_USAGE(where, ": tensor '", name, "': ", __VA_ARGS__)

Result<SafeTensors> parse_safetensors(const std::string& where, const uint8_t* data, size_t size, StRole role) {
  if (size < 8) return BAD("file is ", size, " bytes, too short for the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
  if (n > size - 8) return BAD("header length ", n, " runs past the end of the file (", size - 8, " bytes follow it)");
  json h;
  std::string twice;  // a tensor or metadata entry given twice (read as one), or nesting past any header's (jsononce.hpp)
  try {
    h = parse_json_once(reinterpret_cast<const char*>(data) + 8, reinterpret_cast<const char*>(data) + 8 + n, twice);
  } catch (const json::exception& e) {
    return BAD("header is not valid JSON: ", e.what());
  }
  if (!twice.empty()) return BAD("header: ", twice, ": a safetensors header is an object of tensors, each once");
  if (!h.is_object()) return BAD("header is not a JSON object");
  const uint8_t* body = data + 8 + n;
  const uint64_t body_size = size - 8 - n;

  SafeTensors st;
  st.source = where;
  struct Range { uint64_t b, e; std::string name; };
  std::vector<Range> ranges;
  // The first tensor of a dtype ltt does not read: said once the rest of the
  // file has proved whole (a damaged file is told it is damaged first).
  std::string not_read;
  const json& hc = h;
  for (const auto& [name, v] : hc.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) return BAD("__metadata__ is not an object");
      for (const auto& [k, s] : v.items()) {
        if (!s.is_string()) return BAD("__metadata__ value for '", k, "' is not a string");
        st.metadata[k] = s.get<std::string>();
      }
      continue;
    }
    if (!v.is_object()) return BADT("entry is not an object");
    for (const char* key : {"dtype", "shape", "data_offsets"})
      if (!v.contains(key)) return BADT("missing '", key, "'");
    const json &dt = v["dtype"], &sh = v["shape"], &off = v["data_offsets"];
    if (!dt.is_string()) return BADT("'dtype' is not a string");
    StTensor t;
    const std::string& ds = dt.get_ref<const std::string&>();
    // A dtype ltt does not read (read false): its element size is not ltt's
    // to know, so its offsets are checked as a range only.
    bool read = true;
    if (ds == "BF16") t.dtype = StDtype::BF16;
    else if (ds == "F32") t.dtype = StDtype::F32;
    else if (ds == "F64") t.dtype = StDtype::F64;
    else if (std::string_view(kNotRead).find(cat(" ", ds, " ")) != std::string_view::npos) read = false;
    else {
      std::string upper = ds;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      const bool known = upper == "BF16" || upper == "F32" || upper == "F64" ||
                         std::string_view(kNotRead).find(cat(" ", upper, " ")) != std::string_view::npos;
      return BADT("unknown dtype '", ds, "'",
                  known && upper != ds ? cat(" (safetensors' dtype names are upper case: '", upper, "')") : "",
                  ": ltt reads BF16, F32 and F64 (outputs to verify are BF16 or F32: convert, e.g. .to(torch.bfloat16))");
    }
    std::optional<uint64_t> need;
    if (read) {
      if (!sh.is_array()) return BADT("'shape' is not an array");
      for (size_t i = 0; i < sh.size(); ++i) {
        const json& d = sh[i];
        if (!d.is_number_integer()) return BADT("shape entry ", i, " (", brief(d), ") is not an integer dimension");
        if (!d.is_number_unsigned()) {
          if (d.get<int64_t>() < 0) return BADT("shape entry ", i, " (", brief(d), ") is a negative dimension");
          t.shape.push_back(0);  // "-0"
        } else if (d.get<uint64_t>() > kMaxBytes) {
          return BADT("shape entry ", i, " (", brief(d), ") of ", ds, " needs more than 2^40 bytes");
        } else {
          t.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
        }
      }
      need = tensor_bytes(t.shape, t.dtype);
      if (!need) return BADT("shape ", shape_str(t.shape), " of ", ds, " needs more than 2^40 bytes");
    }
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      return BADT("'data_offsets' (", brief(off), ") is not a pair of non-negative integers");
    uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
    if (b > e) return BADT("data_offsets [", b, ", ", e, "] begin after they end");
    if (e > body_size)
      return BADT("data_offsets [", b, ", ", e, "] run past the end of the data section (", body_size, " bytes)");
    ranges.push_back({b, e, name});
    if (!read) {
      if (role == StRole::outputs) st.unread.emplace(name, ds);
      else if (not_read.empty()) not_read = cat(where, ": tensor '", name, "': dtype ", ds, kNotReadRemedy);
      continue;
    }
    if (e - b != *need)
      return BADT("data_offsets [", b, ", ", e, "] span ", e - b, " bytes but shape ", shape_str(t.shape),
                  " of ", ds, " needs ", *need);
    t.bytes.assign(body + b, body + e);
    st.tensors.emplace(name, std::move(t));
  }

  // The ranges, sorted, must tile [0, body_size) exactly.
  std::sort(ranges.begin(), ranges.end(), [](const Range& x, const Range& y) {
    return x.b != y.b ? x.b < y.b : x.e < y.e;
  });
  uint64_t pos = 0;
  std::string prev;
  for (const Range& r : ranges) {
    if (r.b < pos)
      return BAD("tensor '", r.name, "': data_offsets [", r.b, ", ", r.e, "] overlap tensor '", prev,
                 "', which ends at ", pos);
    if (r.b > pos)
      return BAD("tensor '", r.name, "': data_offsets [", r.b, ", ", r.e, "] leave a gap: bytes [", pos,
                 ", ", r.b, ") of the data section belong to no tensor");
    pos = r.e;
    prev = r.name;
  }
  if (pos != body_size)
    return BAD("data section is ", body_size, " bytes but the tensors cover ", pos, ": ",
               body_size - pos, " trailing bytes belong to no tensor");
  if (!not_read.empty()) return LTT_USAGE(not_read);
  return st;
}

#undef BAD
#undef BADT

}  // namespace ltt
