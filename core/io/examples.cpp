// Bundled examples: clusters are JSON resources (":/clusters/NAME.json"), models come from the builders.
#include "examples.h"

#include "json_io.h"

#include "core/base/errors.h"

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
