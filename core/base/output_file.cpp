#include "output_file.h"

#include "errors.h"

#include <QSaveFile>
#include <QString>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan {

namespace {

[[noreturn]] void cannotWrite(const std::string& path, const std::string& why)
{
    throw InputError(path, "file", "cannot be written: " + why);
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Whether `path`, followed through its symbolic links, names one of the process's open descriptors
// (/dev/stdout → /proc/self/fd/1). Such a path is reopened, never replaced: renaming a copy over
// /proc/self/fd/1 is impossible and over its target would detach what the shell redirected.
bool namesDescriptor(std::string path)
{
    for (int hops = 0; hops < 40; ++hops) {
        if (startsWith(path, "/proc/") || startsWith(path, "/dev/fd/"))
            return true;
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return false;
        std::error_code ec;
        const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
        if (ec)
            return false;
        path = (target.is_absolute() ? target : std::filesystem::path(path).parent_path() / target)
                   .lexically_normal()
                   .string();
    }
    return false;
}

const char* kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "is a directory";
    if (S_ISBLK(mode))
        return "is a block device";
    if (S_ISSOCK(mode))
        return "is a socket";
    return "is not a regular file, character device or FIFO";
}

struct Fd {
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

void writeThrough(const std::string& path, std::string_view bytes)
{
    // No O_CREAT: the target was a device, FIFO or descriptor a moment ago; if it has gone, nothing is
    // created in its place. O_APPEND keeps what a redirected stdout already holds. A FIFO blocks here until
    // a reader opens it, as any writer to a FIFO does.
    Fd f{::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)};
    if (f.fd < 0)
        cannotWrite(path, std::strerror(errno));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0)
        cannotWrite(path, std::strerror(errno));
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode) && !(S_ISREG(st.st_mode) && namesDescriptor(path)))
        throw InputError(path, "file", std::string(kindOf(st.st_mode)) + ": refusing to write over it");
    for (size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(f.fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            cannotWrite(path, std::strerror(errno));
        done += size_t(n);
    }
    if (::close(f.fd) != 0 && errno != EINTR) {
        f.fd = -1;
        cannotWrite(path, std::strerror(errno));
    }
    f.fd = -1;
}

// The regular file a Replace target resolves to: a symbolic link is followed, so the file it points to is
// replaced and the link stays.
std::string replacedFile(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec)))
        return path;
    const auto resolved = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : resolved.string();
}

// An opened, fully written but uncommitted copy; destroyed uncommitted, it leaves nothing behind.
std::unique_ptr<QSaveFile> stage(const std::string& path, std::string_view bytes)
{
    auto f = std::make_unique<QSaveFile>(QString::fromStdString(replacedFile(path)));
    if (!f->open(QIODevice::WriteOnly) || f->write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()))
        cannotWrite(path, f->errorString().toStdString());
    return f;
}

} // namespace

OutputTarget outputTarget(const std::string& path)
{
    if (path.empty())
        throw InputError("(empty path)", "file", "no file name given");
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT && !namesDescriptor(path))
            return OutputTarget::Replace; // a new file (a missing folder is reported when it is written)
        cannotWrite(path, std::strerror(errno));
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
        return OutputTarget::WriteThrough;
    if (S_ISREG(st.st_mode))
        return namesDescriptor(path) ? OutputTarget::WriteThrough : OutputTarget::Replace;
    throw InputError(path, "file", std::string(kindOf(st.st_mode)) + ": refusing to write over it");
}

void checkOutputPath(const std::string& path)
{
    if (outputTarget(path) == OutputTarget::WriteThrough)
        return;
    std::filesystem::path folder = std::filesystem::path(replacedFile(path)).parent_path();
    if (folder.empty())
        folder = ".";
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0)
        cannotWrite(path, "its folder " + folder.string() + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode))
        cannotWrite(path, folder.string() + " is not a folder");
    // The temporary copy is created in the folder, then renamed over the target.
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        cannotWrite(path, "its folder " + folder.string() + ": " + std::strerror(errno));
}

void writeOutputFile(const std::string& path, std::string_view bytes)
{
    writeOutputFiles({{path, std::string(bytes)}});
}

void writeOutputFiles(const std::vector<std::pair<std::string, std::string>>& files)
{
    std::vector<OutputTarget> targets;
    for (const auto& [path, text] : files)
        targets.push_back(outputTarget(path)); // every target checked before anything is written
    std::vector<std::pair<size_t, std::unique_ptr<QSaveFile>>> staged;
    for (size_t i = 0; i < files.size(); ++i)
        if (targets[i] == OutputTarget::Replace)
            staged.emplace_back(i, stage(files[i].first, files[i].second));
    for (size_t i = 0; i < files.size(); ++i)
        if (targets[i] == OutputTarget::WriteThrough)
            writeThrough(files[i].first, files[i].second);
    for (auto& [i, f] : staged)
        if (!f->commit())
            cannotWrite(files[i].first, f->errorString().toStdString());
}

} // namespace hetplan
