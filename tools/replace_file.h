// SPDX-License-Identifier: Apache-2.0
// Replacing a file as a whole or not at all: what every file the CLI writes goes through (`gelu apply`'s OUT by
// npy::Write, `gelu plot`'s figures, `gelu report`'s report.md), so that a failure (disk full, a file-size
// limit, a signal) never leaves a partial or clobbered file behind.
#ifndef GELU_TOOLS_REPLACE_FILE_H_
#define GELU_TOOLS_REPLACE_FILE_H_

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gelu {

// A name template for mkstemp/mkdtemp: `prefix` followed by the six 'X' those calls overwrite with a unique suffix.
inline std::string UniqueNameTemplate(const std::string& prefix) { return prefix + std::string(6, 'X'); }

// Every failure of ReplaceFile: "cannot write 'PATH': what went wrong".
class ReplaceFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes the concatenation of `parts` to `path` atomically: into a temporary file in the same directory, renamed
// over `path` only once every byte is written and flushed (fsync). On any failure the temporary file is removed
// and `path` is untouched, so `path` may be a file the caller is still reading. A new file gets mode 0666 minus
// the umask; an existing one keeps its mode, not its owner or group (the new file is the writer's) nor its other
// hard links (they keep the old contents): the price of a rename, which is what makes the replacement whole. A symbolic link is followed (the file it names is replaced; the
// link stays); a `path` that exists and is not a regular file (device, FIFO, socket, directory) is refused,
// never replaced. SIGINT, SIGTERM or SIGHUP during the write (where their action is the default) removes the
// temporary file before the process ends. Throws ReplaceFileError.
void ReplaceFile(const std::filesystem::path& path, std::initializer_list<std::span<const std::byte>> parts);

// What ReplaceFile(path, ...) checks before it writes anything, and what it then writes: the file (a symbolic
// link resolved), its directory and the mode the new file gets. Throws the ReplaceFileError ReplaceFile would.
// For a caller that replaces several files: every refusal comes before the first of them is replaced.
struct ReplaceTarget {
  std::filesystem::path path, dir;
  mode_t mode;
};
ReplaceTarget CheckReplaceable(const std::filesystem::path& path);
inline void ReplaceFile(const std::filesystem::path& path, const std::string& text) {
  ReplaceFile(path, {std::as_bytes(std::span<const char>(text.data(), text.size()))});
}

// One file of a ReplaceFiles call: where it goes and what it holds.
struct NewFile {
  std::filesystem::path path;
  std::string_view contents;
};

// ReplaceFile for several files at once (`gelu report`'s report.md and figures, `gelu plot`'s figures), all or
// nothing as far as a failure gelu can see coming: first every destination is checked (CheckReplaceable), then
// every file is written in full to its temporary file beside its destination and flushed (fsync), and only once
// all of them are is each renamed over its destination, in the order given. A refused destination or a write that
// fails (a full disk, a file-size limit) removes every temporary file and leaves every destination untouched.
// Only a rename that fails (an I/O error, or a destination changed under gelu since its check) or a signal
// between the first rename and the last can leave some files new and the rest old, each of them whole; such a
// failed rename's message names the files already replaced. A signal before the renames removes every temporary
// file, as ReplaceFile's. Throws ReplaceFileError.
void ReplaceFiles(std::span<const NewFile> files);

}  // namespace gelu

#endif  // GELU_TOOLS_REPLACE_FILE_H_
