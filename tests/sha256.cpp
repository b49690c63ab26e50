// sha256: the FIPS 180-4 / NIST example vectors (empty, "abc", the 448-bit
// message, one million 'a' streamed in uneven chunks); streaming equals
// one-shot for random splits; sha256_file equals sha256_hex of the same
// bytes, and a missing file is an error naming the path.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "sha256.hpp"

using namespace ltt;
namespace fs = std::filesystem;

namespace {

std::string hex_of(const std::string& s) {
  return sha256_hex(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// A path under the system temp directory, removed (if present) on scope exit.
struct TempPath {
  fs::path path;
  explicit TempPath(const std::string& tag) {
    path = fs::temp_directory_path() /
           ("ltt_sha256_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(std::random_device{}()));
  }
  ~TempPath() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

}  // namespace

TEST_CASE("sha256: FIPS 180-4 vectors") {
  CHECK(hex_of("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex(nullptr, 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex_of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("sha256: one million 'a' streamed in uneven chunks") {
  const std::vector<uint8_t> a(1000000, 'a');
  const std::string want = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  Sha256 s;
  size_t pos = 0;
  const size_t sizes[] = {1, 63, 64, 65, 0, 127, 3, 1000, 55, 56, 57, 4097};
  for (size_t i = 0; pos < a.size(); ++i) {
    size_t n = std::min(sizes[i % std::size(sizes)], a.size() - pos);
    s.update(a.data() + pos, n);
    pos += n;
  }
  CHECK(s.hex_digest() == want);
  CHECK(sha256_hex(a.data(), a.size()) == want);
  // hex_digest() resets: the same object hashes a new message.
  s.update(reinterpret_cast<const uint8_t*>("abc"), 3);
  CHECK(s.hex_digest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("sha256: streaming equals one-shot for random splits") {
  std::mt19937_64 rng(20240601);
  for (int trial = 0; trial < 200; ++trial) {
    // Lengths around the block and padding boundaries, then longer ones.
    size_t len = trial < 130 ? static_cast<size_t>(trial) : static_cast<size_t>(rng() % 5000);
    std::vector<uint8_t> msg(len);
    for (auto& b : msg) b = static_cast<uint8_t>(rng());
    const std::string one_shot = sha256_hex(msg.data(), msg.size());
    Sha256 s;
    size_t pos = 0;
    while (pos < len) {
      size_t n = std::min(static_cast<size_t>(rng() % 150), len - pos);
      s.update(msg.data() + pos, n);
      pos += n;
    }
    CAPTURE(len);
    CHECK(s.hex_digest() == one_shot);
  }
}

TEST_CASE("sha256: sha256_file equals sha256_hex of the file's bytes") {
  SUBCASE("a file larger than one read chunk") {
    TempPath tmp("file");
    std::mt19937 rng(7);
    std::vector<uint8_t> bytes(200000 + 13);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    {
      std::ofstream out(tmp.path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      REQUIRE(out.good());
    }
    auto r = sha256_file(tmp.path.string());
    REQUIRE(r.ok());
    CHECK(*r == sha256_hex(bytes.data(), bytes.size()));
  }
  SUBCASE("an empty file") {
    TempPath tmp("empty");
    { std::ofstream out(tmp.path, std::ios::binary); }
    auto r = sha256_file(tmp.path.string());
    REQUIRE(r.ok());
    CHECK(*r == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }
  SUBCASE("a missing file is a usage error naming the path") {
    TempPath tmp("missing");
    const std::string p = tmp.path.string();
    auto r = sha256_file(p);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == Errc::usage);
    CHECK(r.error().message.find(p) != std::string::npos);
    CHECK(r.error().message.find("No such file") != std::string::npos);
  }
}
