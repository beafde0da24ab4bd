#include "input_file.h"

#include "errors.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan {

namespace {
// Closes the descriptor on every path out of readInputFile.
struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
};

std::string mebibytes(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }
} // namespace

std::string readInputFile(const std::string& path, std::size_t maxBytes)
{
    // O_NONBLOCK: opening a FIFO without a writer must not hang; the fstat below then refuses it. Checking
    // the opened descriptor, not the path, leaves no window for the path to change in between.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT)
            throw InputError(path, "file", "does not exist");
        throw InputError(path, "file", "cannot be read: " + std::string(std::strerror(err)));
    }
    FdCloser closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw InputError(path, "file", "cannot be read: " + std::string(std::strerror(errno)));
    if (S_ISDIR(st.st_mode))
        throw InputError(path, "file", "is a directory, not a file");
    if (!S_ISREG(st.st_mode))
        throw InputError(path, "file",
                         "is not a regular file (a device, FIFO or socket cannot be read as input)");
    if (static_cast<unsigned long long>(st.st_size) > maxBytes)
        throw InputError(path, "file", "too large (more than " + mebibytes(maxBytes) + ")");
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);

    std::string data;
    data.reserve(static_cast<std::size_t>(st.st_size));
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw InputError(path, "file", "cannot be read: " + std::string(std::strerror(errno)));
        if (n == 0)
            return data;
        // The guard counts what was read: a file that grows while it is read stops here too.
        if (data.size() + static_cast<std::size_t>(n) > maxBytes)
            throw InputError(path, "file", "too large (more than " + mebibytes(maxBytes) + ")");
        data.append(buffer, static_cast<std::size_t>(n));
    }
}

} // namespace hetplan
