// Metis profiles (SamsungLabs/Metis, USENIX ATC'24; the same files Sailor generates for its Metis baseline):
// one JSON file per (micro-batch B, tensor-parallel degree T), named mbs{B}_tmp{T}.json:
//   { "model": { "num_layers": L, "parameters": { "parameters_per_layer_bytes": [L numbers], ... } },
//     "execution_time": { "layer_compute_total_ms": [L numbers], "optimizer_time_ms": x, ... },
//     "execution_memory": { "layer_memory_total_mb": [L numbers] } }
// The input is a directory of such files (other names are ignored) or a single one.
// * Per-layer compute is forward + backward in milliseconds. Metis does not split it; we take
//   backward = 2 x forward (the backward's two matrix products per forward one, AMP's and Megatron's rule).
// * optimizer_time_ms is the whole model's optimizer step (Metis' meaning). It is imported once, spread over
//   the layers in proportion to their parameter bytes, so a stage pays its parameters' share. (In the files
//   Sailor generates it is the sum of Sailor's per-layer update column, i.e. L x the step: see
//   docs/architecture.md, "Measured profiles".)
// * layer_memory_total_mb is the layer's memory at that micro-batch: model states + one micro-batch of
//   activations (MB = 2^20 bytes). The states are ours to derive (they depend on ZeRO and precision), the
//   activations are the measured part: for a tp measured at two or more micro-batch sizes, the per-sample
//   activation of each layer is the least-squares slope of memory against micro-batch, and each table's
//   LayerTiming::activationBytes = slope x B. A tp measured at one size only leaves them "not measured".
// * Metis files state neither sequence length nor precision: pass them to the import (ImportOptions).
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

struct MetisFile {
    std::string path;
    int mbs = 0, tp = 0;
    std::vector<LayerTiming> layers;
    std::vector<double> memoryBytes; // empty when the file has no execution_memory
};

QJsonObject objectAt(const QJsonObject& o, const char* key, const std::string& file, const std::string& field)
{
    if (!o.value(key).isObject())
        throw InputError(file, field, "missing or not an object");
    return o.value(key).toObject();
}

std::vector<double> numbersAt(const QJsonObject& o, const char* key, int n, const std::string& file,
                              const std::string& field)
{
    const QJsonArray a = o.value(key).toArray();
    if (!o.value(key).isArray())
        throw InputError(file, field, "missing or not an array");
    if (a.size() != n)
        throw InputError(file, field,
                         "has " + std::to_string(a.size()) + " entries, num_layers is " + std::to_string(n));
    std::vector<double> out;
    for (int i = 0; i < n; ++i)
        out.push_back(nonNegativeNumber(a[i], file, field + "[" + std::to_string(i) + "]"));
    return out;
}

int metisLayerCount(const QJsonObject& model, const std::string& file)
{
    const QJsonValue v = model.value("num_layers");
    if (!v.isDouble() || v.toDouble() != double(v.toInt()) || v.toInt() < 1 || v.toInt() > 100000)
        throw InputError(file, "model.num_layers", "must be a positive whole number");
    return v.toInt();
}

void readMetisFile(MetisFile& f)
{
    const QJsonDocument doc = readJsonDocument(f.path);
    if (!doc.isObject())
        throw InputError(f.path, "json", "top level must be an object with model, execution_time");
    const QJsonObject root = doc.object();
    const QJsonObject model = objectAt(root, "model", f.path, "model");
    const int L = metisLayerCount(model, f.path);
    const QJsonObject params = objectAt(model, "parameters", f.path, "model.parameters");
    const std::vector<double> paramBytes =
        numbersAt(params, "parameters_per_layer_bytes", L, f.path, "model.parameters.parameters_per_layer_bytes");
    const QJsonObject time = objectAt(root, "execution_time", f.path, "execution_time");
    const std::vector<double> computeMs =
        numbersAt(time, "layer_compute_total_ms", L, f.path, "execution_time.layer_compute_total_ms");
    const double optimizerMs =
        nonNegativeNumber(time.value("optimizer_time_ms"), f.path, "execution_time.optimizer_time_ms");
    double totalParamBytes = 0;
    for (double b : paramBytes)
        totalParamBytes += b;
    for (int l = 0; l < L; ++l) {
        LayerTiming t;
        t.forward = computeMs[l] / 3 / 1000;
        t.backward = 2 * computeMs[l] / 3 / 1000;
        const double share = totalParamBytes > 0 ? paramBytes[l] / totalParamBytes : 1.0 / L;
        t.update = optimizerMs * share / 1000;
        f.layers.push_back(t);
    }
    if (root.contains("execution_memory")) {
        const QJsonObject mem = objectAt(root, "execution_memory", f.path, "execution_memory");
        f.memoryBytes = numbersAt(mem, "layer_memory_total_mb", L, f.path, "execution_memory.layer_memory_total_mb");
        for (double& b : f.memoryBytes)
            b *= 1024.0 * 1024.0;
    }
}

// mbs{B}_tmp{T}.json -> B, T; false for other names.
bool parseName(const QString& name, int& mbs, int& tp)
{
    static const QRegularExpression re("^mbs([0-9]{1,6})_tmp([0-9]{1,4})\\.json$");
    const QRegularExpressionMatch m = re.match(name);
    if (!m.hasMatch())
        return false;
    mbs = m.captured(1).toInt();
    tp = m.captured(2).toInt();
    return mbs >= 1 && tp >= 1;
}

std::vector<MetisFile> listFiles(const std::string& path)
{
    const QFileInfo info(QString::fromStdString(path));
    if (!info.exists())
        throw InputError(path, "file", "not found");
    QStringList names;
    QDir dir = info.dir();
    if (info.isDir()) {
        dir = QDir(info.filePath());
        names = dir.entryList({"*.json"}, QDir::Files, QDir::Name);
    } else {
        names = {info.fileName()};
    }
    std::vector<MetisFile> files;
    for (const QString& n : names) {
        MetisFile f;
        f.path = dir.filePath(n).toStdString();
        if (parseName(n, f.mbs, f.tp))
            files.push_back(f);
        else if (!info.isDir())
            throw InputError(path, "file", "name must be mbs<B>_tmp<T>.json (micro-batch B, tensor-parallel T)");
    }
    if (files.empty())
        throw InputError(path, "file", "no mbs<B>_tmp<T>.json files in this directory");
    return files;
}

// Least-squares slope of memory against micro-batch for each layer of one tp's files (>= 2 sizes).
std::vector<double> activationPerSample(const std::vector<const MetisFile*>& files)
{
    const size_t L = files.front()->memoryBytes.size();
    double mx = 0;
    for (const MetisFile* f : files)
        mx += f->mbs / double(files.size());
    std::vector<double> slope(L);
    for (size_t l = 0; l < L; ++l) {
        double my = 0, sxy = 0, sxx = 0;
        for (const MetisFile* f : files)
            my += f->memoryBytes[l] / double(files.size());
        for (const MetisFile* f : files) {
            sxy += (f->mbs - mx) * (f->memoryBytes[l] - my);
            sxx += (f->mbs - mx) * (f->mbs - mx);
        }
        slope[l] = std::max(0.0, sxy / sxx);
    }
    return slope;
}

void attachActivations(std::vector<MetisFile>& files)
{
    std::map<int, std::vector<const MetisFile*>> byTp;
    for (const MetisFile& f : files)
        if (!f.memoryBytes.empty())
            byTp[f.tp].push_back(&f);
    for (auto& [tp, group] : byTp) {
        if (group.size() < 2)
            continue;
        const std::vector<double> perSample = activationPerSample(group);
        for (MetisFile& f : files)
            if (f.tp == tp && f.memoryBytes.size() == perSample.size())
                for (size_t l = 0; l < f.layers.size(); ++l)
                    f.layers[l].activationBytes = perSample[l] * f.mbs;
    }
}

} // namespace

Profile importMetis(const std::string& path, const std::string& deviceType)
{
    requireDeviceType(deviceType, path, "metis");
    std::vector<MetisFile> files = listFiles(path);
    for (MetisFile& f : files)
        readMetisFile(f);
    for (const MetisFile& f : files)
        if (f.layers.size() != files.front().layers.size())
            throw InputError(f.path, "model.num_layers",
                             "has " + std::to_string(f.layers.size()) + " layers, " + files.front().path + " has " +
                                 std::to_string(files.front().layers.size()));
    attachActivations(files);
    Profile p;
    p.source = "metis";
    for (MetisFile& f : files)
        p.set(ProfileKey{canonicalDevice(deviceType), f.tp, f.mbs}, std::move(f.layers));
    p.validate(path);
    return p;
}

void registerMetisImporter(ImporterRegistry& registry)
{
    registry.add({{"metis", "Metis profile directory (mbs<B>_tmp<T>.json per micro-batch and tp)", "*.json", ".json"},
                  [](const std::string& path, const ImportOptions& o) { return importMetis(path, o.deviceType); },
                  {.directory = true, .device = true},
                  [](const std::string& path) {
                      // A directory of mbs<B>_tmp<T>.json files, or one such file.
                      const std::string file = "mbs[0-9]+_tmp[0-9]+\\.json";
                      if (importutil::directoryHolds(path, file))
                          return true;
                      const QFileInfo info(QString::fromStdString(path));
                      return info.isFile() && QRegularExpression(QRegularExpression::anchoredPattern(
                                                                     QString::fromStdString(file)))
                                                  .match(info.fileName())
                                                  .hasMatch();
                  }});
}

} // namespace hetplan
