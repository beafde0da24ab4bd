// Bundled examples: clusters are JSON resources (":/clusters/NAME.json"), models come from the builders.
#include "examples.h"

#include "json_io.h"

#include "core/base/errors.h"
#include "core/cost/analytic.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

namespace hetplan {

namespace {

const std::string kPrefix = "example:";

std::string joined(const std::vector<std::string>& names)
{
    std::string s;
    for (const std::string& n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

bool isExampleSpec(const std::string& spec) { return spec.rfind(kPrefix, 0) == 0; }

} // namespace

std::vector<std::string> exampleClusterNames()
{
    std::vector<std::string> names;
    const QStringList files =
        QDir(QStringLiteral(":/clusters")).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString& f : files)
        names.push_back(f.chopped(5).toStdString()); // drop ".json"
    std::sort(names.begin(), names.end());
    return names;
}

Cluster exampleCluster(const std::string& name)
{
    const std::vector<std::string> known = exampleClusterNames();
    if (std::find(known.begin(), known.end(), name) == known.end())
        throw InputError(kPrefix + name, "example",
                         "unknown example cluster '" + name + "' (known: " + joined(known) + ")");
    const std::string path = ":/clusters/" + name + ".json";
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(path, "", "cannot open the bundled example");
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw InputError(path, "", "not a JSON object: " + err.errorString().toStdString());
    return clusterFromJson(doc.object(), path);
}

std::vector<ExampleClusterInfo> exampleClusterInfos()
{
    std::vector<ExampleClusterInfo> out;
    for (const std::string& name : exampleClusterNames()) {
        const Cluster c = exampleCluster(name);
        out.push_back({name, c.description, c.gpuCount()});
    }
    return out;
}

Cluster loadCluster(const std::string& spec)
{
    if (!isExampleSpec(spec))
        return readCluster(spec);
    const std::string name = spec.substr(kPrefix.size());
    const std::vector<std::string> known = exampleClusterNames();
    if (std::find(known.begin(), known.end(), name) == known.end())
        throw InputError(spec, "example", "unknown example '" + name + "' (known: " + joined(known) + ")");
    return exampleCluster(name);
}

ModelSpec loadModel(const std::string& spec, int sequence)
{
    if (!isExampleSpec(spec)) {
        // A model file carries its own per-sample sizes; they cannot be rescaled to another sequence length
        // without the architecture, so `sequence` only applies to the built-in examples.
        return readModel(spec);
    }
    const std::string name = spec.substr(kPrefix.size());
    const std::vector<std::string> known = exampleModelNames();
    if (std::find(known.begin(), known.end(), name) == known.end())
        throw InputError(spec, "example", "unknown example '" + name + "' (known: " + joined(known) + ")");
    if (sequence < 0)
        throw InputError(spec, "sequence", "must not be negative (0 = the model's default)");
    return buildExampleModel(name, sequence);
}

} // namespace hetplan

namespace hetplan {

namespace {
// Ditto fig. 8: gpt2-xl throughput relative to a V100.
const std::vector<std::pair<std::string, double>> kDittoThroughput = {
    {"V100-16GB", 1.0}, {"RTX-3090", 2.0}, {"RTX-A6000", 2.95}, {"RTX-4090", 3.8}, {"A100-80GB-PCIe", 5.99}};
} // namespace

std::vector<std::string> exampleProfileNames() { return {"gpt2-xl-ditto"}; }

Profile exampleProfile(const std::string& name, const ModelSpec& model, const Job& job)
{
    if (name != "gpt2-xl-ditto")
        throw InputError(kPrefix + name, "example",
                         "unknown example profile '" + name + "' (known: " + joined(exampleProfileNames()) + ")");
    if (model.name != "gpt2-xl")
        throw InputError(kPrefix + name, "model",
                         "the profile is for gpt2-xl, the plan's model is '" + model.name + "'");
    const DeviceCatalog& catalog = DeviceCatalog::builtin();
    const Profile base = generateAnalyticProfile(model, {*catalog.find("RTX-4090")}, {1}, {1, 2, 4, 8, 16}, job);
    Profile out;
    out.model = model.name;
    out.source = "ditto";
    out.sequenceLength = job.sequenceLength;
    out.precision = job.precision;
    for (const auto& [device, throughput] : kDittoThroughput)
        for (const auto& [key, table] : base.tables()) {
            std::vector<LayerTiming> scaled = table;
            const double factor = 3.8 / throughput;
            for (LayerTiming& t : scaled) {
                t.forward *= factor;
                t.backward *= factor;
                t.update *= factor;
            }
            out.set({device, key.tp, key.microBatch}, scaled);
        }
    return out;
}

Profile loadProfile(const std::string& spec, const ModelSpec& model, const Job& job)
{
    if (isExampleSpec(spec))
        return exampleProfile(spec.substr(kPrefix.size()), model, job);
    return readProfile(spec);
}

} // namespace hetplan
