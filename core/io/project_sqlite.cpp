// Content hash and file-system helpers of the project store (see project_sqlite.h).
#include "project_sqlite.h"

#include <QCryptographicHash>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan::projectdb {

// SHA-256 over every row of every table except meta (tables by name, rows by rowid, values with type
// tags). Catches damage that PRAGMA integrity_check cannot see, such as a changed byte inside a
// document or a number. Version independent, so it is checked before any migration.
std::string contentHash(const Conn& c)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    auto addBytes = [&](char tag, const void* p, size_t n) {
        const quint64 len = n;
        h.addData(QByteArrayView(&tag, 1));
        h.addData(QByteArrayView(reinterpret_cast<const char*>(&len), sizeof len));
        h.addData(QByteArrayView(static_cast<const char*>(p), qsizetype(n)));
    };
    std::vector<std::string> tables;
    {
        Stmt s =
            c.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                      "AND name <> 'meta' ORDER BY name",
                      "schema");
        while (c.step(s.get(), "schema")) {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
            tables.emplace_back(p ? p : "");
        }
    }
    for (const std::string& t : tables) {
        addBytes('T', t.data(), t.size());
        std::string quoted = "\"";
        for (char ch : t)
            quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        quoted += "\"";
        Stmt s = c.prepare("SELECT rowid, * FROM " + quoted + " ORDER BY rowid", t);
        const int cols = sqlite3_column_count(s.get());
        while (c.step(s.get(), t)) {
            addBytes('R', nullptr, 0);
            for (int i = 0; i < cols; ++i) {
                switch (sqlite3_column_type(s.get(), i)) {
                case SQLITE_INTEGER: {
                    const qint64 v = sqlite3_column_int64(s.get(), i);
                    addBytes('i', &v, sizeof v);
                    break;
                }
                case SQLITE_FLOAT: {
                    const double v = sqlite3_column_double(s.get(), i);
                    addBytes('f', &v, sizeof v);
                    break;
                }
                case SQLITE_TEXT:
                    addBytes('t', sqlite3_column_text(s.get(), i), size_t(sqlite3_column_bytes(s.get(), i)));
                    break;
                case SQLITE_BLOB:
                    addBytes('b', sqlite3_column_blob(s.get(), i), size_t(sqlite3_column_bytes(s.get(), i)));
                    break;
                default: addBytes('n', nullptr, 0);
                }
            }
        }
    }
    return h.result().toHex().toStdString();
}

// ---------------------------------------------------------------- files

void syncPath(const std::string& path, bool directory)
{
    const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) {
        if (directory)
            return; // best effort: some file systems do not let a directory be opened
        throw InputError(path, "file", std::string("cannot be synced: ") + std::strerror(errno));
    }
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0 && !directory)
        throw InputError(path, "file", std::string("cannot be synced: ") + std::strerror(err));
}

namespace {
const char kTempAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
constexpr int kTempSuffixLength = 6;
const std::string kTempInfix = ".tmp-";
} // namespace

// The process umask applies, as for any new file.
TempFile::TempFile(const std::string& target)
{
    std::random_device rd;
    std::mt19937_64 rng((static_cast<unsigned long long>(rd()) << 32) ^ rd() ^
                        static_cast<unsigned long long>(::getpid()));
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string name = target + kTempInfix;
        for (int i = 0; i < kTempSuffixLength; ++i)
            name += kTempAlphabet[rng() % (sizeof kTempAlphabet - 1)];
        const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::flock(fd, LOCK_EX); // a new file no one else holds: never waits
            path_ = name;
            lockFd_ = fd;
            return;
        }
        if (errno != EEXIST)
            throw InputError(target, "file",
                             "cannot be saved: cannot create a temporary file next to it: " +
                                 std::string(std::strerror(errno)));
    }
    throw InputError(target, "file", "cannot be saved: no free temporary file name");
}

TempFile::~TempFile()
{
    if (lockFd_ >= 0)
        ::close(lockFd_); // releases the lock
}

void removeAbandonedTempFiles(const std::string& target)
{
    namespace fs = std::filesystem;
    const fs::path t(target);
    const fs::path dir = t.parent_path().empty() ? fs::path(".") : t.parent_path();
    const std::string prefix = t.filename().string() + kTempInfix;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() != prefix.size() + kTempSuffixLength || name.rfind(prefix, 0) != 0 ||
            name.find_first_not_of(kTempAlphabet, prefix.size()) != std::string::npos)
            continue;
        const std::string path = it->path().string();
        // O_NOFOLLOW and the fstat: only a regular file of this name is touched, never what a link points to.
        const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st {};
        // A save that is still writing its copy holds the lock; one killed before its rename does not.
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0)
            ::unlink(path.c_str());
        ::close(fd);
    }
}

} // namespace hetplan::projectdb
