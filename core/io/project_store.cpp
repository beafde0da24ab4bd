// SQLite project store (see project_store.h for the file layout). Uses the SQLite C API directly: one
// private connection per call, so it is safe to use from any thread and needs no QtSql connection names.
#include "project_store.h"

#include "json_io.h"
#include "project_sqlite.h"
#include "project_store_read.h"
#include "project_store_write.h"

#include "core/base/errors.h"
#include "core/base/quote.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QString>

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan {

namespace {

using namespace projectdb;
constexpr int kSchemaVersion = 1;

// ---------------------------------------------------------------- schema and migrations

// Version 1. Positions keep the Project's vector order; names are repeated from the documents so outside
// tools can query them.
const char* const kSchemaV1 = R"sql(
CREATE TABLE clusters (position INTEGER PRIMARY KEY, name TEXT NOT NULL, document TEXT NOT NULL);
CREATE TABLE models   (position INTEGER PRIMARY KEY, name TEXT NOT NULL, document TEXT NOT NULL);
CREATE TABLE profiles (model_position INTEGER PRIMARY KEY REFERENCES models(position),
                       model TEXT NOT NULL, source TEXT NOT NULL, document TEXT NOT NULL);
CREATE TABLE jobs     (position INTEGER PRIMARY KEY, name TEXT NOT NULL, document TEXT NOT NULL);
CREATE TABLE runs     (position INTEGER PRIMARY KEY, id INTEGER NOT NULL, cluster TEXT NOT NULL,
                       model TEXT NOT NULL, job TEXT NOT NULL, started TEXT NOT NULL);
CREATE TABLE run_results (run_position INTEGER NOT NULL REFERENCES runs(position), position INTEGER NOT NULL,
                       planner TEXT NOT NULL, options TEXT NOT NULL, status TEXT NOT NULL,
                       message TEXT NOT NULL, duration_seconds REAL NOT NULL, plan TEXT,
                       PRIMARY KEY (run_position, position));
CREATE TABLE meta     (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE INDEX clusters_by_name ON clusters(name);
CREATE INDEX models_by_name ON models(name);
CREATE INDEX jobs_by_name ON jobs(name);
CREATE INDEX runs_by_id ON runs(id);
)sql";

// One forward step from schema version `from` to from + 1. Applied in order, inside one transaction each,
// to an in-memory copy of the file being loaded.
struct Migration {
    int from;
    const char* what;
    const char* sql;
};

// Version 0 is the bare file: SQLite with the hetplan application_id stamped and no tables yet (what an
// empty project looks like before the first schema existed, or after `PRAGMA application_id` by hand).
const Migration kMigrations[] = {
    {0, "create the version 1 tables", kSchemaV1},
};

// ---------------------------------------------------------------- opening for reading

// A file cut short (a copy that stopped, a full disk) is named as such: SQLite would read the missing
// pages as empty and report something less clear. The header gives the page size (offset 16) and, when
// its "version valid for" (92) matches the change counter (24), the page count (28).
void checkWholePages(const std::string& path, const unsigned char* head, std::streamsize got)
{
    const auto be = [head](int at, int bytes) {
        unsigned long long v = 0;
        for (int i = 0; i < bytes; ++i)
            v = (v << 8) | head[at + i];
        return v;
    };
    if (got < 100)
        throw InputError(path, "file", "is truncated: " + std::to_string(got) + " bytes, shorter than the header");
    const unsigned long long pageSize = be(16, 2) == 1 ? 65536 : be(16, 2);
    const long long size = static_cast<long long>(std::filesystem::file_size(path));
    const bool countValid = be(92, 4) == be(24, 4) && be(28, 4) > 0;
    const unsigned long long expected = countValid ? be(28, 4) * pageSize : 0;
    if (pageSize >= 512 && (size % static_cast<long long>(pageSize) != 0 ||
                            (countValid && static_cast<unsigned long long>(size) < expected)))
        throw InputError(path, "file",
                         "is truncated: " + std::to_string(size) + " bytes" +
                             (countValid ? ", its header says " + std::to_string(expected) : std::string()) +
                             " (pages of " + std::to_string(pageSize) + " bytes)");
}

// Checks the file before SQLite sees it, for clear messages (and so an empty file is not taken for an
// empty database). Returns whether the database is in WAL mode (header bytes 18 and 19 are 2).
bool checkHeader(const std::string& path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status))
        throw InputError(path, "file", "does not exist");
    if (!std::filesystem::is_regular_file(status))
        throw InputError(path, "file", "is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "file", "cannot be read: " + std::string(std::strerror(errno)));
    unsigned char head[100] = {};
    in.read(reinterpret_cast<char*>(head), sizeof head);
    const auto got = in.gcount();
    if (got == 0)
        throw InputError(path, "file", "is empty, not a hetplan project");
    if (got < 16 || std::memcmp(head, "SQLite format 3", 16) != 0)
        throw InputError(path, "file", "file is not a database (not an SQLite file, so not a hetplan project)");
    checkWholePages(path, head, got);
    return head[18] == 2 || head[19] == 2;
}

long long fileSize(const std::string& path)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? -1 : static_cast<long long>(size);
}

// SQLite's side files. hetplan never leaves them (it saves a finished copy and renames it); another program
// that edited the file may have. Reading past them would need to write (roll back a journal, build a WAL
// index), and projects are opened read-only, so the user is told what is there instead.
void checkSideFiles(const std::string& path, bool wal)
{
    const std::string name = std::filesystem::path(path).filename().string();
    // A hot rollback journal starts with this magic; a persisted, finished one has it zeroed.
    static const unsigned char kJournalMagic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
    const std::string journal = path + "-journal";
    if (fileSize(journal) > 0) {
        std::ifstream in(journal, std::ios::binary);
        char magic[8] = {};
        in.read(magic, sizeof magic);
        if (in.gcount() == 8 && std::memcmp(magic, kJournalMagic, 8) == 0)
            throw InputError(path, "file",
                             "another program was interrupted while changing it: " + quotedInput(name + "-journal") +
                                 " beside it holds the unfinished change. Open the file once with that program "
                                 "or with sqlite3 (either rolls the change back), then open it here again");
    }
    if (wal && fileSize(path + "-wal") > 0)
        throw InputError(path, "file",
                         "is in WAL mode and " + quotedInput(name + "-wal") +
                             " beside it holds changes not yet written into it (another program has it open or was "
                             "interrupted): close that program, or run sqlite3 on it with 'PRAGMA "
                             "wal_checkpoint(TRUNCATE)', then open it here again");
}

// "file:" URI of `path` with every byte outside the unreserved set percent-encoded.
std::string fileUri(const std::string& path)
{
    static const char hex[] = "0123456789ABCDEF";
    std::string uri = "file:";
    for (unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
            uri += char(c);
        } else {
            uri += '%';
            uri += hex[c >> 4];
            uri += hex[c & 15];
        }
    }
    return uri;
}

// Opens the project for reading. A WAL-mode file is opened immutable: with no -wal content to read (checked
// above), SQLite would otherwise create "-wal" and "-shm" files beside it just to read it.
Conn openReadOnly(const std::string& path, bool wal)
{
    sqlite3* raw = nullptr;
    const std::string name = wal ? fileUri(path) + "?immutable=1" : path;
    const int rc = sqlite3_open_v2(name.c_str(), &raw,
                                   SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (wal ? SQLITE_OPEN_URI : 0), nullptr);
    Db db(raw);
    if (rc != SQLITE_OK)
        throw InputError(path, "file", "cannot be opened: " + sqliteReason(raw, rc));
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    Conn c(std::move(db), path);
    c.exec("PRAGMA query_only = 1; PRAGMA cell_size_check = 1;", "file");
    return c;
}

// The checks every read starts with: header, side files, then a read-only connection.
Conn openForReading(const std::string& path)
{
    const bool wal = checkHeader(path);
    checkSideFiles(path, wal);
    return openReadOnly(path, wal);
}

struct Header {
    long long applicationId = 0, userVersion = 0;
};

Header readIdentity(const Conn& c)
{
    Header h;
    h.applicationId = c.pragmaInt("application_id");
    h.userVersion = c.pragmaInt("user_version");
    return h;
}

std::string hex32(long long v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v) & 0xffffffffull);
    return buf;
}

void checkIdentity(const Conn& c, const Header& h)
{
    if (h.applicationId != kProjectApplicationId)
        throw InputError(c.path(), "application_id",
                         "not a hetplan project (SQLite database with application id " + hex32(h.applicationId) + ")");
    if (h.userVersion > kSchemaVersion)
        throw InputError(c.path(), "user_version",
                         "made by a newer hetplan (schema " + std::to_string(h.userVersion) + " > " +
                             std::to_string(kSchemaVersion) + "); update hetplan to open it");
    if (h.userVersion < 0)
        throw InputError(c.path(), "user_version", "invalid schema version " + std::to_string(h.userVersion));
}

void checkIntegrity(const Conn& c)
{
    Stmt s = c.prepare("PRAGMA integrity_check(10)", "integrity_check");
    std::string problems;
    while (c.step(s.get(), "integrity_check")) {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
        const std::string line = p ? p : "";
        if (line == "ok")
            continue;
        problems += (problems.empty() ? "" : "; ") + line;
    }
    if (!problems.empty())
        throw InputError(c.path(), "integrity_check", "file is damaged: " + problems);
}

void checkContentHash(const Conn& c)
{
    std::string stored;
    {
        Stmt s = c.prepare("SELECT value FROM meta WHERE key = 'content_sha256'", "meta");
        if (!c.step(s.get(), "meta") || sqlite3_column_type(s.get(), 0) != SQLITE_TEXT)
            throw InputError(c.path(), "meta.content_sha256", "missing: file is damaged or not written by hetplan");
        stored = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
    }
    if (stored != contentHash(c))
        throw InputError(c.path(), "meta.content_sha256",
                         "content does not match its checksum: file is damaged or was edited outside hetplan");
}

// The schema rows (type, name, table, SQL) of a database, in a stable order.
using SchemaRows = std::vector<std::array<std::string, 4>>;
SchemaRows schemaRows(const Conn& c)
{
    SchemaRows rows;
    Stmt s = c.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name", "schema");
    while (c.step(s.get(), "schema")) {
        std::array<std::string, 4> row;
        for (int i = 0; i < 4; ++i) {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), i));
            row[size_t(i)] = p ? p : "";
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// What a file of schema version 1 holds in sqlite_schema: kSchemaV1 run on an empty database.
const SchemaRows& expectedSchemaV1()
{
    static const SchemaRows rows = [] {
        sqlite3* raw = nullptr;
        sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
        Conn mem(Db(raw), ":memory:");
        mem.exec(kSchemaV1, "schema");
        return schemaRows(mem);
    }();
    return rows;
}

// Only the app's own schema is read: anything else in sqlite_schema (a generated column, an extra table,
// a trigger, a view, a changed column) could make reading rows arbitrarily slow or run SQL, so it is refused
// before any row is read. Version 0 (a bare file) holds nothing.
void checkSchema(const Conn& c, const Header& h)
{
    const SchemaRows rows = schemaRows(c);
    static const SchemaRows none;
    const SchemaRows& expected = h.userVersion == 0 ? none : expectedSchemaV1();
    if (rows == expected)
        return;
    for (const auto& row : rows)
        if (std::find(expected.begin(), expected.end(), row) == expected.end())
            throw InputError(c.path(), "schema",
                             "not the schema hetplan writes: unexpected " + row[0] + " " + quotedInput(row[1]) +
                                 " (file is damaged or was edited outside hetplan)");
    for (const char* type : {"table", "index"}) // a dropped table takes its indexes along: name the table
        for (const auto& row : expected)
            if (row[0] == type && std::find(rows.begin(), rows.end(), row) == rows.end())
                throw InputError(c.path(), row[1], row[0] + " missing: file is damaged or not written by hetplan");
    throw InputError(c.path(), "schema", "not the schema hetplan writes (file is damaged or was edited outside hetplan)");
}

// The older file copied into memory and migrated there; the file on disk stays as it was.
Conn migrateInMemory(const Conn& file, int fromVersion)
{
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    Conn mem(Db(raw), file.path());
    if (rc != SQLITE_OK)
        mem.fail("migration", rc);
    sqlite3_backup* b = sqlite3_backup_init(raw, "main", file.get(), "main");
    if (!b)
        mem.fail("migration", sqlite3_errcode(raw));
    sqlite3_backup_step(b, -1);
    const int brc = sqlite3_backup_finish(b);
    if (brc != SQLITE_OK)
        mem.fail("migration", brc);
    for (int v = fromVersion; v < kSchemaVersion; ++v) {
        const Migration* m = nullptr;
        for (const Migration& cand : kMigrations)
            if (cand.from == v)
                m = &cand;
        if (!m)
            throw InputError(file.path(), "user_version", "no migration from schema " + std::to_string(v));
        const std::string field = "migration " + std::to_string(v) + "->" + std::to_string(v + 1);
        try {
            mem.exec("BEGIN", field);
            mem.exec(m->sql, field);
            mem.exec(("PRAGMA user_version = " + std::to_string(v + 1)).c_str(), field);
            mem.exec("COMMIT", field);
        } catch (const InputError& e) {
            throw InputError(e.file(), e.field(), "cannot " + std::string(m->what) + ": " + e.reason());
        }
    }
    return mem;
}

void requireTables(const Conn& c)
{
    for (const char* t : {"clusters", "models", "profiles", "jobs", "runs", "run_results", "meta"}) {
        Stmt s = c.prepare("SELECT type FROM sqlite_schema WHERE name = ?1", "schema");
        sqlite3_bind_text(s.get(), 1, t, -1, SQLITE_STATIC);
        const bool found = c.step(s.get(), "schema");
        if (!found || std::strcmp(reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0)), "table") != 0)
            throw InputError(c.path(), t, "table missing: file is damaged or not written by hetplan");
    }
}

Project readProject(const Conn& c)
{
    requireTables(c);
    Project p;
    readProjectTables(c, p);
    return p;
}

// ---------------------------------------------------------------- writing

std::mutex hookMutex;
std::function<void(const std::string&)> saveHook;

void hook(const std::string& stage)
{
    std::function<void(const std::string&)> h;
    {
        std::lock_guard lock(hookMutex);
        h = saveHook;
    }
    if (h)
        h(stage);
}

} // namespace

int projectSchemaVersion() { return kSchemaVersion; }

Project loadProject(const std::string& path, ProjectSelection* selection)
{
    Conn file = openForReading(path);
    const Header h = readIdentity(file);
    checkIdentity(file, h);
    checkSchema(file, h);
    checkIntegrity(file);
    if (h.userVersion >= 1)
        checkContentHash(file);
    const auto read = [selection](const Conn& c) {
        Project p = readProject(c);
        if (selection)
            *selection = readSelection(c);
        return p;
    };
    if (h.userVersion < kSchemaVersion)
        return read(migrateInMemory(file, int(h.userVersion)));
    return read(file);
}

void saveProject(const Project& project, const std::string& requestedPath, const ProjectSelection& selection)
{
    // Saving through a symbolic link replaces the file it points to, not the link.
    std::string path = requestedPath;
    {
        std::error_code ec;
        if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec))) {
            const auto resolved = std::filesystem::weakly_canonical(path, ec);
            if (!ec)
                path = resolved.string();
        }
        const auto st = std::filesystem::status(path, ec);
        if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
            throw InputError(requestedPath, "file", "cannot be saved: not a regular file");
    }

    removeAbandonedTempFiles(path);
    const TempFile tempFile(path);
    const std::string& tmp = tempFile.path();
    struct Cleanup {
        std::string file;
        bool keep = false;
        ~Cleanup()
        {
            if (!keep)
                ::unlink(file.c_str());
        }
    } cleanup{tmp};

    try {
        struct stat old {};
        if (::stat(path.c_str(), &old) == 0)
            ::chmod(tmp.c_str(), old.st_mode & 07777); // keep the existing file's permissions

        sqlite3* raw = nullptr;
        const int rc = sqlite3_open_v2(tmp.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
        Conn c(Db(raw), tmp);
        if (rc != SQLITE_OK)
            c.fail("file", rc);
        sqlite3_extended_result_codes(raw, 1);
        // The temporary file is thrown away on any failure, so no on-disk journal is needed; the one
        // fsync below makes the finished file durable before the rename.
        c.exec("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;", "file");
        hook("opened");
        writeProject(c, project, selection, kSchemaVersion, kSchemaV1, hook);
        hook("written");
        c.close();
        syncPath(tmp, false);
        hook("synced");
    } catch (const InputError& e) {
        throw InputError(requestedPath, e.field(), "cannot be saved: " + e.reason());
    }

    // Read the copy back through the loader before it replaces anything: a project we could not open
    // again is never written over the previous one.
    try {
        (void)loadProject(tmp);
    } catch (const InputError& e) {
        throw InputError(requestedPath, e.field(), "not saved, the written copy does not load back: " + e.reason());
    }
    hook("before-rename");
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw InputError(requestedPath, "file",
                         "cannot be saved: cannot replace the file: " + std::string(std::strerror(errno)));
    cleanup.keep = true;
    // Make the rename itself durable.
    syncPath(std::filesystem::path(path).parent_path().empty() ? std::string(".")
                                                               : std::filesystem::path(path).parent_path().string(),
             true);
}

ProjectInfo probeProject(const std::string& path)
{
    ProjectInfo info;
    std::error_code ec;
    info.exists = std::filesystem::exists(path, ec);
    try {
        const bool wal = checkHeader(path);
        info.isSqlite = true;
        checkSideFiles(path, wal);
        Conn c = openReadOnly(path, wal);
        const Header h = readIdentity(c);
        info.isProject = h.applicationId == kProjectApplicationId;
        info.schemaVersion = int(h.userVersion);
        checkIdentity(c, h);
        checkSchema(c, h);
        if (h.userVersion >= 1) {
            auto count = [&](const char* table) {
                Stmt s = c.prepare(std::string("SELECT count(*) FROM ") + table, table);
                return c.step(s.get(), table) ? int(sqlite3_column_int64(s.get(), 0)) : 0;
            };
            info.clusters = count("clusters");
            info.models = count("models");
            info.jobs = count("jobs");
            info.runs = count("runs");
        }
        info.ok = true;
    } catch (const InputError& e) {
        info.reason = e.reason();
    } catch (const std::exception& e) {
        info.reason = e.what();
    }
    return info;
}

namespace testing {
void setProjectSaveHook(std::function<void(const std::string& stage)> h)
{
    std::lock_guard lock(hookMutex);
    saveHook = std::move(h);
}
} // namespace testing

} // namespace hetplan
