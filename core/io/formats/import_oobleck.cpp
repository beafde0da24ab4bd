// Oobleck's profiler cache directory (SymbioticLab/Oobleck, oobleck/planning/profiler.py), as read from
// its source:
//  - mb{N}.json, one per micro-batch size N: a JSON array with one object per layer,
//      { "forward": ms, "backward": ms, "mem_required": [parameter_bytes, activation_bytes] }.
//    Times are milliseconds (the profiler stores (end_ns - start_ns) / 1e6). Oobleck's profiler fills
//    backward as 3 × forward; we keep whatever the file says. mem_required[0] is the memory the layer's
//    parameters take on the GPU, mem_required[1] the memory still allocated after the layer's forward
//    pass at that micro-batch (its output activation). Oobleck's planner charges a stage
//    6 × mem_required[0] + mem_required[1]; the parameter part is ours to derive from the ModelSpec, so
//    only mem_required[1] is kept, as LayerTiming::activationBytes. Older Oobleck files lack
//    mem_required; then the activation stays "not measured".
//  - allreduce_in_node.json / allreduce_across_nodes.json: a JSON array with one object per layer,
//    { "<number of GPUs or nodes>": ms }. They are validated (shape, keys, non-negative times, one entry
//    per layer) when present, but Profile has no place for collective timings, so nothing is stored:
//    hetplan derives all-reduce times from the cluster's bandwidths instead.
// Oobleck does not use tensor parallelism, so every table is stored with tp = 1.
#include "core/io/importers.h"

#include "core/base/errors.h"
#include "core/io/formats/import_util.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <map>

namespace hetplan {

using namespace importutil;

namespace {

std::vector<LayerTiming> readExecutionFile(const std::string& file)
{
    const QJsonDocument doc = readJsonDocument(file);
    if (!doc.isArray())
        throw InputError(file, "json", "top level must be an array with one object per layer");
    const QJsonArray layers = doc.array();
    if (layers.isEmpty())
        throw InputError(file, "layers", "the array is empty");
    std::vector<LayerTiming> out;
    for (qsizetype i = 0; i < layers.size(); ++i) {
        const std::string at = "[" + std::to_string(i) + "]";
        if (!layers[i].isObject())
            throw InputError(file, at, "expected an object with forward, backward, mem_required");
        const QJsonObject o = layers[i].toObject();
        LayerTiming t;
        t.forward = nonNegativeNumber(o.value("forward"), file, at + ".forward") / 1000.0;
        t.backward = nonNegativeNumber(o.value("backward"), file, at + ".backward") / 1000.0;
        if (o.contains("mem_required")) {
            const QJsonArray mem = o.value("mem_required").toArray();
            if (!o.value("mem_required").isArray() || mem.size() != 2)
                throw InputError(file, at + ".mem_required", "expected [parameter_bytes, activation_bytes]");
            nonNegativeNumber(mem[0], file, at + ".mem_required[0]");
            t.activationBytes = nonNegativeNumber(mem[1], file, at + ".mem_required[1]");
        }
        out.push_back(t);
    }
    return out;
}

// Checks an allreduce_*.json file; returns false if it does not exist.
bool checkAllreduceFile(const std::string& file, size_t layerCount)
{
    if (!QFileInfo::exists(QString::fromStdString(file)))
        return false;
    const QJsonDocument doc = readJsonDocument(file);
    if (!doc.isArray())
        throw InputError(file, "json", "top level must be an array with one object per layer");
    const QJsonArray layers = doc.array();
    if (static_cast<size_t>(layers.size()) != layerCount)
        throw InputError(file, "layers",
                         "has " + std::to_string(layers.size()) + " layers but the mb*.json files have " +
                             std::to_string(layerCount));
    for (qsizetype i = 0; i < layers.size(); ++i) {
        const std::string at = "[" + std::to_string(i) + "]";
        if (!layers[i].isObject())
            throw InputError(file, at, "expected an object { \"<count>\": milliseconds }");
        const QJsonObject o = layers[i].toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const std::string field = at + "." + it.key().toStdString();
            long long n = 0;
            if (!parseInt(it.key().toStdString(), n) || n < 1)
                throw InputError(file, field, "key is not a positive whole number (GPU or node count)");
            nonNegativeNumber(it.value(), file, field);
        }
    }
    return true;
}

} // namespace

Profile importOobleck(const std::string& dir, const std::string& deviceType)
{
    requireDeviceType(deviceType, dir, "oobleck");
    const QDir d(QString::fromStdString(dir));
    if (!d.exists())
        throw InputError(dir, "file", "directory not found");

    // mb{N}.json, N a positive integer; sorted by N for deterministic errors.
    static const QRegularExpression re(QStringLiteral("^mb([0-9]+)\\.json$"));
    std::map<long long, std::string> files;
    for (const QString& name : d.entryList({QStringLiteral("mb*.json")}, QDir::Files)) {
        const auto m = re.match(name);
        if (!m.hasMatch())
            continue;
        long long mbs = 0;
        if (!parseInt(m.captured(1).toStdString(), mbs) || mbs < 1 || mbs > 1'000'000'000)
            throw InputError(d.filePath(name).toStdString(), "file",
                             "micro-batch size in the file name must be positive");
        files[mbs] = d.filePath(name).toStdString();
    }
    if (files.empty())
        throw InputError(dir, "mb*.json", "no Oobleck execution profile (mb<N>.json) in this directory");

    Profile p;
    p.source = "oobleck";
    size_t layerCount = 0;
    for (const auto& [mbs, file] : files) {
        std::vector<LayerTiming> layers = readExecutionFile(file);
        if (layerCount != 0 && layers.size() != layerCount)
            throw InputError(file, "layers",
                             "has " + std::to_string(layers.size()) + " layers but " +
                                 QFileInfo(QString::fromStdString(files.begin()->second)).fileName().toStdString() +
                                 " has " + std::to_string(layerCount));
        layerCount = layers.size();
        p.set(ProfileKey{canonicalDevice(deviceType), 1, static_cast<int>(mbs)}, std::move(layers));
    }
    checkAllreduceFile(d.filePath(QStringLiteral("allreduce_in_node.json")).toStdString(), layerCount);
    checkAllreduceFile(d.filePath(QStringLiteral("allreduce_across_nodes.json")).toStdString(), layerCount);
    p.validate(dir);
    return p;
}

void registerOobleckImporter(ImporterRegistry& registry)
{
    registry.add({{"oobleck", "Oobleck profile directory (mb<N>.json per micro-batch size)", "", ""},
                  [](const std::string& dir, const ImportOptions& o) { return importOobleck(dir, o.deviceType); },
                  {.directory = true, .device = true},
                  [](const std::string& path) { return importutil::directoryHolds(path, "mb[0-9]+\\.json"); }});
}

} // namespace hetplan
