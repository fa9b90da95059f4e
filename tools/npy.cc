// SPDX-License-Identifier: Apache-2.0
// .npy reader and writer; see npy.h. Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//   bytes 0-5   "\x93NUMPY"
//   bytes 6-7   major, minor version: 1.0 (2-byte header length), 2.0 and 3.0 (4-byte length; 3.0 = UTF-8 header)
//   then        the header length (little-endian), the header (a Python dict literal), then the raw data.
#include "tools/npy.h"

#include "tools/replace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

namespace gelu::npy {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy's own reader refuses headers over 10000 bytes unless told otherwise (max_header_size); we allow more
// (a header grows only with the rank), but a bound keeps a hostile length from costing anything.
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
// Nesting of the header literal; a real header nests 2 deep (dict, tuple). Bounded so that "((((..." cannot
// overflow the stack of the recursive-descent parser.
constexpr int kMaxDepth = 16;

}  // namespace

std::string Quote(std::string_view s) {
  std::string out = "'";
  size_t shown = 0;
  for (char c : s) {
    if (++shown > 40) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\'' && c != '\\') {
      out += c;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out + "'";
}

namespace {

// A value of the Python literal subset that .npy headers use.
struct Value {
  enum class Kind { string, boolean, none, integer, tuple, list, dict } kind = Kind::none;
  std::string text;             // string
  bool flag = false;            // boolean
  bool negative = false;        // integer: sign
  std::optional<uint64_t> mag;  // integer: magnitude, nullopt if it does not fit in 64 bits
  std::vector<Value> items;     // tuple, list; dict: key, value, key, value, ...
};

const char* KindName(Value::Kind k) {
  switch (k) {
    case Value::Kind::string: return "a string";
    case Value::Kind::boolean: return "a boolean";
    case Value::Kind::none: return "None";
    case Value::Kind::integer: return "an integer";
    case Value::Kind::tuple: return "a tuple";
    case Value::Kind::list: return "a list";
    case Value::Kind::dict: return "a dict";
  }
  return "?";
}

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}

  Value ParseAll() {
    Value v = ParseValue(0);
    SkipSpace();
    if (pos_ != s_.size()) Fail("unexpected " + Quote(s_.substr(pos_, 10)) + " after the dict");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error("malformed header at byte " + std::to_string(pos_) + ": " + what);
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r' ||
                                s_[pos_] == '\f' || s_[pos_] == '\v')) {
      ++pos_;
    }
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void Expect(char c) {
    if (!Peek(c)) {
      Fail(std::string("expected '") + c + "', found " +
           (pos_ < s_.size() ? Quote(s_.substr(pos_, 10)) : std::string("the end of the header")));
    }
    ++pos_;
  }

  Value ParseValue(int depth) {
    if (depth > kMaxDepth) Fail("nested more than " + std::to_string(kMaxDepth) + " deep");
    SkipSpace();
    if (pos_ >= s_.size()) Fail("unexpected end of the header");
    const char c = s_[pos_];
    if (c == '\'' || c == '"') return ParseString();
    if (c == '(') return ParseSequence(depth, ')', Value::Kind::tuple);
    if (c == '[') return ParseSequence(depth, ']', Value::Kind::list);
    if (c == '{') return ParseDict(depth);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return ParseInteger();
    for (auto [word, kind, flag] : {std::tuple{"True", Value::Kind::boolean, true},
                                    std::tuple{"False", Value::Kind::boolean, false},
                                    std::tuple{"None", Value::Kind::none, false}}) {
      const std::string_view w(word);
      if (s_.substr(pos_, w.size()) == w) {
        pos_ += w.size();
        Value v;
        v.kind = kind;
        v.flag = flag;
        return v;
      }
    }
    Fail("unexpected " + Quote(s_.substr(pos_, 10)));
  }

  Value ParseString() {
    const char quote = s_[pos_++];
    Value v;
    v.kind = Value::Kind::string;
    while (true) {
      if (pos_ >= s_.size()) Fail("unterminated string");
      char c = s_[pos_++];
      if (c == quote) break;
      if (c == '\n') Fail("newline inside a string");
      if (c == '\\') {  // the escapes a dtype string could need; anything fancier is not a dtype we read
        if (pos_ >= s_.size()) Fail("unterminated string");
        c = s_[pos_++];
      }
      v.text += c;
    }
    return v;
  }

  Value ParseInteger() {
    Value v;
    v.kind = Value::Kind::integer;
    if (s_[pos_] == '-' || s_[pos_] == '+') v.negative = s_[pos_++] == '-';
    const size_t start = pos_;
    uint64_t m = 0;
    bool overflow = false;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const uint64_t d = static_cast<uint64_t>(s_[pos_++] - '0');
      if (m > (std::numeric_limits<uint64_t>::max() - d) / 10) overflow = true;
      m = m * 10 + d;
    }
    if (pos_ == start) Fail("expected digits after the sign");
    if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' || s_[pos_] == 'x' ||
                             s_[pos_] == '_' || s_[pos_] == 'L' || s_[pos_] == 'j')) {
      Fail("only decimal integers may appear here, found " + Quote(s_.substr(start, pos_ + 1 - start)));
    }
    if (!overflow) v.mag = m;
    return v;
  }

  Value ParseSequence(int depth, char close, Value::Kind kind) {
    ++pos_;
    Value v;
    v.kind = kind;
    bool trailing_comma = false;
    while (!Peek(close)) {
      v.items.push_back(ParseValue(depth + 1));
      trailing_comma = Peek(',');
      if (!trailing_comma) break;
      ++pos_;
    }
    Expect(close);
    // Python: "(3)" is the integer 3, not a tuple; numpy writes "(3,)".
    if (kind == Value::Kind::tuple && v.items.size() == 1 && !trailing_comma) return std::move(v.items[0]);
    return v;
  }

  Value ParseDict(int depth) {
    ++pos_;
    Value v;
    v.kind = Value::Kind::dict;
    while (!Peek('}')) {
      v.items.push_back(ParseValue(depth + 1));
      Expect(':');
      v.items.push_back(ParseValue(depth + 1));
      if (!Peek(',')) break;
      ++pos_;
    }
    Expect('}');
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

struct Descr {
  DType dtype;
  bool swap;  // the file's byte order differs from this machine's
};

// What every unsupported-dtype message ends with: the dtypes that are read. No command is named here: the reader
// serves `gelu apply` and `gelu check`, and the caller's message names the one running ("gelu check: 'x.npy': ...").
const std::string kSupported = "; .npy arrays are read as float16 ('<f2'), float32 ('<f4') or float64 ('<f8')";

Descr ParseDescr(const Value& v) {
  if (v.kind == Value::Kind::list) {
    throw Error("unsupported dtype: structured (record) arrays are not supported" + kSupported);
  }
  if (v.kind != Value::Kind::string) {
    throw Error(std::string("'descr' must be a dtype string such as '<f4', found ") + KindName(v.kind));
  }
  const std::string& d = v.text;
  std::string_view rest = d;
  char order = '|';
  if (!rest.empty() && std::string_view("<>|=").find(rest[0]) != std::string_view::npos) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  const char kind = rest.empty() ? '\0' : rest[0];
  if (!rest.empty()) rest.remove_prefix(1);
  unsigned size = 0;
  bool digits = !rest.empty() && rest.size() <= 3;
  for (char c : rest) {
    if (c < '0' || c > '9') digits = false;
    if (digits) size = size * 10 + static_cast<unsigned>(c - '0');
  }
  if (!digits) size = 0;
  const auto bits = [&] { return size == 0 ? std::string() : std::to_string(size * 8); };
  switch (kind) {
    case 'f':
      if (size == 2 || size == 4 || size == 8) {
        const bool file_little = order == '<' || ((order == '|' || order == '=') &&
                                                  std::endian::native == std::endian::little);
        return {size == 2 ? DType::f16 : size == 4 ? DType::f32 : DType::f64,
                file_little != (std::endian::native == std::endian::little)};
      }
      if (size == 0) throw Error("unknown dtype " + Quote(d) + kSupported);
      throw Error("unsupported dtype " + Quote(d) + " (float" + bits() + ")" + kSupported);
    case 'i': throw Error("unsupported dtype " + Quote(d) + " (int" + bits() + ")" + kSupported);
    case 'u': throw Error("unsupported dtype " + Quote(d) + " (uint" + bits() + ")" + kSupported);
    case 'b': throw Error("unsupported dtype " + Quote(d) + " (bool)" + kSupported);
    case 'c': throw Error("unsupported dtype " + Quote(d) + " (complex" + bits() + ")" + kSupported);
    case 'O': throw Error("unsupported dtype " + Quote(d) + " (Python object)" + kSupported);
    case 'S':
    case 'a':
    case 'U': throw Error("unsupported dtype " + Quote(d) + " (string)" + kSupported);
    case 'V': throw Error("unsupported dtype " + Quote(d) + " (void/structured)" + kSupported);
    case 'M':
    case 'm': throw Error("unsupported dtype " + Quote(d) + " (datetime/timedelta)" + kSupported);
    default: throw Error("unknown dtype " + Quote(d) + kSupported);
  }
}

std::string Errno(int e) { return std::strerror(e); }

}  // namespace

const char* to_string(DType t) { return t == DType::f32 ? "float32" : t == DType::f64 ? "float64" : "float16"; }
size_t ItemSize(DType t) { return t == DType::f32 ? 4 : t == DType::f64 ? 8 : 2; }

std::string ShapeString(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

namespace {

// What the bytes before the data say: everything Read needs to know before it reads or allocates the data.
struct Header {
  Array layout;  // dtype, fortran_order and shape; no elements
  bool swap = false;
  size_t data_start = 0;  // the data's offset in the file
  uint64_t count = 0;     // elements; count * item size < 2^63 (ParseHeader)
};

// The first bytes of a file, up to and including the header length: checks the magic string and version and
// returns the offset just past the header (at most 12 + kMaxHeaderBytes). `file` holds the whole file or at
// least its first 12 bytes.
size_t HeaderEnd(std::span<const std::byte> file) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(file[i]); };
  if (file.size() < kMagic.size() ||
      std::memcmp(file.data(), kMagic.data(), kMagic.size()) != 0) {
    throw Error("not a .npy file (it does not start with the magic string \\x93NUMPY)");
  }
  if (file.size() < 8) throw Error("truncated header: the file ends inside the version bytes");
  const unsigned major = byte(6), minor = byte(7);
  if (major < 1 || major > 3 || minor != 0) {
    throw Error("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                " (known: 1.0, 2.0, 3.0)");
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (file.size() < 8 + len_bytes) throw Error("truncated header: the file ends inside the header length");
  uint64_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i) header_len |= uint64_t{byte(8 + i)} << (8 * i);
  if (header_len > kMaxHeaderBytes) {
    throw Error("header length " + std::to_string(header_len) + " exceeds the limit of " +
                std::to_string(kMaxHeaderBytes) + " bytes");
  }
  return 8 + len_bytes + header_len;
}

// Parses everything before the data. `file` holds the whole file or at least its first HeaderEnd bytes.
Header ParseHeader(std::span<const std::byte> file) {
  const size_t header_end = HeaderEnd(file);
  const unsigned major = static_cast<unsigned char>(file[6]);
  const size_t header_start = major == 1 ? 10 : 12;
  const size_t header_len = header_end - header_start;
  if (header_end > file.size()) {
    throw Error("truncated header: the header length says " + std::to_string(header_len) + " bytes but only " +
                std::to_string(file.size() - header_start) + " follow");
  }
  const std::string_view header(reinterpret_cast<const char*>(file.data()) + header_start, header_len);
  if (major < 3) {
    // Versions 1.0 and 2.0 promise a latin-1 header; anything but ASCII in a header we can read is corrupt.
    for (char c : header) {
      if (static_cast<unsigned char>(c) >= 0x80) throw Error("malformed header: non-ASCII byte in a version 1/2 header");
    }
  }
  const Value dict = HeaderParser(header).ParseAll();
  if (dict.kind != Value::Kind::dict) {
    throw Error(std::string("malformed header: expected a dict, found ") + KindName(dict.kind));
  }
  const Value *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  for (size_t i = 0; i < dict.items.size(); i += 2) {
    const Value& key = dict.items[i];
    if (key.kind != Value::Kind::string) throw Error("malformed header: a dict key is not a string");
    const Value** slot = key.text == "descr"           ? &descr
                         : key.text == "fortran_order" ? &fortran
                         : key.text == "shape"         ? &shape
                                                       : nullptr;
    if (slot == nullptr) throw Error("malformed header: unexpected key " + Quote(key.text));
    if (*slot != nullptr) throw Error("malformed header: key " + Quote(key.text) + " appears twice");
    *slot = &dict.items[i + 1];
  }
  if (descr == nullptr || fortran == nullptr || shape == nullptr) {
    throw Error(std::string("malformed header: missing key '") +
                (descr == nullptr ? "descr" : fortran == nullptr ? "fortran_order" : "shape") + "'");
  }
  if (fortran->kind != Value::Kind::boolean) {
    throw Error(std::string("malformed header: 'fortran_order' must be True or False, found ") +
                KindName(fortran->kind));
  }
  if (shape->kind != Value::Kind::tuple) {
    throw Error(std::string("malformed header: 'shape' must be a tuple, found ") + KindName(shape->kind));
  }
  const Descr d = ParseDescr(*descr);

  Header h;
  Array& a = h.layout;
  a.dtype = d.dtype;
  a.fortran_order = fortran->flag;
  h.swap = d.swap;
  h.data_start = header_end;
  uint64_t count = 1;
  // numpy's own limits (PyArray_NewFromDescr): every dimension and the bytes spanned by the nonzero ones fit in
  // a signed 64-bit size, even when another dimension is 0. An empty array past them is refused as numpy refuses
  // it ("Maximum allowed dimension exceeded", "array is too big"), so that `gelu apply` never writes a file that
  // numpy cannot read back. (An array with elements that large is refused anyway: its data cannot follow.)
  constexpr uint64_t kNumpyMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t nonzero_bytes = ItemSize(d.dtype);
  for (const Value& dim : shape->items) {
    if (dim.kind != Value::Kind::integer) {
      throw Error(std::string("malformed header: a 'shape' entry is ") + KindName(dim.kind) + ", not an integer");
    }
    if (dim.negative && dim.mag != 0u) throw Error("malformed header: negative dimension in 'shape'");
    if (!dim.mag || *dim.mag > kNumpyMax) {
      throw Error("malformed header: a dimension in 'shape' exceeds 2^63 - 1, numpy's largest");
    }
    a.shape.push_back(*dim.mag);
    if (*dim.mag == 0) continue;
    if (nonzero_bytes > kNumpyMax / *dim.mag) {
      const bool more = a.shape.size() < shape->items.size();
      throw Error("malformed header: shape " + ShapeString(a.shape) + (more ? "..." : "") + " of " +
                  to_string(d.dtype) + " spans more than 2^63 - 1 bytes, numpy's largest array");
    }
    nonzero_bytes *= *dim.mag;
    count *= *dim.mag;
  }
  // A zero dimension makes the array empty.
  if (std::find(a.shape.begin(), a.shape.end(), uint64_t{0}) != a.shape.end()) count = 0;
  h.count = count;
  return h;
}

// Throws unless exactly the bytes the header declares follow it: `available` of them, or (at_least) more.
void CheckDataSize(const Header& h, uint64_t available, bool at_least = false) {
  const Array& a = h.layout;
  const size_t item = ItemSize(a.dtype);
  const std::string follow = (at_least ? "at least " : "") + std::to_string(available) + " follow the header";
  if (h.count > available / item) {
    throw Error("truncated data: shape " + ShapeString(a.shape) + " of " + to_string(a.dtype) + " needs " +
                std::to_string(h.count * item) + " bytes but " + follow);
  }
  if (h.count * item != available || at_least) {
    throw Error("header lies about the size: shape " + ShapeString(a.shape) + " of " + to_string(a.dtype) +
                " needs " + std::to_string(h.count * item) + " bytes but " + follow);
  }
}

template <class T>
void SwapBytes(std::vector<T>& v) {
  for (T& x : v) {
    if constexpr (sizeof(T) == 2) {
      x = __builtin_bswap16(x);
    } else if constexpr (sizeof(T) == 4) {
      x = std::bit_cast<T>(__builtin_bswap32(std::bit_cast<uint32_t>(x)));
    } else {
      x = std::bit_cast<T>(__builtin_bswap64(std::bit_cast<uint64_t>(x)));
    }
  }
}

// The element storage of `a` for its dtype, sized to `count` elements.
std::span<std::byte> Resize(Array& a, size_t count) {
  switch (a.dtype) {
    case DType::f32: a.f32.resize(count); return std::as_writable_bytes(std::span<float>(a.f32));
    case DType::f64: a.f64.resize(count); return std::as_writable_bytes(std::span<double>(a.f64));
    case DType::f16: a.f16.resize(count); return std::as_writable_bytes(std::span<uint16_t>(a.f16));
  }
  return {};
}

void SwapBytes(Array& a) {
  switch (a.dtype) {
    case DType::f32: SwapBytes(a.f32); break;
    case DType::f64: SwapBytes(a.f64); break;
    case DType::f16: SwapBytes(a.f16); break;
  }
}

}  // namespace

Array Parse(std::span<const std::byte> file) {
  Header h = ParseHeader(file);
  CheckDataSize(h, file.size() - h.data_start);
  const std::span<std::byte> out = Resize(h.layout, h.count);
  if (!out.empty()) std::memcpy(out.data(), file.data() + h.data_start, out.size());
  if (h.swap) SwapBytes(h.layout);
  return std::move(h.layout);
}

namespace {

// Magic, version, header length and the padded header: everything before the data.
std::string Prefix(const Array& a) {
  const char order = std::endian::native == std::endian::little ? '<' : '>';
  std::string header = std::string("{'descr': '") + order + (a.dtype == DType::f32 ? "f4" : a.dtype == DType::f64 ? "f8" : "f2") +
                       "', 'fortran_order': " + (a.fortran_order ? "True" : "False") +
                       ", 'shape': " + ShapeString(a.shape) + ", }";
  // Pad with spaces so that magic + version + length + header is a multiple of 64 bytes and ends in '\n'.
  size_t prefix = 10;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  if (total - prefix > 65535) {
    prefix = 12;
    total = (prefix + header.size() + 1 + 63) / 64 * 64;
  }
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic);
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  const uint64_t len = header.size();
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  return out + header;
}

std::span<const std::byte> DataBytes(const Array& a) {
  switch (a.dtype) {
    case DType::f32: return std::as_bytes(std::span<const float>(a.f32));
    case DType::f64: return std::as_bytes(std::span<const double>(a.f64));
    case DType::f16: return std::as_bytes(std::span<const uint16_t>(a.f16));
  }
  return {};
}

}  // namespace

std::vector<std::byte> Serialize(const Array& a) {
  const std::string prefix = Prefix(a);
  const std::span<const std::byte> data = DataBytes(a);
  std::vector<std::byte> out(prefix.size() + data.size());
  std::memcpy(out.data(), prefix.data(), prefix.size());
  if (!data.empty()) std::memcpy(out.data() + prefix.size(), data.data(), data.size());
  return out;
}

namespace {

// A failed read(2): its message names the file already.
class ReadFailure : public Error {
 public:
  using Error::Error;
};

// Reads from fd into out[0, n) until n bytes or end of file; returns the bytes read.
size_t ReadUpTo(int fd, std::byte* out, size_t n, const std::string& name) {
  size_t used = 0;
  while (used < n) {
    const ssize_t r = ::read(fd, out + used, n - used);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw ReadFailure("cannot read " + name + ": " + Errno(errno));
    }
    if (r == 0) break;
    used += static_cast<size_t>(r);
  }
  return used;
}

}  // namespace

Array Read(const std::filesystem::path& path) {
  const std::string name = "'" + path.string() + "'";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + name + ": " + Errno(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error("cannot read " + name + ": " + Errno(errno));
  if (S_ISDIR(st.st_mode)) throw Error("cannot read " + name + ": it is a directory");
  // The preamble and header first, checked before anything else is read, then exactly the bytes the header
  // declares (and one more, to see that nothing follows): a file that is not .npy, or an endless stream such
  // as /dev/zero, costs 12 bytes, and no header can make us allocate more than the data it describes.
  // Sizes come from reading, not from st_size, so pipes and files that change size are handled too.
  try {
    std::vector<std::byte> prefix(12);
    prefix.resize(ReadUpTo(fd, prefix.data(), prefix.size(), name));
    if (prefix.size() < 12) return Parse(prefix);  // the whole file: Parse says what is wrong with it
    const size_t header_end = HeaderEnd(prefix);
    prefix.resize(header_end);
    const size_t got = ReadUpTo(fd, prefix.data() + 12, header_end - 12, name);
    if (got < header_end - 12) {
      prefix.resize(12 + got);
      return Parse(prefix);
    }
    Header h = ParseHeader(prefix);
    const size_t item = ItemSize(h.layout.dtype);
    // A regular file's size settles the data's size before anything is allocated.
    if (S_ISREG(st.st_mode)) {
      const auto size = static_cast<uint64_t>(st.st_size);
      CheckDataSize(h, size > header_end ? size - header_end : 0);
    } else if (h.count > std::numeric_limits<size_t>::max() / item) {
      CheckDataSize(h, 0);  // throws: more than this process can address
    }
    const size_t want = h.count * item;
    // A stream's size is known only by reading it: grow the buffer with the bytes that arrive.
    size_t have = 0;
    std::span<std::byte> data =
        Resize(h.layout, S_ISREG(st.st_mode) ? h.count : std::min<size_t>(h.count, 65536 / item));
    while (true) {
      have += ReadUpTo(fd, data.data() + have, data.size() - have, name);
      if (have < data.size() || data.size() == want) break;
      data = Resize(h.layout, std::min(h.count, 2 * data.size() / item));
    }
    if (have < want) CheckDataSize(h, have);  // throws: truncated
    std::byte extra{};
    if (ReadUpTo(fd, &extra, 1, name) != 0) CheckDataSize(h, want + 1, /*at_least=*/true);  // throws
    if (h.swap) SwapBytes(h.layout);
    return std::move(h.layout);
  } catch (const ReadFailure&) {
    throw;
  } catch (const Error& e) {
    throw Error(name + ": " + e.what());
  }
}

void Write(const std::filesystem::path& path, const Array& a) {
  const std::string prefix = Prefix(a);
  try {
    ReplaceFile(path, {std::as_bytes(std::span<const char>(prefix.data(), prefix.size())), DataBytes(a)});
  } catch (const ReplaceFileError& e) {
    throw Error(e.what());
  }
}

}  // namespace gelu::npy
