#pragma once
// Reading an input file (cluster, model, job, profile, plan JSON, imported profiles) safely: only regular
// files are read, so /dev/zero, /dev/urandom, a FIFO or a directory is refused at once instead of being
// read without end or hanging; and the size limit is applied to the bytes actually read, not to what
// stat() says (which is 0 for such files). Errors are InputError(path, "file", reason).
#include <cstddef>
#include <string>

namespace hetplan {

// The largest input file read (256 MiB): far above any real cluster, model, profile or plan file, and
// small enough that parsing it cannot exhaust memory.
constexpr std::size_t kMaxInputFileBytes = std::size_t(256) << 20;

// The whole content of the regular file `path`, at most `maxBytes` bytes.
std::string readInputFile(const std::string& path, std::size_t maxBytes = kMaxInputFileBytes);

} // namespace hetplan
