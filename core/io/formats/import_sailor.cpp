// Sailor's per-GPU profile.json: { "<micro-batch>": { "<tp>": { "<layer>": [fwd_s, bwd_s, update_s] } } }.
// Times are seconds already. Sailor's file carries no memory figures (those live in its llm_info.json), so
// activationBytes stays "not measured".
// update_s is not a per-layer figure: Sailor times the whole model's optimizer step once and writes it into
// every layer of a table (all layers carry the same value). Summing it over a stage's layers would charge
// L steps per iteration. We import it once per table, spread evenly over the L layers (update_s / L each),
// so the layers of the whole model add up to one step and a stage pays its share by layer count (the file
// has no parameter counts to weight the share by).
#include "core/io/importers.h"

#include "core/base/errors.h"
#include "core/io/formats/import_util.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <map>

namespace hetplan {

using namespace importutil;

namespace {

int positiveKey(const QString& key, long long min, const std::string& file, const std::string& field)
{
    long long v = 0;
    if (!parseInt(key.toStdString(), v) || v < min || v > 1'000'000'000)
        throw InputError(file, field,
                         "key '" + key.toStdString() + "' is not a " + (min > 0 ? "positive" : "non-negative") +
                             " whole number");
    return static_cast<int>(v);
}

// Every layer holds the same whole-model step (Sailor repeats it); keep it once: step / L per layer. Should
// the values differ, their mean stands for the step.
void spreadWholeModelStep(std::vector<LayerTiming>& table)
{
    double sum = 0;
    bool same = true;
    for (const LayerTiming& t : table) {
        sum += t.update;
        same = same && t.update == table.front().update;
    }
    const double step = same ? table.front().update : sum / double(table.size());
    for (LayerTiming& t : table)
        t.update = step / double(table.size());
}

} // namespace

Profile importSailor(const std::string& path, const std::string& deviceType)
{
    requireDeviceType(deviceType, path, "sailor");
    const QJsonDocument doc = readJsonDocument(path);
    if (!doc.isObject())
        throw InputError(path, "json", "top level must be an object keyed by micro-batch size");
    const QJsonObject root = doc.object();
    if (root.isEmpty())
        throw InputError(path, "json", "no micro-batch sizes");

    Profile p;
    p.source = "sailor";
    for (auto mbIt = root.begin(); mbIt != root.end(); ++mbIt) {
        const std::string mbField = "mbs " + mbIt.key().toStdString();
        const int mbs = positiveKey(mbIt.key(), 1, path, mbField);
        if (!mbIt.value().isObject() || mbIt.value().toObject().isEmpty())
            throw InputError(path, mbField, "expected a non-empty object keyed by tensor-parallel degree");
        const QJsonObject byTp = mbIt.value().toObject();
        for (auto tpIt = byTp.begin(); tpIt != byTp.end(); ++tpIt) {
            const std::string tpField = mbField + ", tp " + tpIt.key().toStdString();
            const int tp = positiveKey(tpIt.key(), 1, path, tpField);
            if (!tpIt.value().isObject() || tpIt.value().toObject().isEmpty())
                throw InputError(path, tpField, "expected a non-empty object keyed by layer index");
            const QJsonObject byLayer = tpIt.value().toObject();

            // JSON object keys come back in text order ("10" before "2"): sort numerically.
            std::map<int, LayerTiming> layers;
            for (auto lIt = byLayer.begin(); lIt != byLayer.end(); ++lIt) {
                const std::string lField = tpField + ", layer " + lIt.key().toStdString();
                const int layer = positiveKey(lIt.key(), 0, path, lField);
                if (layers.count(layer))
                    throw InputError(path, lField, "layer listed twice");
                const QJsonArray a = lIt.value().toArray();
                if (!lIt.value().isArray() || a.size() != 3)
                    throw InputError(path, lField, "expected [forward_s, backward_s, update_s]");
                LayerTiming t;
                t.forward = nonNegativeNumber(a[0], path, lField + ": forward");
                t.backward = nonNegativeNumber(a[1], path, lField + ": backward");
                t.update = nonNegativeNumber(a[2], path, lField + ": update");
                layers[layer] = t;
            }
            std::vector<LayerTiming> table;
            for (const auto& [layer, t] : layers) {
                if (layer != static_cast<int>(table.size()))
                    throw InputError(path, tpField + ", layer " + std::to_string(table.size()),
                                     "missing (layers must be numbered 0..N-1)");
                table.push_back(t);
            }
            spreadWholeModelStep(table);
            p.set(ProfileKey{canonicalDevice(deviceType), tp, mbs}, std::move(table));
        }
    }
    p.validate(path);
    return p;
}

void registerSailorImporter(ImporterRegistry& registry)
{
    registry.add({{"sailor", "Sailor profile JSON ({mbs: {tp: {layer: [fwd_s, bwd_s, update_s]}}})", "*.json", ".json"},
                  [](const std::string& path, const ImportOptions& o) { return importSailor(path, o.deviceType); },
                  {.device = true},
                  [](const std::string& path) {
                      // { "<mbs>": { "<tp>": { "<layer>": [...: three nested objects keyed by integers.
                      static const QRegularExpression start(
                          R"(^\s*\{\s*"[0-9]+"\s*:\s*\{\s*"[0-9]+"\s*:\s*\{\s*"[0-9]+"\s*:\s*\[)");
                      return start.match(QString::fromStdString(importutil::readHead(path, 512))).hasMatch();
                  }});
}

} // namespace hetplan
