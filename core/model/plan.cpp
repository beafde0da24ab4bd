#include "plan.h"

#include "core/base/errors.h"

#include <algorithm>
#include <set>

namespace hetplan {

std::string toString(StopReason r)
{
    switch (r) {
    case StopReason::None: return "";
    case StopReason::Cancelled: return "cancelled";
    case StopReason::TimeLimit: return "time-limit";
    }
    return "";
}

bool parseStopReason(const std::string& s, StopReason& out)
{
    for (StopReason r : {StopReason::Cancelled, StopReason::TimeLimit})
        if (s == toString(r)) {
            out = r;
            return true;
        }
    return false;
}

std::string toString(SpmdInstruction::Kind k)
{
    switch (k) {
    case SpmdInstruction::Kind::Load: return "load";
    case SpmdInstruction::Kind::Compute: return "compute";
    case SpmdInstruction::Kind::Collective: return "collective";
    }
    return "compute";
}

bool parseSpmdInstructionKind(const std::string& s, SpmdInstruction::Kind& out)
{
    for (auto k : {SpmdInstruction::Kind::Load, SpmdInstruction::Kind::Compute, SpmdInstruction::Kind::Collective})
        if (toString(k) == s) {
            out = k;
            return true;
        }
    return false;
}

double SpmdPlan::share(const SpmdInstruction& ins, int g) const
{
    if (ins.dimension >= 0 && ins.dimension < int(dimensions.size())) {
        const SpmdDimension& d = dimensions[size_t(ins.dimension)];
        return d.size > 0 ? double(d.shards[size_t(g)]) / double(d.size) : 0.0;
    }
    return shardingRatios[size_t(ins.segment)][size_t(g)];
}

std::vector<int> Pipeline::stageGpus(int s, int r) const
{
    const Stage& st = stages[s];
    const int per = st.dataParallel * st.tensorParallel;
    return {st.gpus.begin() + r * per, st.gpus.begin() + (r + 1) * per};
}

std::vector<ModelChunk> Pipeline::chunks(const ModelSpec& model) const
{
    const int S = int(stages.size()), v = std::max(1, virtualStages);
    std::vector<ModelChunk> out;
    if (v == 1) {
        for (int s = 0; s < S; ++s)
            out.push_back({s, 0, stages[s].firstLayer, stages[s].endLayer});
        return out;
    }
    auto kindOf = [&](int l) { return l < model.layerCount() ? model.layers[size_t(l)].kind : LayerKind::Other; };
    // The embedding layers that open the model and the head layers that close it.
    int lead = 0, tail = 0;
    while (lead < stages[0].layerCount() && kindOf(stages[0].firstLayer + lead) == LayerKind::Embedding)
        ++lead;
    while (S > 1 && tail < stages[S - 1].layerCount() && kindOf(stages[S - 1].endLayer - 1 - tail) == LayerKind::Head)
        ++tail;
    int layer = 0;
    for (int c = 0; c < v; ++c)
        for (int s = 0; s < S; ++s) {
            const int body = stages[s].layerCount() - (s == 0 ? lead : 0) - (s == S - 1 ? tail : 0);
            int size = body / v + (c < body % v ? 1 : 0);
            if (s == 0 && c == 0)
                size += lead;
            if (s == S - 1 && c == v - 1)
                size += tail;
            out.push_back({s, c, layer, layer + size});
            layer += size;
        }
    return out;
}

std::vector<ModelChunk> Pipeline::stageChunks(const ModelSpec& model, int s) const
{
    std::vector<ModelChunk> out;
    for (const ModelChunk& c : chunks(model))
        if (c.stage == s)
            out.push_back(c);
    return out;
}

std::string Pipeline::stageLayersText(const ModelSpec& model, int s) const
{
    std::string text;
    for (const ModelChunk& c : stageChunks(model, s))
        text += (text.empty() ? "[" : " + [") + std::to_string(c.firstLayer) + "," + std::to_string(c.endLayer) + ")";
    return text;
}

long long Plan::samplesPerIteration() const
{
    long long n = 0;
    for (const Pipeline& p : pipelines)
        n += p.samples();
    if (zero)
        for (const ZeroGpu& g : zero->gpus)
            n += g.samples();
    if (spmd && pipelines.empty() && !zero)
        n = job.globalBatchSize;
    return n;
}

PlanKind Plan::kind() const
{
    if (!pipelines.empty())
        return PlanKind::Pipelines;
    if (zero)
        return PlanKind::Zero;
    return spmd ? PlanKind::Spmd : PlanKind::Empty;
}

std::vector<int> Plan::usedGpus() const
{
    std::vector<int> out;
    for (const Pipeline& p : pipelines)
        for (const Stage& s : p.stages)
            out.insert(out.end(), s.gpus.begin(), s.gpus.end());
    if (zero)
        for (const ZeroGpu& g : zero->gpus)
            out.push_back(g.gpu);
    if (spmd && out.empty())
        for (int i = 0, n = cluster.gpuCount(); i < n; ++i)
            out.push_back(i);
    return out;
}

namespace {

// Megatron's and DeepSpeed's rank order for pipelines of one stage count: stage-major, then the data-parallel
// index (pipelines in order, their replicas, the stage's dp ranks), then the tensor-parallel rank. Empty
// when the pipelines have different stage counts (no framework runs such a plan).
std::vector<int> frameworkOrder(const std::vector<Pipeline>& pipelines)
{
    std::vector<int> out;
    const size_t S = pipelines.front().stages.size();
    for (const Pipeline& p : pipelines)
        if (p.stages.size() != S)
            return out;
    for (size_t s = 0; s < S; ++s)
        for (const Pipeline& p : pipelines)
            out.insert(out.end(), p.stages[s].gpus.begin(), p.stages[s].gpus.end());
    return out;
}

} // namespace

std::vector<RankInfo> Plan::ranks() const
{
    std::vector<int> order;
    if (!pipelines.empty())
        order = frameworkOrder(pipelines);
    if (order.empty())
        order = usedGpus();
    std::vector<RankInfo> out;
    const std::vector<GpuRef> refs = cluster.gpuRefs(); // one pass: cluster.gpu() walks the nodes per call
    int rank = 0;
    for (int gpu : order) {
        const GpuRef& ref = refs.at(size_t(gpu));
        out.push_back({rank++, gpu, ref.local, cluster.nodes[ref.node].name});
    }
    return out;
}

void Plan::validate(const std::string& file) const
{
    validateStructure(file);
    if ((!pipelines.empty() || zero) && samplesPerIteration() != job.globalBatchSize)
        throw InputError(file, "job.global_batch_size",
                         "plan processes " + std::to_string(samplesPerIteration()) +
                             " samples per iteration, the job asks for " + std::to_string(job.globalBatchSize));
}

namespace {
// Interleaved 1F1B as Megatron runs it: several stages, every chunk at least one layer, and micro-batches in
// whole groups of `stages` (its schedule walks them that way).
void validateVirtualStages(const Pipeline& pl, const Job& job, const ModelSpec& model, const std::string& file,
                           const std::string& pf)
{
    const int v = pl.virtualStages, S = int(pl.stages.size());
    const std::string f = pf + ".virtual_stages";
    if (v < 1 || v > 64)
        throw InputError(file, f, "must be between 1 and 64");
    if (v == 1)
        return;
    if (S < 2)
        throw InputError(file, f, "interleaving needs at least two stages");
    if (job.schedule != Schedule::OneFOneB)
        throw InputError(file, f, "interleaved stages run the 1F1B schedule only, the job asks for GPipe");
    if (pl.microBatches % S != 0)
        throw InputError(file, f,
                         "interleaved 1F1B needs the micro-batches (" + std::to_string(pl.microBatches) +
                             ") to be a multiple of the stages (" + std::to_string(S) + ")");
    for (const ModelChunk& c : pl.chunks(model))
        if (c.endLayer <= c.firstLayer)
            throw InputError(file, f,
                             "stage " + std::to_string(c.stage) + " has fewer layers besides the embedding and the "
                             "head than its " + std::to_string(v) + " chunks");
}

// Context parallelism: whole groups of a stage's data-parallel ranks, Megatron's load-balanced causal split
// (2·cp sequence chunks), and keys and values to pass around the ring.
void validateContextParallel(const Pipeline& pl, const Job& job, const ModelSpec& model, const std::string& file,
                             const std::string& pf)
{
    const int cp = pl.contextParallel;
    const std::string f = pf + ".context_parallel";
    if (cp < 1 || cp > 64)
        throw InputError(file, f, "must be between 1 and 64");
    if (cp == 1)
        return;
    for (size_t s = 0; s < pl.stages.size(); ++s)
        if (pl.stages[s].dataParallel % cp != 0)
            throw InputError(file, f,
                             "stage " + std::to_string(s) + " has " + std::to_string(pl.stages[s].dataParallel) +
                                 " data-parallel ranks, not a multiple of the context-parallel size " +
                                 std::to_string(cp));
    if (job.sequenceLength % (2 * cp) != 0)
        throw InputError(file, f,
                         "the sequence (" + std::to_string(job.sequenceLength) + ") must split into 2 × " +
                             std::to_string(cp) + " equal chunks (Megatron balances causal attention that way)");
    // Sequence parallelism then splits each rank's s/cp tokens over tp.
    for (size_t s = 0; s < pl.stages.size(); ++s) {
        const int tp = pl.stages[s].tensorParallel;
        if (job.runsSequenceParallel(tp, model.hasMoeLayers()) && (job.sequenceLength / cp) % tp != 0)
            throw InputError(file, f,
                             "stage " + std::to_string(s) + ": sequence parallelism splits each rank's " +
                                 std::to_string(job.sequenceLength / cp) + " tokens over tp " + std::to_string(tp) +
                                 ", which does not divide them");
    }
    if (std::none_of(model.layers.begin(), model.layers.end(), [](const LayerSpec& l) { return l.kvBytes > 0; }))
        throw InputError(file, f, "no layer of the model states its keys and values (kv_bytes), which the ring passes");
}

// Expert parallelism: whole experts per rank, whole groups of every stage's data-parallel ranks.
void validateExpertParallel(const Pipeline& pl, const ModelSpec& model, const std::string& file, const std::string& pf)
{
    const int ep = pl.expertParallel;
    const std::string f = pf + ".expert_parallel";
    if (ep < 1 || ep > 1024)
        throw InputError(file, f, "must be between 1 and 1024");
    if (ep == 1)
        return;
    if (!model.hasMoeLayers())
        throw InputError(file, f, "the model has no MoE layers to spread over an expert-parallel group");
    if (model.arch.experts < 1 || model.arch.experts % ep != 0)
        throw InputError(file, f,
                         "the model's " + std::to_string(model.arch.experts) + " experts (arch.experts) do not split "
                         "into whole experts over " + std::to_string(ep) + " ranks");
    for (size_t s = 0; s < pl.stages.size(); ++s) {
        const long long ranks = (long long)pl.replicas * pl.stages[s].dataParallel;
        if (ranks % ep != 0)
            throw InputError(file, f,
                             "stage " + std::to_string(s) + " has " + std::to_string(ranks) +
                                 " data-parallel ranks over its replicas, not a multiple of the expert-parallel "
                                 "size " + std::to_string(ep));
    }
}
} // namespace

void Plan::validateStructure(const std::string& file) const
{
    const int nGpus = cluster.gpuCount();
    const int nLayers = model.layerCount();
    std::set<int> seen;
    auto claim = [&](int gpu, const std::string& field) {
        if (gpu < 0 || gpu >= nGpus)
            throw InputError(file, field, "GPU index " + std::to_string(gpu) + " out of range");
        if (!seen.insert(gpu).second)
            throw InputError(file, field, "GPU " + cluster.gpuName(gpu) + " is used twice");
    };
    for (size_t p = 0; p < pipelines.size(); ++p) {
        const Pipeline& pl = pipelines[p];
        const std::string pf = "pipelines[" + std::to_string(p) + "]";
        if (pl.replicas < 1)
            throw InputError(file, pf + ".replicas", "must be at least 1");
        if (pl.replicas > kMaxBatch)
            throw InputError(file, pf + ".replicas", "must be at most " + std::to_string(kMaxBatch));
        if (pl.microBatchSize < 1 || pl.microBatchSize > kMaxBatch)
            throw InputError(file, pf + ".micro_batch_size", "must be between 1 and " + std::to_string(kMaxBatch));
        if (pl.microBatches < 1 || pl.microBatches > kMaxBatch)
            throw InputError(file, pf + ".micro_batches", "must be between 1 and " + std::to_string(kMaxBatch));
        if (pl.stages.empty())
            throw InputError(file, pf + ".stages", "a pipeline needs at least one stage");
        int expectFirst = 0;
        for (size_t s = 0; s < pl.stages.size(); ++s) {
            const Stage& st = pl.stages[s];
            const std::string sf = pf + ".stages[" + std::to_string(s) + "]";
            if (st.firstLayer != expectFirst || st.endLayer <= st.firstLayer || st.endLayer > nLayers)
                throw InputError(file, sf + ".layers", "stages must cover consecutive non-empty layer ranges from 0");
            expectFirst = st.endLayer;
            if (st.tensorParallel < 1)
                throw InputError(file, sf + ".tensor_parallel", "must be at least 1");
            if (st.dataParallel < 1)
                throw InputError(file, sf + ".data_parallel", "must be at least 1");
            const size_t want = size_t(pl.replicas) * st.dataParallel * st.tensorParallel;
            if (st.gpus.size() != want)
                throw InputError(file, sf + ".gpus",
                                 "has " + std::to_string(st.gpus.size()) +
                                     " GPUs, replicas × data_parallel × tensor_parallel = " + std::to_string(want));
            for (size_t g = 0; g < st.gpus.size(); ++g)
                claim(st.gpus[g], sf + ".gpus[" + std::to_string(g) + "]");
        }
        if (expectFirst != nLayers)
            throw InputError(file, pf + ".stages",
                             "stages cover " + std::to_string(expectFirst) + " of " + std::to_string(nLayers) +
                                 " layers");
        validateVirtualStages(pl, job, model, file, pf); // after the ranges: chunks() reads the model's layers
        validateContextParallel(pl, job, model, file, pf);
        validateExpertParallel(pl, model, file, pf);
    }
    if (zero) {
        if (zero->stage < 0 || zero->stage > 3)
            throw InputError(file, "zero.stage", "must be 0..3");
        if (zero->gpus.empty())
            throw InputError(file, "zero.gpus", "must not be empty");
        for (size_t i = 0; i < zero->gpus.size(); ++i) {
            const ZeroGpu& g = zero->gpus[i];
            const std::string gf = "zero.gpus[" + std::to_string(i) + "]";
            claim(g.gpu, gf + ".gpu");
            if (g.accumulationSteps < 0 || g.accumulationSteps > kMaxBatch)
                throw InputError(file, gf + ".accumulation_steps",
                                 "must be between 0 and " + std::to_string(kMaxBatch));
            if (g.microBatchSize > kMaxBatch)
                throw InputError(file, gf + ".micro_batch_size", "must be at most " + std::to_string(kMaxBatch));
            if (g.accumulationSteps > 0 &&
                (g.microBatchSize < 1 || g.lastMicroBatchSize < 1 || g.lastMicroBatchSize > g.microBatchSize))
                throw InputError(file, gf + ".last_micro_batch_size", "must be between 1 and micro_batch_size");
        }
    }
    if (pipelines.empty() && !zero && !spmd)
        throw InputError(file, "pipelines", "a plan needs pipelines, zero or spmd");
}

} // namespace hetplan
