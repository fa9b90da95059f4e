// SPDX-License-Identifier: Apache-2.0
// The .npy reader and writer (tools/npy.h): round trips, every header variant numpy writes, and every kind of
// malformed or unsupported file, each refused with npy::Error and a message that names the problem.
#include "tools/npy.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/scratch_and_child.h"

namespace gelu::npy {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> Bytes(const std::string& s) {
  std::vector<std::byte> b(s.size());
  if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());  // memcpy from null (empty vector) is UB
  return b;
}

// A .npy file with the given version and header text (padded as numpy does unless pad is false), then `data`.
std::string MakeNpy(int major, std::string header, const std::string& data, bool pad = true) {
  const size_t prefix = major == 1 ? 10 : 12;
  if (pad) {
    const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
    header.append(total - prefix - header.size() - 1, ' ');
    header += '\n';
  }
  std::string s = "\x93NUMPY";
  s += static_cast<char>(major);
  s += '\0';
  for (size_t i = 0; i < prefix - 8; ++i) s += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return s + header + data;
}

template <class T>
std::string Raw(const std::vector<T>& v, bool big_endian = false) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  if (big_endian) {
    for (size_t i = 0; i < v.size(); ++i) std::reverse(s.begin() + i * sizeof(T), s.begin() + (i + 1) * sizeof(T));
  }
  return s;
}

Array ParseString(const std::string& s) { return Parse(Bytes(s)); }

// Expects Parse to throw npy::Error whose message contains `needle`.
void ExpectError(const std::string& file, const std::string& needle) {
  try {
    ParseString(file);
    ADD_FAILURE() << "parsed, expected an error containing \"" << needle << "\"";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

std::string F4Header(const std::string& shape, const std::string& descr = "<f4", const std::string& order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
}

TEST(NpyParse, Float32Vector) {
  const std::vector<float> v = {-1.5f, 0.0f, 2.25f};
  const Array a = ParseString(MakeNpy(1, F4Header("(3,)"), Raw(v)));
  EXPECT_EQ(a.dtype, DType::f32);
  EXPECT_FALSE(a.fortran_order);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{3}));
  EXPECT_EQ(a.f32, v);
  EXPECT_TRUE(a.f64.empty());
}

TEST(NpyParse, Float64Rank3AndVersions2And3) {
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i) - 3;
  for (int major : {1, 2, 3}) {
    const Array a = ParseString(MakeNpy(major, F4Header("(2, 3, 4)", "<f8"), Raw(v)));
    EXPECT_EQ(a.dtype, DType::f64) << major;
    EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3, 4})) << major;
    EXPECT_EQ(a.f64, v) << major;
  }
}

TEST(NpyParse, KeysInAnyOrderDoubleQuotesNoTrailingCommaNoPadding) {
  const std::vector<float> v = {1, 2};
  const Array a = ParseString(
      MakeNpy(1, "{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<f4\"}", Raw(v), /*pad=*/false));
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{2}));
  EXPECT_EQ(a.f32, v);
}

TEST(NpyParse, ZeroDimensionalArrayHoldsOneElement) {
  const Array a = ParseString(MakeNpy(1, F4Header("()", "<f8"), Raw(std::vector<double>{7.0})));
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.f64, std::vector<double>{7.0});
}

TEST(NpyParse, ZeroSizeArraysAreValid) {
  // numpy.load reads each of these (the nonzero dimensions span at most 2^63 - 1 bytes).
  for (const char* shape : {"(0,)", "(3, 0, 2)", "(0, 2305843009213693951)"}) {
    const Array a = ParseString(MakeNpy(1, F4Header(shape), ""));
    EXPECT_EQ(a.size(), 0u) << shape;
  }
  // and refuses these ("Maximum allowed dimension exceeded", "array is too big"): a zero dimension does not
  // excuse the others.
  ExpectError(MakeNpy(1, F4Header("(0, 18446744073709551615)"), ""), "exceeds 2^63 - 1, numpy's largest");
  ExpectError(MakeNpy(1, F4Header("(0, 9223372036854775807)"), ""),
              "shape (0, 9223372036854775807) of float32 spans more than 2^63 - 1 bytes");
}

TEST(NpyParse, BigEndianIsByteSwapped) {
  const std::vector<float> f = {1.0f, -2.5f, 3e-40f};
  EXPECT_EQ(ParseString(MakeNpy(1, F4Header("(3,)", ">f4"), Raw(f, true))).f32, f);
  const std::vector<double> d = {1.0, -2.5, 1e-310};
  EXPECT_EQ(ParseString(MakeNpy(1, F4Header("(3,)", ">f8"), Raw(d, true))).f64, d);
}

TEST(NpyParse, Float16BothByteOrders) {
  // binary16 bits: 1.0 = 0x3c00, -2.0 = 0xc000, smallest subnormal 0x0001, NaN 0x7e00.
  const std::vector<uint16_t> h = {0x3c00, 0xc000, 0x0001, 0x7e00};
  const Array a = ParseString(MakeNpy(1, F4Header("(2, 2)", "<f2"), Raw(h)));
  EXPECT_EQ(a.dtype, DType::f16);
  EXPECT_EQ(a.f16, h);
  EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(ParseString(MakeNpy(1, F4Header("(4,)", ">f2"), Raw(h, true))).f16, h);
  ExpectError(MakeNpy(1, F4Header("(4,)", "<f2"), Raw(h).substr(1)), "shape (4,) of float16 needs 8 bytes but 7");
  const Array b = Parse(Serialize(a));
  EXPECT_EQ(b.dtype, DType::f16);
  EXPECT_EQ(b.f16, h);
  EXPECT_NE(std::string(reinterpret_cast<const char*>(Serialize(a).data()), 64).find("'descr': '<f2'"),
            std::string::npos);
}

TEST(NpyParse, NativeAndNotApplicableByteOrderMarks) {
  const std::vector<float> f = {4.0f};
  EXPECT_EQ(ParseString(MakeNpy(1, F4Header("(1,)", "=f4"), Raw(f))).f32, f);
  EXPECT_EQ(ParseString(MakeNpy(1, F4Header("(1,)", "|f4"), Raw(f))).f32, f);
  EXPECT_EQ(ParseString(MakeNpy(1, F4Header("(1,)", "f4"), Raw(f))).f32, f);
}

TEST(NpyParse, FortranOrderIsKept) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  const Array a = ParseString(MakeNpy(1, F4Header("(2, 3)", "<f4", "True"), Raw(v)));
  EXPECT_TRUE(a.fortran_order);
  EXPECT_EQ(a.f32, v);
  EXPECT_NE(std::string(reinterpret_cast<const char*>(Serialize(a).data()), 128).find("'fortran_order': True"),
            std::string::npos);
}

TEST(NpyParse, NotNpy) {
  ExpectError("", "not a .npy file");
  ExpectError("hello world, this is text", "not a .npy file");
  ExpectError("\x93NUMP", "not a .npy file");
  ExpectError("PK\x03\x04 a zip file, as .npz", "not a .npy file");
}

TEST(NpyParse, TruncatedHeader) {
  const std::string full = MakeNpy(1, F4Header("(1,)"), Raw(std::vector<float>{1}));
  ExpectError(full.substr(0, 7), "truncated header");
  ExpectError(full.substr(0, 9), "truncated header");
  ExpectError(full.substr(0, 40), "truncated header: the header length says 118 bytes but only 30 follow");
  ExpectError(MakeNpy(2, F4Header("(1,)"), "").substr(0, 11), "truncated header");
}

TEST(NpyParse, UnknownVersion) {
  std::string s = MakeNpy(1, F4Header("(1,)"), Raw(std::vector<float>{1}));
  s[6] = 4;
  ExpectError(s, "unsupported .npy format version 4.0");
  s[6] = 1;
  s[7] = 1;
  ExpectError(s, "version 1.1");
}

TEST(NpyParse, TruncatedData) {
  const std::string data = Raw(std::vector<float>(12, 1.0f));
  ExpectError(MakeNpy(1, F4Header("(3, 4)"), data.substr(0, 20)),
              "truncated data: shape (3, 4) of float32 needs 48 bytes but 20 follow the header");
  ExpectError(MakeNpy(1, F4Header("(3, 4)", "<f8"), data), "needs 96 bytes but 48");
}

TEST(NpyParse, HeaderLyingAboutSize) {
  // More data than the shape accounts for.
  ExpectError(MakeNpy(1, F4Header("(2,)"), Raw(std::vector<float>(3, 1.0f))),
              "header lies about the size: shape (2,) of float32 needs 8 bytes but 12 follow the header");
  // A shape whose product overflows 64 bits must not wrap around to a small number: past numpy's largest array
  // (2^63 - 1 bytes) it is refused as numpy refuses it, before the data's size is looked at.
  ExpectError(MakeNpy(1, F4Header("(4294967296, 4294967296)"), Raw(std::vector<float>(1, 1.0f))),
              "malformed header: shape (4294967296, 4294967296) of float32 spans more than 2^63 - 1 bytes");
  ExpectError(MakeNpy(1, F4Header("(4294967296, 4294967296, 1)"), ""),
              "shape (4294967296, 4294967296)... of float32 spans more than 2^63 - 1 bytes");  // more follow
  ExpectError(MakeNpy(1, F4Header("(4611686018427387904,)"), ""),
              "shape (4611686018427387904,) of float32 spans more than 2^63 - 1 bytes");
  ExpectError(MakeNpy(1, F4Header("(2305843009213693952,)"), ""), "spans more than 2^63 - 1 bytes");  // 2^61 * 4
  // One byte under the limit is numpy's largest float32 array: refused only because its data is missing.
  ExpectError(MakeNpy(1, F4Header("(2305843009213693951,)"), ""),
              "truncated data: shape (2305843009213693951,) of float32 needs 9223372036854775804 bytes but 0");
  ExpectError(MakeNpy(1, F4Header("(99999999999999999999999,)"), ""), "exceeds 2^63 - 1, numpy's largest");
  ExpectError(MakeNpy(1, F4Header("(9223372036854775808,)", "<f2"), ""), "exceeds 2^63 - 1");
  ExpectError(MakeNpy(1, F4Header("(-1,)"), ""), "negative dimension");
  // A header length beyond the limit is refused before anything is read.
  std::string s = MakeNpy(2, F4Header("(1,)"), Raw(std::vector<float>{1}));
  s[10] = '\x7f';
  s[11] = '\x7f';
  ExpectError(s, "exceeds the limit");
}

TEST(NpyParse, UnsupportedDtypes) {
  ExpectError(MakeNpy(1, F4Header("(1,)", "<i4"), "abcd"), "unsupported dtype '<i4' (int32)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "<i8"), "abcdefgh"), "(int64)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "|u1"), "a"), "(uint8)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "|b1"), "a"), "(bool)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "<c8"), "abcdefgh"), "(complex64)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "<c16"), "abcdefgh"), "(complex128)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "|O"), "abcdefgh"), "(Python object)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "<U3"), "abcdefgh"), "(string)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "|S3"), "abc"), "(string)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "|V8"), "abcdefgh"), "(void/structured)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "<M8[ns]"), "abcdefgh"), "(datetime/timedelta)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "<f16"), "abcdefgh"), "(float128)");
  ExpectError(MakeNpy(1, F4Header("(1,)", "float32"), "abcd"), "unknown dtype 'float32'");
  ExpectError(MakeNpy(1, "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }",
                      "abcdefgh"),
              "structured");
  // Every refusal also says what is supported.
  ExpectError(MakeNpy(1, F4Header("(1,)", "<i4"), "abcd"), "float16 ('<f2'), float32 ('<f4') or float64 ('<f8')");
}

TEST(NpyParse, MalformedHeaders) {
  const std::string d = Raw(std::vector<float>{1});
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False}", d), "missing key 'shape'");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'shape': (1,)}", d), "missing key 'fortran_order'");
  ExpectError(MakeNpy(1, "{'fortran_order': False, 'shape': (1,)}", d), "missing key 'descr'");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", d),
              "unexpected key 'extra'");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", d), "appears twice");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", d), "'fortran_order' must be True or False");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", d), "'shape' must be a tuple");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1.0,)}", d), "only decimal integers");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ('a',)}", d), "not an integer");
  ExpectError(MakeNpy(1, "{'descr': 5, 'fortran_order': False, 'shape': (1,)}", d), "'descr' must be a dtype string");
  ExpectError(MakeNpy(1, "['descr', '<f4']", d), "expected a dict");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", d), "expected '}'");
  ExpectError(MakeNpy(1, "{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", d), "malformed header");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} trailing", d), "after the dict");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 1: 2}", d), "key is not a string");
  ExpectError(MakeNpy(1, std::string(4000, '(') + std::string(4000, ')'), d), "nested more than");
  ExpectError(MakeNpy(1, "{'descr': '<f4\xe9', 'fortran_order': False, 'shape': (1,)}", d), "non-ASCII");
  ExpectError(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}" + std::string(2, '\0'), d, false),
              "after the dict");
}

TEST(NpySerialize, MatchesNumpyLayoutAndRoundTrips) {
  Array a;
  a.dtype = DType::f32;
  a.shape = {2, 2};
  a.f32 = {1, -2, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()};
  const std::vector<std::byte> bytes = Serialize(a);
  // numpy.save: version 1.0, header padded so the data starts at a multiple of 64 bytes, ending in '\n'.
  ASSERT_EQ(bytes.size(), 128u + 16u);
  EXPECT_EQ(static_cast<int>(bytes[6]), 1);
  EXPECT_EQ(static_cast<char>(bytes[127]), '\n');
  const std::string header(reinterpret_cast<const char*>(bytes.data()) + 10, 59);
  EXPECT_EQ(header, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }");
  const Array b = Parse(bytes);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.f32, a.f32);
}

TEST(NpySerialize, RoundTripsEveryRankAndDtype) {
  for (const std::vector<uint64_t>& shape :
       {std::vector<uint64_t>{}, {0}, {5}, {2, 3}, {1, 1, 1, 1, 1, 1, 2}, {2, 0, 3}}) {
    for (DType t : {DType::f32, DType::f64, DType::f16}) {
      Array a;
      a.dtype = t;
      a.shape = shape;
      size_t n = 1;
      for (uint64_t d : shape) n *= d;
      for (size_t i = 0; i < n; ++i) {
        if (t == DType::f32) a.f32.push_back(static_cast<float>(i) * 0.25f - 1);
        if (t == DType::f64) a.f64.push_back(static_cast<double>(i) * 0.25 - 1);
        if (t == DType::f16) a.f16.push_back(static_cast<uint16_t>(0x3c00 + i));
      }
      const Array b = Parse(Serialize(a));
      EXPECT_EQ(b.shape, shape) << ShapeString(shape);
      EXPECT_EQ(b.f32, a.f32);
      EXPECT_EQ(b.f64, a.f64);
      EXPECT_EQ(b.f16, a.f16);
    }
  }
}

TEST(NpySerialize, HugeRankUsesVersion2) {
  Array a;
  a.shape.assign(30000, 1);  // header > 65535 bytes
  a.f32 = {3.0f};
  const std::vector<std::byte> bytes = Serialize(a);
  EXPECT_EQ(static_cast<int>(bytes[6]), 2);
  EXPECT_EQ(bytes.size() % 64, 4u);  // data (4 bytes) starts on a 64-byte boundary
  EXPECT_EQ(Parse(bytes).f32, a.f32);
}

TEST(NpyShape, PrintsLikeNumpy) {
  EXPECT_EQ(ShapeString({}), "()");
  EXPECT_EQ(ShapeString({3}), "(3,)");
  EXPECT_EQ(ShapeString({3, 4}), "(3, 4)");
}

using NpyFiles = gelu::test::ScratchDirectoryTest;

TEST_F(NpyFiles, WriteThenReadBack) {
  Array a;
  a.dtype = DType::f64;
  a.shape = {3};
  a.f64 = {1, 2, 3};
  Write(dir_ / "a.npy", a);
  EXPECT_EQ(Read(dir_ / "a.npy").f64, a.f64);
  EXPECT_EQ(Listing(dir_), std::vector<std::string>{"a.npy"});  // no temporary left behind
}

TEST_F(NpyFiles, OverwriteKeepsModeAndNewFileFollowsUmask) {
  Array a;
  a.f32 = {1};
  a.shape = {1};
  const fs::path p = dir_ / "m.npy";
  const mode_t old = ::umask(022);
  Write(p, a);
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  Write(p, a);
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(NpyFiles, ReadErrorsNameThePath) {
  try {
    Read(dir_ / "missing.npy");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '" + (dir_ / "missing.npy").string() +
                                         "': No such file or directory"),
              std::string::npos)
        << e.what();
  }
  try {
    Read(dir_);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  std::ofstream(dir_ / "text.npy") << "not numpy";
  try {
    Read(dir_ / "text.npy");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("text.npy': not a .npy file"), std::string::npos) << e.what();
  }
}

// Read checks the preamble and header before it reads the data, and then reads only the bytes the header
// declares: an endless or huge input that is not .npy, or whose header lies, is refused at once, without memory.
TEST_F(NpyFiles, EndlessOrHugeInputsAreRefusedBeforeTheirData) {
  const auto expect_error = [](const fs::path& p, const std::string& needle) {
    try {
      Read(p);
      ADD_FAILURE() << "read " << p;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("/dev/zero", "'/dev/zero': not a .npy file");
  // 64 GiB, sparse: reading it whole would exhaust the memory of any test machine.
  const auto sparse = [&](const std::string& name, const std::string& start) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << start;
    fs::resize_file(p, uint64_t{64} << 30);
    return p;
  };
  expect_error(sparse("huge.csv", "x,y\n1,2\n"), "not a .npy file");
  const std::string good = MakeNpy(1, F4Header("(4,)"), Raw(std::vector<float>{1, 2, 3, 4}));
  expect_error(sparse("huge_lying.npy", good),
               "header lies about the size: shape (4,) of float32 needs 16 bytes but 68719476608 follow the header");
}

// A pipe has no size: Read grows its buffer with the bytes that arrive and still checks the count exactly.
TEST_F(NpyFiles, ReadsFromAPipe) {
  const auto through_pipe = [&](const std::string& bytes) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    std::thread writer([&] {
      size_t done = 0;
      while (done < bytes.size()) {
        const ssize_t w = ::write(fds[1], bytes.data() + done, bytes.size() - done);
        if (w <= 0) break;
        done += static_cast<size_t>(w);
      }
      ::close(fds[1]);
    });
    std::optional<Array> a;
    std::string error;
    try {
      a = Read("/proc/self/fd/" + std::to_string(fds[0]));
    } catch (const Error& e) {
      error = e.what();
    }
    ::close(fds[0]);  // unblocks a writer whose extra bytes were not read
    writer.join();
    return std::pair{a, error};
  };
  std::vector<double> v(100'000);  // 800 KB: several buffer growths
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) - 0.5;
  const std::string file = MakeNpy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000,), }", Raw(v));
  const auto [a, error] = through_pipe(file);
  ASSERT_TRUE(a.has_value()) << error;
  EXPECT_EQ(a->f64, v);
  EXPECT_NE(through_pipe(file.substr(0, file.size() - 1)).second.find("truncated data"), std::string::npos);
  EXPECT_NE(through_pipe(file + "x").second.find("needs 800000 bytes but at least 800001 follow"), std::string::npos);
}

TEST_F(NpyFiles, WriteFailuresLeaveNothingBehind) {
  Array a;
  a.f32 = {1};
  a.shape = {1};
  const auto expect_fail = [&](const fs::path& p, const std::string& needle) {
    try {
      Write(p, a);
      ADD_FAILURE() << p;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_fail(dir_ / "no" / "such" / "dir" / "out.npy", "No such file or directory");
  std::ofstream(dir_ / "file") << "x";
  expect_fail(dir_ / "file" / "out.npy", "is not a directory");
  fs::create_directory(dir_ / "sub");
  expect_fail(dir_ / "sub", "is a directory");
  EXPECT_EQ(Listing(dir_), (std::vector<std::string>{"file", "sub"}));
  EXPECT_TRUE(fs::is_empty(dir_ / "sub"));
}

TEST_F(NpyFiles, UnwritableDirectory) {
  Array a;
  a.f32 = {1};
  a.shape = {1};
  // root ignores permission bits, so as root use sysfs, where no one may create files.
  fs::path target = dir_ / "ro" / "out.npy";
  if (::geteuid() == 0) {
    target = "/sys/gelu-npy-test.npy";
  } else {
    fs::create_directory(dir_ / "ro");
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  }
  try {
    Write(target, a);
    ADD_FAILURE() << "wrote " << target;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Permission denied"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(target));
}

// Every input the fuzzer corpus holds either parses or is refused with npy::Error: never another exception,
// a crash or a hang (the sanitizer CI build runs this too).
TEST(NpyCorpus, EveryFileParsesOrIsRefused) {
  size_t files = 0, parsed = 0;
  for (const auto& e : fs::directory_iterator(GELU_FUZZ_CORPUS)) {
    std::ifstream f(e.path(), std::ios::binary);
    const std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ++files;
    try {
      const Array a = ParseString(s);
      ++parsed;
      const Array b = Parse(Serialize(a));
      EXPECT_EQ(b.shape, a.shape) << e.path();
    } catch (const Error&) {
    }
  }
  EXPECT_GE(files, 10u);
  EXPECT_GE(parsed, 3u);
}

}  // namespace
}  // namespace gelu::npy
