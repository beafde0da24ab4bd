#pragma once
// Small RAII wrappers over the SQLite C API used by the project store: every failure becomes
// InputError(path, field, reason). Internal to core/io.
#include "core/base/errors.h"
#include "core/base/json_parse.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

namespace hetplan::projectdb {

using i64 = long long;

struct DbCloser {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;

struct StmtCloser {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtCloser>;

inline std::string sqliteReason(sqlite3* db, int rc)
{
    const int primary = rc & 0xff;
    if (primary == SQLITE_NOTADB)
        return "file is not a database";
    if (primary == SQLITE_CORRUPT)
        return std::string("file is damaged (") + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) + ")";
    return db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
}

// All SQLite failures become InputError(path, field, reason).
class Conn {
public:
    Conn(Db db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
    sqlite3* get() const { return db_.get(); }
    const std::string& path() const { return path_; }
    // Closes now, reporting a failure (e.g. a write that only fails when flushed).
    void close()
    {
        const int rc = sqlite3_close(get());
        if (rc != SQLITE_OK)
            fail("file", rc);
        (void)db_.release();
    }
    [[noreturn]] void fail(const std::string& field, int rc) const
    {
        throw InputError(path_, field, sqliteReason(get(), rc));
    }

    void exec(const char* sql, const std::string& field) const
    {
        const int rc = sqlite3_exec(get(), sql, nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK)
            fail(field, rc);
    }
    Stmt prepare(const std::string& sql, const std::string& field) const
    {
        sqlite3_stmt* s = nullptr;
        const int rc = sqlite3_prepare_v2(get(), sql.c_str(), int(sql.size()), &s, nullptr);
        if (rc != SQLITE_OK)
            fail(field, rc);
        return Stmt(s);
    }
    // Steps once: true = a row, false = done.
    bool step(sqlite3_stmt* s, const std::string& field) const
    {
        const int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        fail(field, rc);
    }
    long long pragmaInt(const char* name) const
    {
        Stmt s = prepare(std::string("PRAGMA ") + name, name);
        if (!step(s.get(), name))
            throw InputError(path_, name, "no value");
        return sqlite3_column_int64(s.get(), 0);
    }

private:
    Db db_;
    std::string path_;
};

// Typed column access for reading; a value of the wrong type means the file was not written by us.
struct Row {
    const Conn& c;
    sqlite3_stmt* s;
    std::string field;

    std::string text(int col, const char* name) const
    {
        if (sqlite3_column_type(s, col) != SQLITE_TEXT)
            throw InputError(c.path(), field + "." + name, "expected text");
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, col));
        return std::string(p, size_t(sqlite3_column_bytes(s, col)));
    }
    bool isNull(int col) const { return sqlite3_column_type(s, col) == SQLITE_NULL; }
    long long integer(int col, const char* name) const
    {
        if (sqlite3_column_type(s, col) != SQLITE_INTEGER)
            throw InputError(c.path(), field + "." + name, "expected an integer");
        return sqlite3_column_int64(s, col);
    }
    int smallInt(int col, const char* name) const
    {
        const long long v = integer(col, name);
        if (v < INT32_MIN || v > INT32_MAX)
            throw InputError(c.path(), field + "." + name, "integer out of range");
        return int(v);
    }
    double real(int col, const char* name) const
    {
        const int t = sqlite3_column_type(s, col);
        if (t != SQLITE_FLOAT && t != SQLITE_INTEGER)
            throw InputError(c.path(), field + "." + name, "expected a number");
        return sqlite3_column_double(s, col);
    }
    QJsonObject json(int col, const char* name) const
    {
        const std::string t = text(col, name);
        try {
            return parseJsonObject(t, c.path());
        } catch (const InputError& e) {
            const std::string where = field + "." + name;
            throw InputError(c.path(), e.field() == "json" ? where : where + "." + e.field(), e.reason());
        }
    }
};

// A document reader's error, re-addressed to the row it came from ("clusters[2].nodes[0].gpus").
template <class F>
auto readDocument(const std::string& path, const std::string& field, F&& read)
{
    try {
        return read();
    } catch (const InputError& e) {
        throw InputError(path, e.field().empty() ? field : field + "." + e.field(), e.reason());
    }
}

// SHA-256 over every row of every table except meta (tables by name, rows by rowid, values with type
// tags): catches damage PRAGMA integrity_check cannot see, such as a changed digit inside a document.
std::string contentHash(const Conn& c);
// fsync a file or a directory (after a rename) so the new content survives a crash.
void syncPath(const std::string& path, bool directory);
// A new, exclusively created temporary file next to `target` (same directory, so rename is atomic),
// "<target>.tmp-XXXXXX". It stays locked (flock) while this object lives, which tells a later save that
// the copy is still being written.
class TempFile {
public:
    explicit TempFile(const std::string& target);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
    int lockFd_ = -1;
};
// Deletes the temporary copies of `target` that saves killed before their rename left behind: files named
// like TempFile's that no live save holds locked. Best effort: what cannot be removed stays.
void removeAbandonedTempFiles(const std::string& target);

} // namespace hetplan::projectdb
