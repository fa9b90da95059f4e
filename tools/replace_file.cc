// SPDX-License-Identifier: Apache-2.0
// ReplaceFile; see replace_file.h.
#include "tools/replace_file.h"

#include "tools/cleanup_on_signal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gelu {
namespace {

std::string Errno(int e) { return std::strerror(e); }

// While ReplaceFile fills its temporary file, a signal that ends the process (Ctrl-C, kill) removes it
// (CleanupOnSignal) rather than leaving a hidden partial file beside the target. mkstemp and Track run with those
// signals blocked in this thread, so that a signal delivered here never falls between the file's creation and its
// tracking.
class TemporaryFile {
 public:
  // Creates the temporary file from `name_template` (mkstemp) and tracks it.
  int Create(std::string& name_template) {
    const BlockEndingSignals blocked;
    const int fd = ::mkstemp(name_template.data());
    if (fd >= 0) slot_ = CleanupOnSignal::Track(name_template.c_str());
    return fd;
  }
  // The file is renamed or removed: nothing to remove any more.
  void Untrack() {
    CleanupOnSignal::Untrack(slot_);
    slot_ = -1;
  }
  ~TemporaryFile() { Untrack(); }

 private:
  CleanupOnSignal guard_;
  int slot_ = -1;
};

}  // namespace

ReplaceTarget CheckReplaceable(const std::filesystem::path& path) {
  const std::string name = "'" + path.string() + "'";
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  if (path.filename().empty()) throw ReplaceFileError("cannot write " + name + ": not a file name");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    throw ReplaceFileError("cannot write " + name + ": output directory '" + dir.string() + "': " + Errno(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw ReplaceFileError("cannot write " + name + ": '" + dir.string() + "' is not a directory");
  }
  if (::lstat(path.c_str(), &st) == 0) {
    // The new file is renamed over `path`, which replaces whatever is there: a symbolic link is followed to the
    // file it names (the link stays a link), and anything but a regular file is refused, so that `gelu apply
    // x.npy /dev/null` cannot replace a device node (run as root) or a FIFO with a plain file.
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      const std::filesystem::path target = std::filesystem::canonical(path, ec);
      if (ec) {
        throw ReplaceFileError("cannot write " + name + ": a symbolic link whose target cannot be resolved: " +
                               ec.message());
      }
      return CheckReplaceable(target);
    }
    if (S_ISDIR(st.st_mode)) throw ReplaceFileError("cannot write " + name + ": it is a directory");
    if (!S_ISREG(st.st_mode)) {
      throw ReplaceFileError("cannot write " + name +
                             ": it exists and is not a regular file (a device, FIFO or socket is not replaced)");
    }
    return {path, dir, st.st_mode & 07777};
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return {path, dir, 0666 & ~mask};
}

void ReplaceFile(const std::filesystem::path& requested, std::initializer_list<std::span<const std::byte>> parts) {
  const ReplaceTarget target = CheckReplaceable(requested);
  const std::filesystem::path& path = target.path;
  const std::filesystem::path& dir = target.dir;
  const mode_t mode = target.mode;
  const std::string name = "'" + path.string() + "'";
  // The temporary name adds 12 characters to the target's: cut at 200 so that a name near the 255-byte limit still
  // gets a temporary file (mkstemp failed with "File name too long").
  const std::string base = path.filename().string().substr(0, 200);
  std::string tmp = UniqueNameTemplate((dir / ("." + base + ".tmp-")).string());
  TemporaryFile guard;
  const int fd = guard.Create(tmp);
  if (fd < 0) {
    throw ReplaceFileError("cannot write " + name + ": cannot create a file in '" + dir.string() +
                           "': " + Errno(errno));
  }
  const auto fail = [&](const std::string& what, int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw ReplaceFileError("cannot write " + name + ": " + what + ": " + Errno(e));
  };
  // Part by part, straight from the caller's memory (npy::Write: the header, then the array's data, with no second
  // copy of a large array).
  for (const std::span<const std::byte> part : parts) {
    size_t done = 0;
    while (done < part.size()) {
      const ssize_t w = ::write(fd, part.data() + done, part.size() - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        fail("write failed", errno);
      }
      done += static_cast<size_t>(w);
    }
  }
  // fsync before rename: otherwise a crash could leave OUT renamed but empty (the rename can reach the disk
  // before the data does).
  if (::fchmod(fd, mode) != 0) fail("chmod failed", errno);
  if (::fsync(fd) != 0) fail("fsync failed", errno);
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw ReplaceFileError("cannot write " + name + ": close failed: " + Errno(e));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw ReplaceFileError("cannot write " + name + ": rename failed: " + Errno(e));
  }
  guard.Untrack();
}

}  // namespace gelu
