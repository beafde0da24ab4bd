#include "fuzz_entries.h"

#include "core/base/errors.h"
#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "core/io/project_store.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <fstream>
#include <map>
#include <stdexcept>

namespace hetplan::fuzz {

namespace {

// One scratch folder per process, removed at exit; every input overwrites the same paths in it.
const QString& scratchDir()
{
    static QTemporaryDir dir(QDir::tempPath() + "/hetplan-fuzz-XXXXXX");
    static const QString path = dir.path(); // path() returns a copy: keep one to hand out references to
    if (!dir.isValid())
        throw std::runtime_error("fuzz: cannot create a scratch folder under " + QDir::tempPath().toStdString());
    return path;
}

std::string writeScratchFile(const QString& path, const char* data, std::size_t size)
{
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    out.write(data, std::streamsize(size));
    if (!out.flush())
        throw std::runtime_error("fuzz: cannot write " + path.toStdString());
    return path.toStdString();
}

std::string writeInput(const std::uint8_t* data, std::size_t size, const QString& name = "input")
{
    return writeScratchFile(scratchDir() + "/" + name, reinterpret_cast<const char*>(data), size);
}

// A fresh folder holding the files of one multi-file input (splitFiles).
std::string writeInputDir(const std::uint8_t* data, std::size_t size, const std::string& firstName)
{
    QDir dir(scratchDir() + "/input.d");
    dir.removeRecursively();
    if (!QDir().mkpath(dir.path()))
        throw std::runtime_error("fuzz: cannot create " + dir.path().toStdString());
    for (const InputFile& f : splitFiles(std::string(reinterpret_cast<const char*>(data), size), firstName))
        writeScratchFile(dir.filePath(QString::fromStdString(f.name)), f.bytes.data(), f.bytes.size());
    return dir.path().toStdString();
}

// What was read must survive writing and reading again unchanged (the GUI and the project store rely on it).
template <typename T, typename Read>
void requireRoundTrip(const T& value, Read read, const char* what)
{
    const QJsonObject written = toJson(value);
    QJsonObject again;
    try {
        again = toJson(read(written));
    } catch (const InputError& e) {
        throw std::logic_error(std::string("fuzz: ") + what + " written back is refused: " + e.what());
    }
    if (again != written)
        throw std::logic_error(std::string("fuzz: ") + what + " changes when written and read again");
}

void fuzzCluster(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput(data, size);
    try {
        const Cluster c = readCluster(path);
        requireRoundTrip(c, [&](const QJsonObject& o) { return clusterFromJson(o, path); }, "cluster");
    } catch (const InputError&) {
    }
}

void fuzzModel(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput(data, size);
    try {
        const ModelSpec m = readModel(path);
        requireRoundTrip(m, [&](const QJsonObject& o) { return modelFromJson(o, path); }, "model");
    } catch (const InputError&) {
    }
}

void fuzzJob(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput(data, size);
    try {
        const Job j = readJob(path);
        requireRoundTrip(j, [&](const QJsonObject& o) { return jobFromJson(o, path); }, "job");
    } catch (const InputError&) {
    }
}

void fuzzPlan(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput(data, size);
    try {
        const Plan p = readPlan(path);
        requireRoundTrip(p, [&](const QJsonObject& o) { return planFromJson(o, path); }, "plan");
    } catch (const InputError&) {
    }
}

// The project opener as the GUI uses it: a cheap probe first, then the full load. Both must leave the
// file alone (the opener is read-only), which the size and bytes check below enforces.
void fuzzProject(const std::uint8_t* data, std::size_t size)
{
    for (const char* side : {"-journal", "-wal", "-shm"}) // each input starts without a previous one's side files
        QFile::remove(scratchDir() + "/input.hetplan" + side);
    const std::string path = writeInput(data, size, "input.hetplan");
    probeProject(path);
    try {
        loadProject(path);
    } catch (const InputError&) {
    }
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly) || f.readAll() != QByteArray(reinterpret_cast<const char*>(data), qsizetype(size)))
        throw std::logic_error("fuzz: opening a project changed the file");
}

// The profile formats, through the registry (the CLI's `import` and the GUI's import dialog go this way).
void fuzzProfile(const ImportFormat& format, const std::uint8_t* data, std::size_t size)
{
    const std::string path = format.needs.directory
                                 ? writeInputDir(data, size, format.name == "oobleck" ? "mb1.json" : "mbs1_tmp1.json")
                                 : writeInput(data, size);
    // The defaults, then each boolean option of the format turned on (amp-npy's GPT-2 folding).
    std::vector<std::map<std::string, std::string>> variants{{}};
    for (const OptionDecl& o : format.options)
        if (o.type == OptionType::Bool)
            variants.push_back({{o.key, "true"}});
    ImportOptions options;
    options.deviceType = "A100-40GB";
    for (const auto& params : variants) {
        options.params = params;
        try {
            const Profile p = importProfile(format.name, path, options);
            requireRoundTrip(p, [&](const QJsonObject& o) { return profileFromJson(o, path); }, "profile");
        } catch (const InputError&) {
        }
    }
}

bool keepNameChar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

} // namespace

std::vector<InputFile> splitFiles(const std::string& input, const std::string& firstName)
{
    constexpr std::size_t kMaxFiles = 32;       // named files; keeps one input's folder small
    constexpr std::size_t kMaxNameLength = 100; // well below any file system's limit on a name
    std::string leading;                  // bytes before the first "===" line
    std::vector<InputFile> files;
    for (std::size_t pos = 0; pos < input.size();) {
        const std::size_t end = input.find('\n', pos);
        const std::size_t next = end == std::string::npos ? input.size() : end + 1;
        const std::string line = input.substr(pos, next - pos);
        pos = next;
        if (line.rfind("=== ", 0) == 0 && files.size() < kMaxFiles) {
            std::string name;
            for (char c : line.substr(4))
                if (keepNameChar(c) && name.size() < kMaxNameLength)
                    name += c;
            files.push_back({name.empty() || name == "." || name == ".." ? "unnamed" : name, {}});
        } else {
            (files.empty() ? leading : files.back().bytes) += line;
        }
    }
    if (!leading.empty())
        files.insert(files.begin(), {firstName, leading});
    return files;
}

const std::vector<Target>& targets()
{
    static const std::vector<Target> all = [] {
        std::vector<Target> t{{"cluster", fuzzCluster},
                              {"model", fuzzModel},
                              {"job", fuzzJob},
                              {"plan", fuzzPlan},
                              {"project", fuzzProject}};
        for (const ImportFormat& f : ImporterRegistry::instance().formats())
            t.push_back({"profile-" + f.name,
                         [&f](const std::uint8_t* data, std::size_t size) { fuzzProfile(f, data, size); }});
        return t;
    }();
    return all;
}

const Target* findTarget(const std::string& name)
{
    for (const Target& t : targets())
        if (t.name == name)
            return &t;
    return nullptr;
}

} // namespace hetplan::fuzz
