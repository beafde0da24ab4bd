#include "costmodel.h"

#include "core/base/errors.h"

#include <algorithm>

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

double CostModel::tpLinkDelta(int first, int end, const std::string& deviceName, int tp, double microBatch,
                              const LinkParams& link) const
{
    if (tp <= 1)
        return 0;
    const DeviceType& d = device(deviceName);
    const LinkParams assumed = analyticTpLink(d);
    const bool measured = isMeasured(deviceName, tp);
    double delta = 0;
    for (int l = first; l < end; ++l) {
        const LayerSpec& s = model_.layers[l];
        if (!s.tensorParallel || s.tpAllReduceBytes <= 0)
            continue;
        const double bytes = s.tpAllReduceBytes * microBatch * job_.activationScale();
        const double d1 = ringAllReduce(bytes, tp, link) - ringAllReduce(bytes, tp, assumed);
        delta += measured ? std::max(0.0, d1) : d1;
    }
    return delta;
}

LayerTiming CostModel::range(int first, int end, const std::string& deviceName, int tp, double microBatch,
                             const LinkParams& link) const
{
    LayerTiming t = range(first, end, deviceName, tp, microBatch);
    const double delta = tpLinkDelta(first, end, deviceName, tp, microBatch, link);
    t.forward += delta;
    t.backward += delta;
    return t;
}

std::vector<LayerTiming> CostModel::layers(const std::string& deviceName, int tp, double microBatch) const
{
    std::vector<LayerTiming> out(model_.layers.size());
    for (int l = 0; l < model_.layerCount(); ++l)
        out[l] = layer(l, deviceName, tp, microBatch);
    return out;
}

} // namespace hetplan
