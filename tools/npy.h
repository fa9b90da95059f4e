// SPDX-License-Identifier: Apache-2.0
// Reader and writer for NumPy .npy files holding float16, float32 or float64 arrays, for `gelu apply`.
//
// This is the one parser in gelu that eats untrusted bytes, so it checks everything before it allocates or
// copies: the magic string, the version (1.0, 2.0, 3.0), the header length against the file, the header as a
// Python dict literal with exactly the keys 'descr', 'fortran_order' and 'shape', the shape against numpy's
// limits (no dimension, and no product of the nonzero ones in bytes, past 2^63 - 1), and the data size against
// the file size (too little or too much is an error: a header that lies about its shape is refused, never
// trusted). tests/fuzz/npy_fuzz.cc fuzzes Parse with libFuzzer.
//
// Supported: descr '<f2' (IEEE binary16), '<f4', '<f8' (also '=', '|' = native, little-endian here) and
// big-endian '>f2', '>f4', '>f8' (byte-swapped on read; Write always writes little-endian); fortran_order True
// or False (kept as read: GELU is elementwise, so the element order does not matter as long as it is written
// back the same way); any rank, including 0-d arrays and arrays with zero elements. Refused with a message
// naming the dtype: integers, booleans, complex, float128, strings, objects, datetimes and structured dtypes
// (bfloat16 has no numpy dtype of its own, so it cannot arrive here as such).
#ifndef GELU_TOOLS_NPY_H_
#define GELU_TOOLS_NPY_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gelu::npy {

// Every failure of this module: a message that says what is wrong and where, without the file name (callers
// prefix it).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class DType { f32, f64, f16 };
const char* to_string(DType t);  // "float32" / "float64" / "float16"
size_t ItemSize(DType t);        // 4 / 8 / 2

struct Array {
  DType dtype = DType::f32;
  bool fortran_order = false;
  std::vector<uint64_t> shape;  // empty: a 0-d array holding one element
  std::vector<float> f32;       // the elements in file order, native byte order; used when dtype == f32
  std::vector<double> f64;      // used when dtype == f64
  std::vector<uint16_t> f16;    // used when dtype == f16: the binary16 bit patterns

  size_t size() const { return dtype == DType::f32 ? f32.size() : dtype == DType::f64 ? f64.size() : f16.size(); }
};

// "(3, 4)", "(3,)", "()": the shape as numpy prints it.
std::string ShapeString(const std::vector<uint64_t>& shape);

// Parses a whole .npy file held in memory. Throws npy::Error on anything malformed or unsupported.
Array Parse(std::span<const std::byte> file);

// The .npy bytes for `a`: version 1.0 (2.0 when the header exceeds 65535 bytes), little-endian descr, header
// padded with spaces to a multiple of 64 bytes and ended by '\n', as numpy.save writes it.
std::vector<std::byte> Serialize(const Array& a);

// Untrusted text (a header's, a command-line or stdin token) for a message: in single quotes, printable ASCII as
// is and every other byte (NUL, escape sequences, quotes, backslash) as \xNN, at most 40 characters then "...".
std::string Quote(std::string_view s);

// Reads and parses `path`. Throws npy::Error naming the path ("cannot open 'x.npy': No such file or directory",
// "'x.npy': truncated data: ...").
Array Read(const std::filesystem::path& path);

// Writes `a` to `path` as numpy.save does, atomically (gelu::ReplaceFile, tools/replace_file.h: a whole new file
// or `path` untouched, so `path` may be the input file itself; symbolic links followed, devices and FIFOs
// refused). Throws npy::Error ("cannot write 'out.npy': ...").
void Write(const std::filesystem::path& path, const Array& a);

}  // namespace gelu::npy

#endif  // GELU_TOOLS_NPY_H_
