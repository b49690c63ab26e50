// safetensors files (DESIGN.md §6): an 8-byte little-endian header length N,
// N bytes of JSON header padded with spaces to a multiple of 8, then the raw
// little-endian tensor bytes, exactly covered by the tensors' data_offsets.
// Reading validates every rule and reports a broken one as an Errc::usage
// error naming the file, the tensor and the rule; it never throws or crashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "status.hpp"
#include "tensor.hpp"

namespace ltt {

enum class StDtype { BF16, F32, F64 };

const char* st_dtype_name(StDtype d);  // "BF16", "F32", "F64"
size_t st_dtype_size(StDtype d);       // 2, 4, 8

struct StTensor {
  StDtype dtype = StDtype::F64;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  // little-endian, row-major
};

struct SafeTensors {
  std::map<std::string, StTensor> tensors;  // sorted by name
  std::map<std::string, std::string> metadata;
  std::string source;  // the file it was read from, named in get_* errors ("" if built here)
  // Tensors of a valid safetensors dtype ltt does not read (I64, BOOL, F16,
  // ...): name -> dtype. Only an outputs file is read with them (StRole).
  std::map<std::string, std::string> unread;

  // Shape [rows, cols]; with vector = true the 1-D shape [rows * cols]
  // (e.g. norm_weight BF16 [L]). Replaces a tensor of the same name.
  void put_bf16(const std::string& name, const MatrixB& m, bool vector = false);
  void put_f32(const std::string& name, const MatF& m, bool vector = false);
  void put_f64(const std::string& name, const MatD& m, bool vector = false);

  // The tensor as a rows x cols matrix. Its shape must be [rows, cols], or
  // [cols] when rows == 1. A missing tensor, another dtype or another shape is
  // an Errc::usage error naming the tensor.
  Result<MatrixB> get_bf16(const std::string& name, int rows, int cols) const;
  Result<MatD> get_f64(const std::string& name, int rows, int cols) const;
  // BF16, F32 or F64, widened exactly to double.
  Result<MatD> get_as_double(const std::string& name, int rows, int cols) const;
};

// Writes path + ".tmp.<pid>", then renames it over path (atomic on POSIX).
// Tensors go in name order, their data contiguous in that order.
Status write_safetensors(const std::string& path, const SafeTensors& st);
// Writes path itself (flushed and fsynced), with no temporary and no rename,
// for a caller that manages its own temporary name; removes path on failure.
Status write_safetensors_in_place(const std::string& path, const SafeTensors& st);
// What a file is read as: a case file refuses any tensor of a dtype ltt does
// not read (no case file holds one); an outputs file keeps their names in
// `unread` (an extra tensor beside the outputs: verify names it, and refuses
// it only as an output). A damaged file's message says what makes it again.
enum class StRole { case_file, outputs };
Result<SafeTensors> read_safetensors(const std::string& path, StRole role = StRole::case_file);
// The SHA-256 and size of the file write_safetensors() would write, computed
// in memory: no file, no temporary (ltt regress and golden --hash-only).
struct StDigest {
  std::string sha256;  // 64 lowercase hex characters
  uint64_t bytes = 0;
};
Result<StDigest> safetensors_digest(const SafeTensors& st);
// Parses a whole file's bytes; `where` names the file in messages.
Result<SafeTensors> parse_safetensors(const std::string& where, const uint8_t* data, size_t size, StRole role = StRole::case_file);

}  // namespace ltt
