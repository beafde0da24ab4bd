#include "costmodel.h"

#include <cmath>
#include <sstream>

#include "memory.h"

#include "core/base/errors.h"

#include <algorithm>

namespace hetplan {

double sequenceTimeScale(const ModelSpec& model, int layer, double fromSequence, double toSequence)
{
    const LayerSpec& l = model.layers[layer];
    const double sm = model.arch.sequence > 0 ? model.arch.sequence : toSequence;
    const bool attention = (l.kind == LayerKind::Transformer || l.kind == LayerKind::MoE) && model.arch.hidden > 0;
    const double quadratic = attention ? std::min(l.forwardFlops, 4.0 * sm * sm * model.arch.hidden) : 0.0;
    const double linear = l.forwardFlops - quadratic;
    auto flops = [&](double s) { return linear * (s / sm) + quadratic * (s / sm) * (s / sm); };
    const double from = flops(fromSequence);
    return from > 0 ? flops(toSequence) / from : toSequence / fromSequence;
}

std::vector<std::string> modelWarnings(const ModelSpec& model)
{
    int count = 0;
    std::string first;
    for (const LayerSpec& l : model.layers) {
        const bool timed = l.kind == LayerKind::Transformer || l.kind == LayerKind::MoE || l.kind == LayerKind::Head;
        if (timed && l.forwardFlops > 0 && l.matmuls.empty()) {
            if (count++ == 0)
                first = l.name;
        }
    }
    std::vector<std::string> w;
    if (count > 0)
        w.push_back("model '" + model.name + "': " + std::to_string(count) + " layer(s) (first: '" + first +
                    "') have no work list (matmuls) and the model's arch does not give the sizes (hidden, heads, "
                    "ffn, sequence) to derive one: their analytic times come from FLOPs alone, a rule not "
                    "calibrated against measurements");
    if (model.headHoldsVocabularyMatrix()) {
        const std::string matrix = std::to_string(std::llround(model.arch.wordEmbeddingParams()));
        if (!model.arch.tiedEmbeddingsStated)
            w.push_back("model '" + model.name + "': arch.tied_embeddings is not given and the head carries its own " +
                        matrix +
                        "-parameter vocabulary matrix: read as untied (the head's matrix counted once, in "
                        "the head" +
                        (familyTiesEmbeddings(model.arch.family)
                             ? std::string(", although family '") + model.arch.family + "' usually ties it"
                             : std::string()) +
                        "); set tied_embeddings to say which");
        else if (model.arch.tiedEmbeddings)
            w.push_back("model '" + model.name + "': arch.tied_embeddings is true but the head also carries its own " +
                        matrix +
                        "-parameter vocabulary matrix: a pipeline stage holding the head counts the matrix "
                        "twice (its own and the tied copy); set tied_embeddings to false, or leave the matrix out "
                        "of the head's params");
    }
    return w;
}

std::vector<std::string> jobWarnings(const Job& job)
{
    if (job.legacyOptimizerBytesPerParam < 0)
        return {};
    const double legacy = job.legacyOptimizerBytesPerParam;
    auto num = [](double v) {
        std::ostringstream o;
        o << v;
        return o.str();
    };
    std::string w = "job: optimizer_bytes_per_param " + num(legacy) +
                    " is the older field, the mixed-precision optimizer's share with the fp32 master copy: read "
                    "as optimizer_state_bytes_per_param " +
                    num(job.optimizerStateBytesPerParam) + " (the optimizer's own states)";
    if (job.precision == Precision::FP32)
        w += "; the job trains in fp32, so no master copy is counted";
    if (legacy < 4)
        w += "; a share below the 4-byte master copy has no meaning for 16-bit training, read as 0 states";
    return {w + "; write optimizer_state_bytes_per_param to say what you mean"};
}

std::vector<std::string> profileWarnings(const Job& job, const Profile& profile)
{
    std::vector<std::string> w;
    if (profile.empty())
        return w;
    const std::string what = "measured profile" + (profile.source.empty() ? "" : " (" + profile.source + ")");
    if (profile.precision && *profile.precision != job.precision)
        throw InputError("profile", "precision",
                         "the " + what + " was measured in " + toString(*profile.precision) + ", the job trains in " +
                             toString(job.precision) +
                             ": no rule converts one into the other; profile the job's "
                             "precision or set the job's precision to " +
                             toString(*profile.precision));
    if (!profile.precision)
        w.push_back("the " + what + " does not record its precision: assumed to be the job's (" +
                    toString(job.precision) + ")");
    if (profile.sequenceLength == 0)
        w.push_back("the " + what + " does not record its sequence length: its times are used as measured for " +
                    std::to_string(job.sequenceLength) + " tokens");
    else if (profile.sequenceLength != job.sequenceLength)
        w.push_back("the " + what + " was measured at sequence length " + std::to_string(profile.sequenceLength) +
                    ", the job uses " + std::to_string(job.sequenceLength) +
                    ": layer times rescaled (linear FLOPs with the tokens, attention scores with their square); "
                    "its measured activation memory is not used");
    return w;
}

CostModel::CostModel(const ModelSpec& model, const Job& job, const Profile& measured, const DeviceCatalog& catalog)
    : model_(model), job_(job), measured_(measured), catalog_(catalog)
{
    // A measured profile for a different layer count cannot belong to this model: refuse it early.
    if (!measured_.empty() && measured_.layerCount() != model_.layerCount())
        throw InputError(measured_.source.empty() ? "profile" : measured_.source, "layers",
                         "profile has " + std::to_string(measured_.layerCount()) + " layers, model '" + model_.name +
                             "' has " + std::to_string(model_.layerCount()));
    warnings_ = profileWarnings(job_, measured_);
    moeModel_ = model_.hasMoeLayers();
    sequenceScale_.assign(model_.layers.size(), 1.0);
    const int from = measured_.sequenceLength;
    if (!measured_.empty() && from > 0 && from != job_.sequenceLength) {
        measuredMemory_ = false;
        for (int l = 0; l < model_.layerCount(); ++l)
            sequenceScale_[l] = sequenceTimeScale(model_, l, from, job_.sequenceLength);
    }
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
    if (auto m = measured_.lookup(layer, deviceName, tp, microBatch)) {
        LayerTiming t = *m;
        t.forward *= sequenceScale_[layer];
        t.backward *= sequenceScale_[layer];
        if (!measuredMemory_)
            t.activationBytes = -1;
        // Full recomputation re-runs the forward inside the backward; the profile measured it without.
        if (job_.recompute)
            t.backward += t.forward;
        else if (job_.selectiveRecompute)
            t.backward += t.forward * attentionCoreShare(layer, deviceName, tp, microBatch);
        return t;
    }
    return analyticLayerTiming(model_.layers[layer], device(deviceName), tp, microBatch, job_, analyticContext());
}

AnalyticContext CostModel::analyticContext() const
{
    AnalyticContext ctx;
    ctx.moeModel = moeModel_;
    return ctx;
}

double CostModel::attentionCoreShare(int layer, const std::string& deviceName, int tp, double microBatch) const
{
    // A measured time has no breakdown: the attention core takes the share of the forward it takes in the
    // analytic time of the same layer on the same device.
    const DeviceType& d = device(deviceName);
    const LayerSpec& spec = model_.layers[layer];
    Job plain = job_;
    plain.selectiveRecompute = false;
    const double forward = analyticLayerTiming(spec, d, tp, microBatch, plain, analyticContext()).forward;
    return forward > 0 ? attentionCoreSeconds(spec, d, tp, microBatch, job_) / forward : 0;
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
    // A measured tp > 1 time already contains its all-reduces.
    if (tp <= 1 || isMeasured(deviceName, tp))
        return 0;
    const DeviceType& d = device(deviceName);
    const LinkParams assumed = analyticTpLink(d, tp);
    double delta = 0;
    for (int l = first; l < end; ++l)
        delta += tpAllReduceSeconds(model_.layers[l], d, tp, microBatch, job_, link, sequenceParallel(tp)) -
                 tpAllReduceSeconds(model_.layers[l], d, tp, microBatch, job_, assumed, sequenceParallel(tp));
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

std::vector<double> CostModel::measuredFullOf(int first, int end, const std::string& deviceName, int tp,
                                              double microBatch) const
{
    std::vector<double> measuredFull(size_t(std::max(0, end - first)), -1.0);
    if (measuredMemory_ && isMeasured(deviceName, tp))
        for (int l = first; l < end; ++l)
            if (auto m = measured_.lookup(l, deviceName, tp, microBatch))
                measuredFull[size_t(l - first)] = m->activationBytes;
    return measuredFull;
}

GpuMemory CostModel::stageMemory(int first, int end, const std::string& deviceName, int tp, int dpShards,
                                 double microBatch, int inFlight) const
{
    const std::vector<double> measuredFull = measuredFullOf(first, end, deviceName, tp, microBatch);
    return hetplan::stageMemory(model_, first, end, tp, dpShards, microBatch, inFlight, job_, sequenceParallel(tp),
                                measuredFull);
}

StageActivations CostModel::stageActivations(int first, int end, const std::string& deviceName, int tp,
                                             double microBatch) const
{
    const std::vector<double> measuredFull = measuredFullOf(first, end, deviceName, tp, microBatch);
    return hetplan::stageActivations(model_, first, end, tp, microBatch, job_, sequenceParallel(tp), measuredFull);
}

double CostModel::stagePeak(int first, int end, const std::string& deviceName, int tp, int dpShards, double microBatch,
                            int inFlight) const
{
    return stageMemory(first, end, deviceName, tp, dpShards, microBatch, inFlight).stagePart();
}

std::vector<double> CostModel::measuredActivations(const std::string& deviceName, int tp, double microBatch) const
{
    std::vector<double> out(model_.layers.size(), -1.0);
    if (measuredMemory_ && isMeasured(deviceName, tp))
        for (int l = 0; l < model_.layerCount(); ++l)
            if (auto m = measured_.lookup(l, deviceName, tp, microBatch))
                out[size_t(l)] = m->activationBytes;
    return out;
}

std::vector<LayerTiming> CostModel::layers(const std::string& deviceName, int tp, double microBatch) const
{
    std::vector<LayerTiming> out(model_.layers.size());
    for (int l = 0; l < model_.layerCount(); ++l)
        out[l] = layer(l, deviceName, tp, microBatch);
    return out;
}

} // namespace hetplan
