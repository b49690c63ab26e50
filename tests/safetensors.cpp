// safetensors: round trips of BF16/F32/F64 tensors and metadata through a
// file; the header's space padding and contiguous name-ordered offsets; a
// hand-built spec-valid file; one test per malformed-file rule, each checking
// that the message names the file, the rule and the tensor; the header
// length's boundaries (exactly the bytes after it, one more, 8- and 7-byte
// files); atomic writes;
// get_* errors; and random corruption of a valid file never crashing.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "safetensors.hpp"
#include "sha256.hpp"

using namespace ltt;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

// A file: 8-byte little-endian length, the header (space-padded to a multiple
// of 8 when pad), then data.
std::vector<uint8_t> file_bytes(std::string header, const std::vector<uint8_t>& data, bool pad = true) {
  if (pad) header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<uint8_t> f;
  for (int i = 0; i < 8; ++i) f.push_back(static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i)));
  f.insert(f.end(), header.begin(), header.end());
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

std::string error_of(const std::vector<uint8_t>& f) {
  auto r = parse_safetensors("case.safetensors", f.data(), f.size());
  return r.ok() ? "parsed" : r.error().message;
}
std::string error_of(const std::string& header, size_t data_size) {
  return error_of(file_bytes(header, std::vector<uint8_t>(data_size)));
}

// A fresh directory under the system temp directory, removed with its contents.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("ltt_st_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
            std::to_string(std::random_device{}()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(path)) v.push_back(e.path().filename().string());
    return v;
  }
};

std::vector<uint8_t> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

SafeTensors sample() {
  SafeTensors st;
  MatrixB b(2, 3);
  const uint16_t pats[] = {0x3f80, 0x8000, 0x7fc0, 0x0001, 0xff80, 0x4049};  // 1, -0, NaN, subnormal, -inf, pi
  for (size_t i = 0; i < 6; ++i) b.v[i] = bf16{pats[i]};
  st.put_bf16("up_weight", b);
  MatrixB w(1, 4);
  for (int j = 0; j < 4; ++j) w.at(0, j) = to_bf16(0.5f * static_cast<float>(j + 1));
  st.put_bf16("norm_weight", w, /*vector=*/true);
  MatF f(3, 2);
  f << 1.0f, -2.5f, 1e-40f, std::numeric_limits<float>::max(), -0.0f, 3.14159f;
  st.put_f32("output.tier1.rank0", f);
  MatD d(2, 2);
  d << 0.1, -1e300, 5e-324, std::numeric_limits<double>::infinity();
  st.put_f64("expected_exact", d);
  st.put_f64("empty", MatD(0, 4));
  st.metadata = {{"tiers", "0,1,2,3,4"}, {"tp", "8"}, {"eps", "1e-06"}, {"note", "ünïcode \"quoted\""}};
  return st;
}

}  // namespace

TEST_CASE("safetensors: round trip of BF16, F32 and F64 tensors and metadata through a file") {
  TempDir dir;
  const std::string path = (dir.path / "case.safetensors").string();
  const SafeTensors st = sample();
  REQUIRE(write_safetensors(path, st).ok());
  auto r = read_safetensors(path);
  REQUIRE(r.ok());
  const SafeTensors& back = *r;
  CHECK(back.metadata == st.metadata);
  CHECK(back.source == path);
  REQUIRE(back.tensors.size() == st.tensors.size());
  for (const auto& [name, t] : st.tensors) {
    CAPTURE(name);
    const StTensor& u = back.tensors.at(name);
    CHECK(u.dtype == t.dtype);
    CHECK(u.shape == t.shape);
    CHECK(u.bytes == t.bytes);
  }
  CHECK(back.tensors.at("norm_weight").shape == std::vector<int64_t>{4});
  CHECK(back.tensors.at("up_weight").shape == std::vector<int64_t>{2, 3});

  auto b = back.get_bf16("up_weight", 2, 3);
  REQUIRE(b.ok());
  CHECK(b->at(1, 2) == bf16{0x4049});
  CHECK(b->at(0, 2) == bf16{0x7fc0});
  auto w = back.get_bf16("norm_weight", 1, 4);  // 1-D [4] read as 1 x 4
  REQUIRE(w.ok());
  CHECK(to_float(w->at(0, 3)) == 2.0f);
  auto d = back.get_f64("expected_exact", 2, 2);
  REQUIRE(d.ok());
  CHECK(std::memcmp(d->data(), st.tensors.at("expected_exact").bytes.data(), 32) == 0);
  auto e = back.get_f64("empty", 0, 4);
  REQUIRE(e.ok());
  CHECK(e->size() == 0);

  auto wb = back.get_as_double("up_weight", 2, 3);
  REQUIRE(wb.ok());
  CHECK((*wb)(0, 0) == 1.0);
  CHECK(std::signbit((*wb)(0, 1)));
  CHECK(std::isnan((*wb)(0, 2)));
  CHECK((*wb)(1, 0) == std::ldexp(1.0, -133));
  CHECK((*wb)(1, 1) == -std::numeric_limits<double>::infinity());
  auto wf = back.get_as_double("output.tier1.rank0", 3, 2);
  REQUIRE(wf.ok());
  CHECK((*wf)(1, 0) == static_cast<double>(1e-40f));
  CHECK((*wf)(2, 1) == static_cast<double>(3.14159f));
  auto wd = back.get_as_double("expected_exact", 2, 2);
  REQUIRE(wd.ok());
  CHECK((*wd)(1, 0) == 5e-324);
}

TEST_CASE("safetensors: the in-memory digest is the SHA-256 and size of the file write_safetensors writes") {
  TempDir dir;
  const std::string path = (dir.path / "case.safetensors").string();
  SafeTensors st = sample();
  REQUIRE(write_safetensors(path, st).ok());
  auto d = safetensors_digest(st);
  REQUIRE(d.ok());
  const auto bytes = slurp(path);
  CHECK(d->bytes == bytes.size());
  CHECK(d->sha256 == sha256_hex(bytes.data(), bytes.size()));
  // One bit of one tensor, or one metadata value, changes it.
  st.tensors.at("up_weight").bytes[3] ^= 1;
  auto d2 = safetensors_digest(st);
  REQUIRE(d2.ok());
  CHECK(d2->sha256 != d->sha256);
  st.tensors.at("up_weight").bytes[3] ^= 1;
  st.metadata["tp"] = "16";
  auto d3 = safetensors_digest(st);
  REQUIRE(d3.ok());
  CHECK(d3->sha256 != d->sha256);
  // A tensor whose bytes do not fit its shape is refused, as by the writer.
  st.tensors.at("up_weight").bytes.pop_back();
  CHECK_FALSE(safetensors_digest(st).ok());
}

TEST_CASE("safetensors: the header is space-padded to a multiple of 8 and offsets are contiguous in name order") {
  TempDir dir;
  // Names of lengths 1..8 make every header length residue mod 8 occur.
  for (int len = 1; len <= 8; ++len) {
    CAPTURE(len);
    SafeTensors st = sample();
    st.put_f32(std::string(static_cast<size_t>(len), 'x'), MatF::Constant(1, 3, 7.0f));
    const fs::path path = dir.path / "pad.safetensors";
    REQUIRE(write_safetensors(path.string(), st).ok());
    const std::vector<uint8_t> f = slurp(path);
    REQUIRE(f.size() >= 8);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | f[static_cast<size_t>(i)];
    CHECK(n % 8 == 0);
    REQUIRE(8 + n <= f.size());
    std::string head(f.begin() + 8, f.begin() + 8 + static_cast<long>(n));
    const size_t close = head.find_last_of('}');
    REQUIRE(close != std::string::npos);
    CHECK(head.size() - (close + 1) < 8);  // at most 7 bytes of padding
    CHECK(head.find_first_not_of(' ', close + 1) == std::string::npos);
    const auto j = nlohmann::json::parse(head);
    CHECK(j["__metadata__"]["tp"] == "8");
    uint64_t pos = 0;
    for (const auto& [name, t] : st.tensors) {  // std::map: name order
      CAPTURE(name);
      const auto& off = j[name]["data_offsets"];
      CHECK(off[0].get<uint64_t>() == pos);
      CHECK(off[1].get<uint64_t>() == pos + t.bytes.size());
      CHECK(std::equal(t.bytes.begin(), t.bytes.end(), f.begin() + static_cast<long>(8 + n + pos)));
      pos += t.bytes.size();
    }
    CHECK(8 + n + pos == f.size());
  }
}

TEST_CASE("safetensors: a hand-built spec-valid file parses") {
  // Offsets not in name order, keys in any order, whitespace in the header, a scalar.
  const std::string header =
      "{\n  \"z\": {\"dtype\": \"F64\", \"shape\": [1], \"data_offsets\": [0, 8]},\n"
      "  \"a\": {\"shape\": [2, 2], \"data_offsets\": [8, 16], \"dtype\": \"BF16\"},\n"
      "  \"m\": {\"dtype\": \"F32\", \"shape\": [], \"data_offsets\": [16, 20]},\n"
      "  \"__metadata__\": {\"format\": \"pt\"}\n}";
  const std::vector<uint8_t> data = {
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x3f,  // z = 1.5
      0x80, 0x3f, 0x00, 0xc0, 0x00, 0x3f, 0x00, 0x00,  // a = 1, -2, 0.5, 0
      0x00, 0x00, 0x40, 0x40};                         // m = 3
  const std::vector<uint8_t> f = file_bytes(header, data);
  auto r = parse_safetensors("hand.safetensors", f.data(), f.size());
  REQUIRE(r.ok());
  CHECK(r->metadata == std::map<std::string, std::string>{{"format", "pt"}});
  CHECK(r->tensors.size() == 3);
  auto z = r->get_f64("z", 1, 1);
  REQUIRE(z.ok());
  CHECK((*z)(0, 0) == 1.5);
  auto a = r->get_as_double("a", 2, 2);
  REQUIRE(a.ok());
  CHECK((*a)(0, 0) == 1.0);
  CHECK((*a)(0, 1) == -2.0);
  CHECK((*a)(1, 0) == 0.5);
  CHECK((*a)(1, 1) == 0.0);
  const StTensor& m = r->tensors.at("m");
  CHECK(m.dtype == StDtype::F32);
  CHECK(m.shape.empty());
  float v;
  REQUIRE(m.bytes.size() == 4);
  std::memcpy(&v, m.bytes.data(), 4);
  CHECK(v == 3.0f);
  // Unpadded headers are accepted too, and so is a file with no tensors.
  CHECK(error_of(file_bytes(header, data, false)) == "parsed");
  CHECK(error_of("{}", 0) == "parsed");
}

TEST_CASE("safetensors: a file too short for the 8-byte length is rejected") {
  const std::vector<uint8_t> f = {8, 0, 0};
  const std::string e = error_of(f);
  CHECK(has(e, "case.safetensors: "));
  CHECK(has(e, "too short for the 8-byte header length"));
  CHECK(has(parse_safetensors("empty.safetensors", nullptr, 0).error().message, "empty.safetensors"));
}

TEST_CASE("safetensors: a header length past the end of the file is rejected") {
  std::vector<uint8_t> f = file_bytes("{}", {});
  f[0] = 200;
  CHECK(has(error_of(f), "header length 200 runs past the end of the file"));
  f[0] = 0xff;
  f[7] = 0xff;  // near 2^64: must not wrap around
  CHECK(has(error_of(f), "runs past the end of the file"));
}

TEST_CASE("safetensors: a header that is not valid JSON is rejected") {
  CHECK(has(error_of("{\"a\": {\"dtype\": ", 0), "header is not valid JSON"));
  CHECK(has(error_of("{\"a\": \"\xff\xfe\"}", 0), "header is not valid JSON"));  // bad UTF-8
}

TEST_CASE("safetensors: a NUL byte in the header is refused, not read as the header's end") {
  // nlohmann's reader stops at a NUL and would pass the JSON before it;
  // Python's json and safetensors' own reader refuse such a header.
  const std::string valid = "{\"a\": {\"dtype\": \"BF16\", \"shape\": [1], \"data_offsets\": [0, 2]}}";
  CHECK(error_of(valid, 2) == "parsed");
  std::string junk = valid;
  junk += std::string(1, '\0') + " this is {{{ not json";
  std::string e = error_of(junk, 2);
  CHECK(has(e, "header is not valid JSON"));
  CHECK(has(e, "a NUL byte"));
  CHECK(has(e, "byte " + std::to_string(valid.size() + 1)));
  std::string padded = valid + std::string(8 - valid.size() % 8 + 8, '\0');  // NUL padding, not the spec's spaces
  CHECK(has(error_of(padded, 2), "a NUL byte"));
  std::string in_string = "{\"__metadata__\": {\"k\": \"a";
  in_string += std::string(1, '\0') + "b\"}}";
  CHECK(has(error_of(in_string, 0), "a NUL byte"));
}

TEST_CASE("safetensors: a header that is not an object is rejected") {
  CHECK(has(error_of("[1, 2]", 0), "header is not a JSON object"));
  CHECK(has(error_of("\"x\"", 0), "header is not a JSON object"));
}

TEST_CASE("safetensors: an entry that is not an object is rejected") {
  CHECK(has(error_of("{\"up_weight\": 3}", 0), "tensor 'up_weight': entry is not an object"));
}

TEST_CASE("safetensors: missing dtype, shape or data_offsets is rejected") {
  CHECK(has(error_of(R"({"w": {"shape": [1], "data_offsets": [0, 2]}})", 2), "tensor 'w': missing 'dtype'"));
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "data_offsets": [0, 2]}})", 2), "tensor 'w': missing 'shape'"));
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "shape": [1]}})", 2), "tensor 'w': missing 'data_offsets'"));
}

TEST_CASE("safetensors: ill-typed dtype, shape or data_offsets is rejected") {
  CHECK(has(error_of(R"({"w": {"dtype": 2, "shape": [1], "data_offsets": [0, 2]}})", 2),
            "tensor 'w': 'dtype' is not a string"));
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "shape": "1", "data_offsets": [0, 2]}})", 2),
            "tensor 'w': 'shape' is not an array"));
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "shape": [1.5], "data_offsets": [0, 2]}})", 2),
            "tensor 'w': shape entry 0 (1.5) is not an integer dimension"));
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2, 4]}})", 4),
            "tensor 'w': 'data_offsets' (an array of 3 entries) is not a pair of non-negative integers"));
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "shape": [1], "data_offsets": [-2, 0]}})", 2),
            "not a pair of non-negative integers"));
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "shape": [1], "data_offsets": {"b": 0}}})", 2),
            "not a pair of non-negative integers"));
}

TEST_CASE("safetensors: an unknown dtype is rejected") {
  CHECK(has(error_of(R"({"w": {"dtype": "Q7", "shape": [2], "data_offsets": [0, 2]}})", 2),
            "tensor 'w': unknown dtype 'Q7'"));
}

TEST_CASE("safetensors: a valid file of a dtype ltt does not read says so, and how to convert, not that it is damaged") {
  CHECK(has(error_of(R"({"w": {"dtype": "I8", "shape": [2], "data_offsets": [0, 2]}})", 2),
            "tensor 'w': dtype I8 is a safetensors dtype ltt does not read: ltt reads BF16, F32 and F64"));
  TempDir dir;
  const std::string path = (dir.path / "half.safetensors").string();
  const std::vector<uint8_t> f = file_bytes(R"({"output": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", std::vector<uint8_t>(4));
  FILE* out = std::fopen(path.c_str(), "wb");
  REQUIRE(out != nullptr);
  REQUIRE(std::fwrite(f.data(), 1, f.size(), out) == f.size());
  std::fclose(out);
  auto r = read_safetensors(path);
  REQUIRE(!r.ok());
  CHECK(has(r.error().message, "tensor 'output': dtype F16 is a safetensors dtype ltt does not read"));
  CHECK(has(r.error().message, "convert, e.g. .to(torch.bfloat16)"));
  CHECK(!has(r.error().message, "damaged"));
  // The same file cut short is damaged first, whatever its dtype.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 2);
  auto cut = read_safetensors(path);
  REQUIRE(!cut.ok());
  CHECK(has(cut.error().message, "run past the end of the data section"));
  CHECK(has(cut.error().message, "cut short, damaged or not safetensors"));
}

TEST_CASE("safetensors: a negative dimension is rejected") {
  CHECK(has(error_of(R"({"w": {"dtype": "BF16", "shape": [2, -3], "data_offsets": [0, 0]}})", 0),
            "tensor 'w': shape entry 1 (-3) is a negative dimension"));
}

TEST_CASE("safetensors: a shape whose byte count overflows is rejected") {
  CHECK(has(error_of(R"({"w": {"dtype": "F64", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 0]}})", 0),
            "tensor 'w': shape [4294967296, 4294967296, 16] of F64 needs more than 2^40 bytes"));
  CHECK(has(error_of(R"({"w": {"dtype": "F64", "shape": [18446744073709551615], "data_offsets": [0, 0]}})", 0),
            "needs more than 2^40 bytes"));
  // A zero dimension makes any shape empty.
  CHECK(error_of(R"({"w": {"dtype": "F64", "shape": [1099511627776, 0], "data_offsets": [0, 0]}})", 0) == "parsed");
}

TEST_CASE("safetensors: a data_offsets span that does not match the shape is rejected") {
  CHECK(has(error_of(R"({"up_weight": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 10]}})", 10),
            "case.safetensors: tensor 'up_weight': data_offsets [0, 10] span 10 bytes but shape [2, 3] of BF16 "
            "needs 12"));
}

TEST_CASE("safetensors: offsets out of range or reversed are rejected") {
  CHECK(has(error_of(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 4),
            "tensor 'w': data_offsets [0, 8] run past the end of the data section (4 bytes)"));
  CHECK(has(error_of(R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [4, 0]}})", 4),
            "tensor 'w': data_offsets [4, 0] begin after they end"));
}

TEST_CASE("safetensors: overlapping ranges are rejected") {
  const std::string e = error_of(
      R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
          "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
      12);
  CHECK(has(e, "tensor 'b': data_offsets [4, 12] overlap tensor 'a'"));
  CHECK(has(error_of(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 8),
            "overlap tensor"));
}

TEST_CASE("safetensors: bytes not exactly covered are rejected") {
  CHECK(has(error_of(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                         "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})", 12),
            "tensor 'b': data_offsets [8, 12] leave a gap: bytes [4, 8)"));
  CHECK(has(error_of(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", 8),
            "tensor 'a': data_offsets [4, 8] leave a gap: bytes [0, 4)"));
  CHECK(has(error_of(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 6),
            "data section is 6 bytes but the tensors cover 4: 2 trailing bytes"));
  CHECK(has(error_of("{}", 3), "3 trailing bytes"));
}

TEST_CASE("safetensors: metadata must be an object of strings") {
  CHECK(has(error_of(R"({"__metadata__": ["tp", "8"]})", 0), "__metadata__ is not an object"));
  CHECK(has(error_of(R"({"__metadata__": {"tp": 8}})", 0), "__metadata__ value for 'tp' is not a string"));
}

TEST_CASE("safetensors: random corruption of a valid file never crashes") {
  TempDir dir;
  const fs::path path = dir.path / "fuzz.safetensors";
  REQUIRE(write_safetensors(path.string(), sample()).ok());
  const std::vector<uint8_t> good = slurp(path);
  std::mt19937_64 rng(12345);
  int rejected = 0;
  for (int it = 0; it < 3000; ++it) {
    std::vector<uint8_t> f = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % f.size();
      if (rng() % 2) f[at] = static_cast<uint8_t>(rng());
      else f[at] = static_cast<uint8_t>("0123456789-[]{},\":. "[rng() % 20]);
    }
    if (rng() % 4 == 0) f.resize(rng() % f.size());
    auto r = parse_safetensors("fuzz", f.data(), f.size());
    if (!r.ok()) {
      ++rejected;
      CHECK(r.error().code == Errc::usage);
    }
  }
  CHECK(rejected > 1000);
}

TEST_CASE("safetensors: writing is atomic and reports failures by path") {
  TempDir dir;
  const fs::path path = dir.path / "case.safetensors";
  SafeTensors st = sample();
  REQUIRE(write_safetensors(path.string(), st).ok());
  st.metadata["tp"] = "16";
  REQUIRE(write_safetensors(path.string(), st).ok());  // replaces the old file
  CHECK(dir.entries() == std::vector<std::string>{"case.safetensors"});
  auto r = read_safetensors(path.string());
  REQUIRE(r.ok());
  CHECK(r->metadata.at("tp") == "16");

  const std::string missing = (dir.path / "no_such_dir" / "x.safetensors").string();
  Status s = write_safetensors(missing, st);
  REQUIRE(!s.ok());
  CHECK(s.error().code == Errc::usage);
  CHECK(has(s.error().message, missing));
  CHECK(has(s.error().message, "No such file or directory"));
  CHECK(!fs::exists(dir.path / "no_such_dir"));

  // A tensor whose bytes disagree with its shape, or a tensor named
  // __metadata__, is refused and leaves nothing behind.
  SafeTensors bad;
  bad.tensors["w"] = StTensor{StDtype::F32, {2, 2}, std::vector<uint8_t>(12)};
  s = write_safetensors((dir.path / "bad.safetensors").string(), bad);
  REQUIRE(!s.ok());
  CHECK(has(s.error().message, "tensor 'w' holds 12 bytes"));
  bad.tensors.clear();
  bad.put_f32("__metadata__", MatF(1, 1));
  CHECK(!write_safetensors((dir.path / "bad.safetensors").string(), bad).ok());
  CHECK(dir.entries() == std::vector<std::string>{"case.safetensors"});

  auto gone = read_safetensors((dir.path / "absent.safetensors").string());
  REQUIRE(!gone.ok());
  CHECK(has(gone.error().message, "absent.safetensors: cannot open"));
}

TEST_CASE("safetensors: a key given twice is refused, at any depth, not read as its last value") {
  const std::string t = R"({"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]})";
  CHECK(has(error_of("{\"a\": " + t + ", \"a\": " + t + "}", 2), "the key 'a' is given twice"));
  CHECK(has(error_of(R"({"__metadata__": {"tp": "8", "tp": "16"}})", 0), "the key 'tp' is given twice"));
  CHECK(has(error_of(R"({"a": {"dtype": "BF16", "dtype": "F32", "shape": [1], "data_offsets": [0, 2]}})", 2),
            "the key 'dtype' is given twice"));
  // The same key in two objects is no repeat.
  CHECK(error_of(R"({"a": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}, "b": {"dtype": "BF16", "shape": [1], "data_offsets": [2, 4]}})", 4) == "parsed");
}

TEST_CASE("safetensors: a file cut short is refused with what is wrong, then what to do") {
  TempDir dir;
  const std::string path = (dir.path / "cut.safetensors").string();
  REQUIRE(write_safetensors(path, sample()).ok());
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  auto r = read_safetensors(path);
  REQUIRE(!r.ok());
  CHECK(r.error().code == Errc::usage);
  CHECK(has(r.error().message, "cut.safetensors: "));
  CHECK(has(r.error().message, "run past the end of the data section"));
  CHECK(has(r.error().message, "cut short, damaged or not safetensors; write it again"));
}

TEST_CASE("safetensors: get_* errors name the tensor") {
  TempDir dir;
  const std::string path = (dir.path / "g.safetensors").string();
  REQUIRE(write_safetensors(path, sample()).ok());
  auto r = read_safetensors(path);
  REQUIRE(r.ok());
  const SafeTensors& st = *r;

  auto missing = st.get_bf16("shared.rank3", 2, 3);
  REQUIRE(!missing.ok());
  CHECK(missing.error().code == Errc::usage);
  CHECK(has(missing.error().message, path + ": tensor 'shared.rank3' not found"));
  CHECK(has(st.get_as_double("nope", 1, 1).error().message, "tensor 'nope' not found"));

  auto dtype = st.get_bf16("expected_exact", 2, 2);
  REQUIRE(!dtype.ok());
  CHECK(has(dtype.error().message, "tensor 'expected_exact' is F64, expected BF16"));
  CHECK(has(st.get_f64("up_weight", 2, 3).error().message, "tensor 'up_weight' is BF16, expected F64"));

  auto shape = st.get_bf16("up_weight", 3, 2);
  REQUIRE(!shape.ok());
  CHECK(has(shape.error().message, "tensor 'up_weight' has shape [2, 3], expected [3, 2]"));
  CHECK(has(st.get_as_double("output.tier1.rank0", 2, 3).error().message,
            "tensor 'output.tier1.rank0' has shape [3, 2], expected [2, 3]"));
  CHECK(has(st.get_bf16("norm_weight", 2, 2).error().message, "tensor 'norm_weight' has shape [4], expected [2, 2]"));
}

TEST_CASE("safetensors: a deeply nested header is refused, not a stack overflow") {
  // Nested arrays in a shape, past any header's depth: refused as the parse
  // meets them (printing them would recurse once per level).
  for (size_t n : {size_t{100000}, size_t{64}}) {
    const std::string deep = std::string(n, '[') + std::string(n, ']');
    const std::string h = R"({"w": {"dtype": "BF16", "shape": )" + deep + R"(, "data_offsets": [0, 0]}})";
    CHECK(has(error_of(h, 0), "it nests deeper than 64 levels"));
  }
  // Within the depth, a nested shape is refused for what it is.
  const std::string h = R"({"w": {"dtype": "BF16", "shape": [[[1]]], "data_offsets": [0, 0]}})";
  CHECK(has(error_of(h, 0), "tensor 'w': shape entry 0 (an array of 1 entries) is not an integer dimension"));
}

// Guards against the header length check drifting by one (n >= size - 8, or
// n > size - 7: the parser then reads a byte past the end): a header that ends
// exactly at the end of the file is the largest legal length, one more is
// refused as running past the end, and the files of 8 and 7 bytes sit on the
// 8-byte length field's own boundary.
TEST_CASE("safetensors: a header length exactly equal to the bytes after it is legal, one more is not") {
  std::string e;  // the message of the file last parsed, printed with a failure
  CAPTURE(e);
  // Exactly equal, a complete header with no tensors: parsed (padded and unpadded).
  for (const std::string h : {"{}", "{}      ", R"({"__metadata__": {"tp": "8"}})"}) {
    CAPTURE(h);
    const std::vector<uint8_t> f = file_bytes(h, {}, false);
    REQUIRE(f.size() == 8 + h.size());
    e = error_of(f);
    CHECK(e == "parsed");
  }
  e = error_of(file_bytes(R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}})", {}));
  CHECK(e == "parsed");
  // Exactly equal, but the header names data that is not there, or is cut
  // short: refused for that, not for the length.
  e = error_of(file_bytes(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", {}));
  CHECK(has(e, "tensor 'w': data_offsets [0, 4] run past the end of the data section (0 bytes)"));
  e = error_of(file_bytes("{\"w\": ", {}, false));
  CHECK(has(e, "header is not valid JSON"));

  // One more than the bytes that follow: refused, with both figures named.
  for (const std::string h : {"{}", "{}      "}) {
    CAPTURE(h);
    std::vector<uint8_t> f = file_bytes(h, {}, false);
    f[0] = static_cast<uint8_t>(h.size() + 1);
    e = error_of(f);
    CHECK(has(e, cat("case.safetensors: header length ", h.size() + 1, " runs past the end of the file (", h.size(),
                     " bytes follow it)")));
  }
  // A valid file with one data byte removed from its end: the header length
  // still fits, so it is the data section that is short.
  std::vector<uint8_t> f = file_bytes(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", {1, 2, 3, 4});
  e = error_of(f);
  CHECK(e == "parsed");
  f.pop_back();
  e = error_of(f);
  CHECK(has(e, "data_offsets [0, 4] run past the end of the data section (3 bytes)"));
}

TEST_CASE("safetensors: files of exactly 8 and 7 bytes") {
  std::string e;  // the message of the file last parsed, printed with a failure
  CAPTURE(e);
  // 8 bytes, length 0: the length check passes (0 bytes follow) and the empty
  // header is refused as JSON.
  std::vector<uint8_t> f(8, 0);
  e = error_of(f);
  CHECK(has(e, "case.safetensors: header is not valid JSON"));
  // 8 bytes, length 1: past the end.
  f[0] = 1;
  e = error_of(f);
  CHECK(has(e, "case.safetensors: header length 1 runs past the end of the file (0 bytes follow it)"));
  // 7 bytes: too short for the length field itself, whatever it holds.
  for (int b : {0, 1, 0xff}) {
    CAPTURE(b);
    e = error_of(std::vector<uint8_t>(7, static_cast<uint8_t>(b)));
    CHECK(has(e, "case.safetensors: file is 7 bytes, too short for the 8-byte header length"));
  }
}
