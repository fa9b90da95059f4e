// SPDX-License-Identifier: Apache-2.0
// ReplaceFile; see replace_file.h.
#include "tools/replace_file.h"

#include "tools/cleanup_on_signal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace gelu {
namespace {

std::string Errno(int e) { return std::strerror(e); }

// While ReplaceFile fills its temporary file, a signal that ends the process (Ctrl-C, kill) removes it
// (CleanupOnSignal) rather than leaving a hidden partial file beside the target. The name is tracked before the file
// exists and the file is then created with O_EXCL: a signal between the two, on whichever thread it lands (an
// OpenMP worker of the computation does not block it), removes a name that is not there yet, which is harmless,
// instead of missing a file that is. The template's last six characters (UniqueNameTemplate's suffix) are drawn at
// random, as mkstemp draws them, and drawn again for a name that exists already.
class TemporaryFile {
 public:
  // Creates the file `name_template` names (its six-character suffix drawn), tracked from before its creation. Returns the
  // descriptor, or -1 with errno set.
  int Create(std::string& name_template) {
    static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    thread_local std::mt19937_64 random(std::random_device{}() ^ static_cast<uint64_t>(::getpid()));
    const size_t suffix = name_template.size() - 6;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      for (size_t i = suffix; i < name_template.size(); ++i) name_template[i] = kChars[random() % (sizeof kChars - 1)];
      slot_ = CleanupOnSignal::Track(name_template.c_str());
      const int fd = ::open(name_template.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0) return fd;
      const int e = errno;
      Untrack();
      if (e != EEXIST) {
        errno = e;
        return -1;
      }
    }
    errno = EEXIST;
    return -1;
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

namespace {

// A new file written in full to its temporary file beside `target.path` and flushed (the constructor), then renamed
// over it (Commit). Destroyed before its Commit, it removes the temporary file.
class PendingFile {
 public:
  PendingFile(const ReplaceTarget& target, std::span<const std::span<const std::byte>> parts) : target_(target) {
    const std::filesystem::path& path = target_.path;
    const std::filesystem::path& dir = target_.dir;
    const std::string name = "'" + path.string() + "'";
    // The temporary name adds 12 characters to the target's: cut at 200 so that a name near the 255-byte limit
    // still gets a temporary file (mkstemp failed with "File name too long").
    const std::string base = path.filename().string().substr(0, 200);
    tmp_ = UniqueNameTemplate((dir / ("." + base + ".tmp-")).string());
    const int fd = guard_.Create(tmp_);
    if (fd < 0) {
      throw ReplaceFileError("cannot write " + name + ": cannot create a file in '" + dir.string() +
                             "': " + Errno(errno));
    }
    const auto fail = [&](const std::string& what, int e) {
      ::close(fd);
      ::unlink(tmp_.c_str());
      throw ReplaceFileError("cannot write " + name + ": " + what + ": " + Errno(e));
    };
    // Part by part, straight from the caller's memory (npy::Write: the header, then the array's data, with no
    // second copy of a large array).
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
    if (::fchmod(fd, target_.mode) != 0) fail("chmod failed", errno);
    if (::fsync(fd) != 0) fail("fsync failed", errno);
    if (::close(fd) != 0) {
      const int e = errno;
      ::unlink(tmp_.c_str());
      throw ReplaceFileError("cannot write " + name + ": close failed: " + Errno(e));
    }
    pending_ = true;
  }
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile() {
    if (pending_) ::unlink(tmp_.c_str());
  }

  // Renames the temporary file over the target. `replaced`: the files a ReplaceFiles call replaced before this
  // one, named in the message if the rename fails.
  void Commit(const std::string& replaced = "") {
    if (::rename(tmp_.c_str(), target_.path.c_str()) != 0) {
      const int e = errno;
      throw ReplaceFileError("cannot write '" + target_.path.string() + "': rename failed: " + Errno(e) +
                             (replaced.empty() ? "" : " (already replaced: " + replaced + ")"));
    }
    pending_ = false;
    guard_.Untrack();
  }
  const std::filesystem::path& path() const { return target_.path; }

 private:
  ReplaceTarget target_;
  std::string tmp_;
  TemporaryFile guard_;
  bool pending_ = false;
};

}  // namespace

void ReplaceFile(const std::filesystem::path& requested, std::initializer_list<std::span<const std::byte>> parts) {
  PendingFile file(CheckReplaceable(requested), std::span(parts.begin(), parts.size()));
  file.Commit();
}

void ReplaceFiles(std::span<const NewFile> files) {
  // The outermost guard, so that the pending files' guards may end in any order (CleanupOnSignal nests in
  // reverse order of construction only).
  const CleanupOnSignal guard;
  std::vector<ReplaceTarget> targets;
  for (const NewFile& f : files) targets.push_back(CheckReplaceable(f.path));
  // Every file written before the first rename; a failure destroys the pending files written so far, which
  // removes their temporary files.
  std::vector<std::unique_ptr<PendingFile>> pending;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::span<const std::byte> bytes = std::as_bytes(std::span(files[i].contents));
    pending.push_back(std::make_unique<PendingFile>(targets[i], std::span(&bytes, 1)));
  }
  std::string replaced;
  for (const std::unique_ptr<PendingFile>& f : pending) {
    f->Commit(replaced);
    replaced += (replaced.empty() ? "'" : ", '") + f->path().string() + "'";
  }
}

}  // namespace gelu
