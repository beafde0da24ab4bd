#include "costmodel.h"

#include "core/model/errors.h"

namespace hetplan {

CostModel::CostModel(const ModelSpec& model, const Job& job, const Profile& measured, const DeviceCatalog& catalog)
    : model_(model), job_(job), measured_(measured), catalog_(catalog)
{
    // A measured profile for a different layer count cannot belong to this model: refuse it early.
    if (!measured_.empty() && measured_.layerCount() != model_.layerCount())
        throw InputError(measured_.source.empty() ? "profile" : measured_.source, "layers",
                         "profile has " + std::to_string(measured_.layerCount()) + " layers, model '" + model_.name +
                             "' has " + std::to_string(model_.layerCount()));
}

const DeviceType& CostModel::device(const std::string& name) const
{
    const DeviceType* d = catalog_.find(name);
    if (!d)
        throw InputError("catalog", "device", "unknown device type '" + name + "'");
    return *d;
}

LayerTiming CostModel::layer(int layer, const std::string& deviceName, int tp, double microBatch) const
{
    if (auto m = measured_.lookup(layer, deviceName, tp, microBatch))
        return *m;
    return analyticLayerTiming(model_.layers[layer], device(deviceName), tp, microBatch, job_);
}

LayerTiming CostModel::range(int first, int end, const std::string& deviceName, int tp, double microBatch) const
{
    LayerTiming sum;
    sum.activationBytes = 0;
    for (int l = first; l < end; ++l) {
        LayerTiming t = layer(l, deviceName, tp, microBatch);
        sum.forward += t.forward;
        sum.backward += t.backward;
        sum.update += t.update;
        if (t.activationBytes < 0 || sum.activationBytes < 0)
            sum.activationBytes = -1;
        else
            sum.activationBytes += t.activationBytes;
    }
    return sum;
}

std::vector<LayerTiming> CostModel::layers(const std::string& deviceName, int tp, double microBatch) const
{
    std::vector<LayerTiming> out(model_.layers.size());
    for (int l = 0; l < model_.layerCount(); ++l)
        out[l] = layer(l, deviceName, tp, microBatch);
    return out;
}

} // namespace hetplan
