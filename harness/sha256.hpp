// SHA-256 (FIPS 180-4): digests of byte buffers, streamed data and whole
// files, as 64 lowercase hex characters. Self-contained; no external library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "status.hpp"

namespace ltt {

// Streaming digest: update() any number of times, then hex_digest() once.
// After hex_digest() the object is reset and may hash a new message.
class Sha256 {
 public:
  Sha256() { reset(); }
  void update(const uint8_t* data, size_t n);
  std::string hex_digest();

 private:
  void reset();
  void block(const uint8_t* p);  // one 64-byte block into h_

  std::array<uint32_t, 8> h_{};
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_ = 0;  // message length in bytes
};

// The digest of n bytes at data (data may be null when n == 0).
std::string sha256_hex(const uint8_t* data, size_t n);
// The digest of a file's contents, read in chunks. A file that cannot be
// opened or read is an Errc::usage error naming the path and the reason.
Result<std::string> sha256_file(const std::string& path);

}  // namespace ltt
