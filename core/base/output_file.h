#pragma once
// Writing an output file (--out, --trace, exports, the GUI's saves) without harming what is already at the
// path. What the target is decides how it is written:
//  - nothing there, or a regular file (also through symbolic links): a complete temporary copy is renamed
//    over it, so a reader never sees half a file and a failed write leaves the old one as it was;
//  - a character device or a FIFO (/dev/null, a terminal, a named pipe), or a path that names one of the
//    process's descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N): written through, never replaced —
//    that is what a user means by `--out /dev/null` or `--out /dev/stdout`;
//  - anything else (a directory, a block device, a socket): refused with InputError(path, "file", reason)
//    before anything is written.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetplan {

enum class OutputTarget {
    Replace,      // absent or a regular file: temporary copy + rename
    WriteThrough, // character device, FIFO or a descriptor alias: open and write, no rename
};

// How `path` will be written; throws InputError(path, "file", reason) for a target that must not be touched.
OutputTarget outputTarget(const std::string& path);

// Checks, before a command does its work, that `path` can be written the way writeOutputFile will: the
// refusals of outputTarget(), and for a file to create or replace, a folder that exists and that this
// process may write in. Throws InputError(path, "file", reason); writes nothing.
void checkOutputPath(const std::string& path);

// Writes `bytes` to `path` as described above.
void writeOutputFile(const std::string& path, std::string_view bytes);

// Several outputs of one command, all or none: every regular target's temporary copy is written before
// any target changes, then the special targets are written through and the copies renamed into place.
void writeOutputFiles(const std::vector<std::pair<std::string, std::string>>& files);

} // namespace hetplan
