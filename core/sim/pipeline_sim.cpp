// Pipeline plans: every replica of every pipeline runs its own 1F1B, interleaved 1F1B or GPipe schedule
// (pipeline_schedule.h); activations and gradients cross stage boundaries as point-to-point sends; then gradients are synchronised per layer
// segment across every GPU holding those layers, tied embeddings are synchronised between the first and
// last stage, and each stage steps its optimizer.
//
// Modelling choices (kept simple on purpose, documented here once):
// - A stage of one replica is dataParallel × tensorParallel GPUs computing together; each micro-batch is
//   split over the data-parallel ranks, so compute uses micro-batch mbs / dataParallel at degree tp. A group
//   mixing device types runs at the pace of its slowest type.
// - Interleaved 1F1B: a stage's v model chunks (Pipeline::chunks) each have their own compute times; the
//   boundary between virtual stages q and q + 1 uses the physical link between their stages (the last
//   stage's link to the first carries the chunk changes); its memory holds what its op order keeps in flight.
// - Context parallelism (Pipeline::contextParallel): cp consecutive data-parallel ranks of a stage share
//   samples and split the sequence, so compute and activations are the dp split's; each attention layer adds
//   its ring's exposed transfers (core/cost/context_expert.h). Expert parallelism (expertParallel): each MoE
//   layer adds its dispatch and combine all-to-alls over ep ranks of the stage (across replicas), a rank
//   keeps 1/ep of the experts, and their gradients are reduced over the n/ep copies of the same experts.
//   A padded capacity factor scales the experts' FLOP and all-to-all bytes (context_expert_sim.h).
// - Per-stage op order is fixed, so start times are found by walking the ops in dependency order (sweeping
//   stages forwards then backwards until all ops are placed) instead of a general event queue.
// - Sends block (default): as in Megatron's and DeepSpeed's non-interleaved 1F1B, which wait on their
//   send/recv pairs, a stage's send occupies the stage until the transfer completes, so slow links
//   serialise with compute. SimOptions::overlappedSends lets the stage compute on instead. The receiver's
//   side of the rendezvous is not modelled (a send starts when the sender is done and the link is free).
// - A boundary send pairs data-parallel rank j of the sender with rank j of the receiver (modulo each side's
//   dp), each pair carrying its share of the micro-batch; tensor-parallel rank t sends to rank t (modulo the
//   receiver's tp). What each tp rank sends follows Job::framework (core/cost/pipeline_p2p.h): the whole
//   tensor (Megatron-core), 1/tp of it (sequence parallelism), or 1/tp followed by an all-gather inside the
//   receiving tp group (legacy Megatron's scatter/gather, DeepSpeed's partitioned pipe). The flows of one
//   boundary in all replicas of a pipeline run at once (the replicas are identical and in lockstep) and
//   share the NICs they leave and enter (sharedBandwidths); a replica's transfer takes its slowest flow's
//   time. Sends in one direction over one boundary are serialised; the two directions are independent (full
//   duplex). Flows of different boundaries or different pipelines are not contended. The receiver's
//   all-gather starts when the transfer ends and delays the input's arrival; the link is free again at the
//   transfer's end and a blocking sender waits for the transfer only (the gather runs on the receiver).
// - Gradient sync: the model is cut at every stage boundary of every pipeline; each resulting layer segment
//   is all-reduced among its data-parallel copies, one ring per tensor-parallel rank, all rings at once
//   sharing NICs (concurrentRingsLink); bytes = the segment's parameters per tp rank × Job::gradReduceBytes
//   (bf16 gradients are reduced in fp32). With ZeRO-1 the all-reduce becomes reduce-scatter (gradient
//   bytes) → optimizer on its 1/(replicas·dp) shard → all-gather of the updated parameters (parameter
//   bytes). ZeRO ≥ 2 with more than one stage is refused (simulator.cpp), as DeepSpeed's pipeline engine
//   does; a one-stage pipeline is plain data parallelism: ZeRO-2 moves what ZeRO-1 does, ZeRO-3 also
//   all-gathers the stage's parameters before each forward and each backward of every micro-batch.
// - Tied embeddings: a stage holding the head but not the embedding keeps a copy of the word embedding
//   (ModelSpec::tiedCopyParams); after the data-parallel sync, each (replica, dp, tp) rank of the last stage
//   all-reduces that copy's gradient with its counterpart in the first stage, before either steps.
// - Timeline: compute events go on every GPU of the group; a send is recorded on the sending side's
//   representative GPUs with the sending stage's index (SendGradient of stage s travels to s−1).
#include "context_expert_sim.h"
#include "pipeline_schedule.h"
#include "sim_detail.h"

#include "core/cost/collectives.h"
#include "core/cost/memory.h"
#include "core/cost/pipeline_p2p.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>

namespace hetplan::simdetail {

namespace {

// The flows of one boundary send from group a to group b: data-parallel rank j of the sender pairs with
// rank j of the receiver (modulo each side's dp); tensor-parallel rank t with rank t (modulo b's tp).
std::vector<Flow> boundaryFlows(const Group& a, const Group& b)
{
    std::vector<Flow> flows;
    const int pairs = std::max(a.dp, b.dp);
    for (int j = 0; j < pairs; ++j)
        for (int t = 0; t < a.tp; ++t)
            flows.push_back({a.gpus[(j % a.dp) * a.tp + t], b.gpus[(j % b.dp) * b.tp + t % b.tp]});
    return flows;
}

// The receiving group's all-gather of a boundary tensor: the slowest of its data-parallel ranks' tp groups.
double gatherSeconds(const Cluster& cluster, const Group& g, const BoundaryTraffic& t)
{
    double worst = 0;
    for (int d = 0; d < g.dp && t.gatherRanks > 1; ++d) {
        const std::vector<int> tpGroup(g.gpus.begin() + d * g.tp, g.gpus.begin() + (d + 1) * g.tp);
        worst = std::max(worst, boundaryGatherSeconds(t, groupLink(cluster, tpGroup)));
    }
    return worst;
}

// Boundary q → q + 1 of every replica of one pipeline, between stages `sa` and `sb` (neighbours, or the last
// and the first under interleaving), carrying layer `last`'s output: all replicas' flows run at once and
// share NICs (both directions use the same pairs, reversed; NICs are full duplex, so the shares are the same).
std::vector<Boundary> makeBoundaries(const Plan& plan, const std::vector<std::vector<Group*>>& replicas, int sa, int sb,
                                     int last, double microBatchSize)
{
    std::vector<Flow> flows, back;
    std::vector<size_t> firstFlow; // replica r's flows are [firstFlow[r], firstFlow[r + 1])
    for (const std::vector<Group*>& stages : replicas) {
        firstFlow.push_back(flows.size());
        const std::vector<Flow> f = boundaryFlows(*stages[sa], *stages[sb]);
        flows.insert(flows.end(), f.begin(), f.end());
    }
    firstFlow.push_back(flows.size());
    for (const Flow& f : flows)
        back.push_back({f.dst, f.src});
    const std::vector<double> bw = sharedBandwidths(plan.cluster, flows);
    const std::vector<double> bwBack = sharedBandwidths(plan.cluster, back);
    const bool moe = plan.model.hasMoeLayers();
    std::vector<Boundary> out;
    for (size_t r = 0; r < replicas.size(); ++r) {
        const Group& a = *replicas[r][sa];
        const Group& b = *replicas[r][sb];
        const double bytes = plan.model.layers[last].outputBytes * plan.job.activationScale() * microBatchSize /
                             std::max(a.dp, b.dp);
        // Activations leave a's tp ranks for b's; gradients leave b's for a's (the same tensor shape).
        const BoundaryTraffic fwd = boundaryTraffic(plan.job, bytes, a.tp, b.tp, moe);
        const BoundaryTraffic bwd = boundaryTraffic(plan.job, bytes, b.tp, a.tp, moe);
        Boundary bd;
        for (size_t i = firstFlow[r]; i < firstFlow[r + 1]; ++i) {
            bd.fwdSeconds = std::max(bd.fwdSeconds, pointToPoint(fwd.bytesPerRank,
                                                                 {bw[i], plan.cluster.latency(flows[i].src, flows[i].dst)}));
            bd.bwdSeconds = std::max(bd.bwdSeconds, pointToPoint(bwd.bytesPerRank,
                                                                 {bwBack[i], plan.cluster.latency(back[i].src, back[i].dst)}));
        }
        bd.fwdGather = gatherSeconds(plan.cluster, b, fwd);
        bd.bwdGather = gatherSeconds(plan.cluster, a, bwd);
        // Representatives: the first GPU of each tensor-parallel group on either side.
        for (int d = 0; d < a.dp; ++d)
            bd.senders.push_back(a.gpus[d * a.tp]);
        for (int d = 0; d < b.dp; ++d)
            bd.receivers.push_back(b.gpus[d * b.tp]);
        out.push_back(std::move(bd));
    }
    return out;
}

struct Holder { // one data-parallel copy of a layer segment
    int group = 0;
    std::vector<int> gpus; // its tensor-parallel GPUs
};

struct Segment {
    int first = 0, end = 0;
    std::vector<Holder> holders;
    double params = 0; // per tensor-parallel rank (the largest shard when holders' tp differ)
    double expertParams = 0; // the experts' part of params, reduced over expert-data-parallel groups
    int ep = 1;              // expert-parallel size (the smallest of its holders' pipelines)
    LinkParams link;   // bottleneck of its rings, one per tensor-parallel rank, running at once
    LinkParams expertLink; // the same for the expert-data-parallel rings (holders of the same experts)
};

double collectiveSeconds(EventKind kind, double bytes, int n, LinkParams link)
{
    switch (kind) {
    case EventKind::AllReduce: return ringAllReduce(bytes, n, link);
    case EventKind::ReduceScatter: return ringReduceScatter(bytes, n, link);
    case EventKind::AllGather: return ringAllGather(bytes, n, link);
    default: return 0;
    }
}

// A segment's collective: with expert parallelism its experts' 1/ep shard goes over the n/ep holders that
// hold the same experts (Megatron's expert-data-parallel group), after the rest over all n.
double segmentSeconds(EventKind kind, const Segment& seg, int n, double bytesPerValue)
{
    if (seg.ep <= 1 || seg.expertParams <= 0)
        return collectiveSeconds(kind, seg.params * bytesPerValue, n, seg.link);
    return collectiveSeconds(kind, (seg.params - seg.expertParams) * bytesPerValue, n, seg.link) +
           collectiveSeconds(kind, seg.expertParams / seg.ep * bytesPerValue, std::max(1, n / seg.ep), seg.expertLink);
}

// Runs one collective per segment (segments ordered by when their holders are ready) on the GPUs'
// communication tracks, moving `bytesPerValue` per parameter. `readyOf(group)` says when a group may start;
// `doneOf(group)` collects the end.
template <class Ready, class Done>
void runSegmentCollectives(std::vector<Segment>& segs, std::vector<Group>& groups, std::vector<double>& commFree,
                           EventKind kind, double bytesPerValue, Ready readyOf, Done doneOf, Recorder& rec)
{
    std::vector<std::pair<double, int>> order;
    for (size_t i = 0; i < segs.size(); ++i) {
        double r = 0;
        for (const Holder& h : segs[i].holders)
            r = std::max(r, readyOf(groups[h.group]));
        order.push_back({r, -int(i)}); // ties: later layers first (backward finishes them first)
    }
    std::sort(order.begin(), order.end());
    for (auto [ready, negIdx] : order) {
        Segment& seg = segs[size_t(-negIdx)];
        const int n = int(seg.holders.size());
        const double dur = segmentSeconds(kind, seg, n, bytesPerValue);
        if (n <= 1 || dur <= 0) {
            for (const Holder& h : seg.holders)
                doneOf(groups[h.group], readyOf(groups[h.group]));
            continue;
        }
        double start = ready;
        for (const Holder& h : seg.holders)
            for (int gpu : h.gpus)
                start = std::max(start, commFree[gpu]);
        const double end = start + dur;
        for (const Holder& h : seg.holders) {
            const Group& g = groups[h.group];
            for (int gpu : h.gpus) {
                commFree[gpu] = end;
                rec.add(gpu, kind, g.pipeline, g.replica, g.stage, -1, start, end);
            }
            doneOf(groups[h.group], end);
        }
    }
}

// Parameters of a stage's layers per tensor-parallel rank, with its tied word-embedding copy.
double stageParamsPerRank(const ModelSpec& model, int first, int end, int tp)
{
    return paramsPerRank(model, first, end, tp) + model.tiedCopyParams(first, end) / std::max(1, tp);
}

// The rings of one collective among `holders` (each a tensor-parallel group of `tp` or more GPUs): ring k
// joins the k-th tensor-parallel rank of every holder.
std::vector<std::vector<int>> tensorRankRings(const std::vector<std::vector<int>>& holders, int tp)
{
    std::vector<std::vector<int>> rings(std::max(1, tp));
    for (const std::vector<int>& h : holders)
        for (int k = 0; k < int(rings.size()); ++k)
            rings[k].push_back(h[size_t(k) * h.size() / rings.size()]);
    return rings;
}

// ZeRO-3 in a one-stage pipeline: before each forward and backward, the stage's parameters are all-gathered
// over the replicas' data-parallel ranks (one ring per tensor-parallel rank, all at once).
double zero3GatherSeconds(const Plan& plan, const Group& g, const std::vector<std::vector<int>>& holders)
{
    const LinkParams link = concurrentRingsLink(plan.cluster, tensorRankRings(holders, g.tp));
    return ringAllGather(g.params * plan.job.bytesPerValue(), int(holders.size()), link);
}

// An interleaved stage's memory: its chunks' model states, and their activations as its op order keeps them
// in flight (peakInFlight); the recompute buffer and allocator reserve of its largest layer.
GpuMemory interleavedStageMemory(const Plan& plan, const CostModel& costs, const Group& g,
                                 const std::vector<ModelChunk>& chunks, int shards, double mb)
{
    const Pipeline& pl = plan.pipelines[g.pipeline];
    std::vector<double> perMicroBatch;
    StageActivations all;
    for (const ModelChunk& c : chunks) {
        const StageActivations a = costs.stageActivations(c.firstLayer, c.endLayer, g.device, g.tp, mb);
        perMicroBatch.push_back(a.perMicroBatch);
        all.oncePerStage = std::max(all.oncePerStage, a.oncePerStage);
        all.largestLayer = std::max(all.largestLayer, a.largestLayer);
    }
    const int S = int(pl.stages.size());
    all.perMicroBatch = peakInFlight(stageOps(S, g.stage, pl.microBatches, pl.virtualStages, false), perMicroBatch);
    return stageParts(g.params, shards, all, 1, mb, plan.job);
}

// Stage s of replica r of pipeline p, with its compute times; records its memory peak.
Group makeGroup(const Plan& plan, const CostModel& costs, int p, int r, int s, Recorder& rec)
{
    const Job& job = plan.job;
    const Pipeline& pl = plan.pipelines[p];
    const Stage& st = pl.stages[s];
    const int S = int(pl.stages.size());
    Group g;
    g.pipeline = p;
    g.replica = r;
    g.stage = s;
    g.first = st.firstLayer;
    g.end = st.endLayer;
    g.tp = st.tensorParallel;
    g.dp = st.dataParallel;
    const size_t per = size_t(st.dataParallel) * st.tensorParallel;
    g.gpus.assign(st.gpus.begin() + r * per, st.gpus.begin() + (r + 1) * per);
    const double mb = double(pl.microBatchSize) / st.dataParallel;
    const std::vector<ModelChunk> chunks = pl.stageChunks(plan.model, s);
    for (const ModelChunk& c : chunks) {
        const LayerTiming lt = slowestRange(plan, costs, g.gpus, c.firstLayer, c.endLayer, g.tp, mb, &g.device);
        const ChunkExtra x = contextExpertSeconds(plan, costs, g, c.firstLayer, c.endLayer, mb);
        g.f.push_back(lt.forward + x.forwardCompute + x.forwardComm.total());
        g.b.push_back(lt.backward + x.backwardCompute + x.backwardComm.total());
        g.fComm.push_back(x.forwardComm);
        g.bComm.push_back(x.backwardComm);
        g.update += lt.update;
        g.params += stageParamsPerRank(plan.model, c.firstLayer, c.endLayer, g.tp);
        g.expertParams += expertParamsPerRank(plan.model, c.firstLayer, c.endLayer, g.tp);
    }
    if (job.zeroStage >= 3 && S == 1) {
        std::vector<std::vector<int>> holders;
        for (size_t i = 0; i + st.tensorParallel <= st.gpus.size(); i += st.tensorParallel)
            holders.emplace_back(st.gpus.begin() + i, st.gpus.begin() + i + st.tensorParallel);
        g.gather = zero3GatherSeconds(plan, g, holders);
    }
    const int shards = job.zeroStage > 0 ? pl.replicas * st.dataParallel : 1;
    const GpuMemory all = pl.virtualStages > 1 ? interleavedStageMemory(plan, costs, g, chunks, shards, mb)
                                               : costs.stageMemory(g.first, g.end, g.device, g.tp, shards, mb,
                                                                   job.schedule == Schedule::GPipe
                                                                       ? pl.microBatches
                                                                       : std::min(S - s, pl.microBatches));
    const GpuMemory mem = withExpertParallel(all, g.expertParams, pl.expertParallel, shards, job);
    // Its communicators: its tp group, the data-parallel group of every copy of its first layer (in every
    // pipeline), its pipeline neighbours and, when tied, the embedding group.
    int copies = 0;
    for (const Pipeline& q : plan.pipelines)
        for (const Stage& qs : q.stages)
            if (qs.firstLayer <= g.first && g.first < qs.endLayer)
                copies += q.replicas * qs.dataParallel;
    const RankGroups groups = RankGroups::pipelineStage(g.tp, copies, S, s, plan.model.arch.tiedEmbeddings);
    for (int gpu : g.gpus) {
        rec.result.peakMemoryBytes[gpu] = mem.stagePart();
        rec.result.memory[gpu] = mem;
        rec.result.rankGroups[gpu] = groups;
    }
    return g;
}

// Every group of every pipeline; group (p, r, s) is groups[pipeOffset[p] + r·S + s].
struct Groups {
    std::vector<Group> all;
    std::vector<size_t> pipeOffset;
    Group& at(const Plan& plan, size_t p, int r, int s)
    {
        return all[pipeOffset[p] + size_t(r) * plan.pipelines[p].stages.size() + s];
    }
};

Groups makeGroups(const Plan& plan, const CostModel& costs, Recorder& rec)
{
    Groups gs;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        gs.pipeOffset.push_back(gs.all.size());
        for (int r = 0; r < pl.replicas; ++r)
            for (int s = 0; s < int(pl.stages.size()); ++s)
                gs.all.push_back(makeGroup(plan, costs, int(p), r, s, rec));
    }
    return gs;
}

void runSchedules(const Plan& plan, Groups& gs, Recorder& rec)
{
    const bool gpipe = plan.job.schedule == Schedule::GPipe;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        const int S = int(pl.stages.size());
        std::vector<std::vector<Group*>> replicas(pl.replicas, std::vector<Group*>(S));
        for (int r = 0; r < pl.replicas; ++r)
            for (int s = 0; s < S; ++s)
                replicas[r][s] = &gs.at(plan, p, r, s);
        // One boundary per virtual stage but the last; the stage pairs repeat, the layers they carry may not.
        std::vector<std::vector<Boundary>> bounds(pl.replicas); // [replica][boundary]
        const std::vector<ModelChunk> chunks = pl.chunks(plan.model);
        for (size_t q = 0; q + 1 < chunks.size(); ++q) {
            std::vector<Boundary> all = makeBoundaries(plan, replicas, chunks[q].stage, chunks[q + 1].stage,
                                                       chunks[q].endLayer - 1, pl.microBatchSize);
            for (int r = 0; r < pl.replicas; ++r)
                bounds[r].push_back(std::move(all[r]));
        }
        for (int r = 0; r < pl.replicas; ++r)
            ReplicaSchedule(replicas[r], bounds[r], pl.microBatches, pl.virtualStages, gpipe, rec).run();
    }
}

// The segment [first, end) and its data-parallel copies: one holder per (pipeline, replica, stage dp rank).
Segment makeSegment(const Plan& plan, Groups& gs, int first, int end)
{
    Segment seg;
    seg.first = first;
    seg.end = end;
    int minTp = 1 << 30, minEp = 1 << 30;
    bool tiedCopy = false; // some holder keeps the tied word-embedding copy with this segment
    std::vector<std::vector<int>> holders;
    std::vector<int> rank; // each holder's data-parallel index in its pipeline's stage (replica × dp + rank)
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        int s = 0; // the stage whose chunk holds layer `first`
        for (const ModelChunk& c : pl.chunks(plan.model))
            if (c.firstLayer <= first && first < c.endLayer)
                s = c.stage;
        minEp = std::min(minEp, pl.expertParallel);
        for (int r = 0; r < pl.replicas; ++r) {
            const Group& g = gs.at(plan, p, r, s);
            minTp = std::min(minTp, g.tp);
            tiedCopy |= plan.model.tiedCopyParams(g.first, g.end) > 0 &&
                        plan.model.tiedCopyParams(first, end) > 0; // the head is in this segment
            for (int d = 0; d < g.dp; ++d) {
                Holder h;
                h.group = int(&g - gs.all.data());
                h.gpus.assign(g.gpus.begin() + d * g.tp, g.gpus.begin() + (d + 1) * g.tp);
                holders.push_back(h.gpus);
                rank.push_back(r * g.dp + d);
                seg.holders.push_back(std::move(h));
            }
        }
    }
    seg.params =
        paramsPerRank(plan.model, first, end, minTp) + (tiedCopy ? plan.model.arch.wordEmbeddingParams() / minTp : 0.0);
    seg.expertParams = expertParamsPerRank(plan.model, first, end, minTp);
    seg.ep = minEp;
    seg.link = concurrentRingsLink(plan.cluster, tensorRankRings(holders, minTp));
    if (seg.ep > 1 && seg.expertParams > 0) {
        // The copies of the same experts: holders whose rank agrees modulo ep, one set of rings each, all at once.
        std::vector<std::vector<std::vector<int>>> same(size_t(seg.ep));
        for (size_t i = 0; i < holders.size(); ++i)
            same[size_t(rank[i] % seg.ep)].push_back(holders[i]);
        std::vector<std::vector<int>> rings;
        for (const auto& copies : same)
            for (std::vector<int>& ring : tensorRankRings(copies, minTp))
                rings.push_back(std::move(ring));
        seg.expertLink = concurrentRingsLink(plan.cluster, rings);
    }
    return seg;
}

// The model cut at every chunk boundary (every stage boundary without interleaving) of every pipeline.
std::vector<Segment> makeSegments(const Plan& plan, Groups& gs)
{
    std::set<int> cuts{0, plan.model.layerCount()};
    for (const Pipeline& pl : plan.pipelines)
        for (const ModelChunk& c : pl.chunks(plan.model))
            cuts.insert(c.firstLayer);
    const std::vector<int> cutList(cuts.begin(), cuts.end());
    std::vector<Segment> segs;
    for (size_t i = 0; i + 1 < cutList.size(); ++i)
        segs.push_back(makeSegment(plan, gs, cutList[i], cutList[i + 1]));
    return segs;
}

// Tied embeddings: in each pipeline whose last stage keeps a word-embedding copy, every (replica, dp, tp)
// rank of the last stage all-reduces that copy's gradient with its counterpart in the first stage. All
// pairs of the pipeline run at once (sharing NICs); each replica's pair starts when both stages are synced.
void syncTiedEmbeddings(const Plan& plan, Groups& gs, std::vector<double>& commFree, Recorder& rec)
{
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        const int S = int(pl.stages.size());
        const double copy = plan.model.tiedCopyParams(pl.stages[S - 1].firstLayer, pl.stages[S - 1].endLayer);
        if (S < 2 || copy <= 0)
            continue;
        std::vector<std::vector<int>> pairs;
        for (int r = 0; r < pl.replicas; ++r) {
            const Group &a = gs.at(plan, p, r, 0), &b = gs.at(plan, p, r, S - 1);
            for (const Flow& f : boundaryFlows(a, b))
                pairs.push_back({f.src, f.dst});
        }
        const LinkParams link = concurrentRingsLink(plan.cluster, pairs);
        const int tp = pl.stages[S - 1].tensorParallel;
        const double dur = ringAllReduce(copy / tp * plan.job.gradReduceBytes(), 2, link);
        for (int r = 0; r < pl.replicas; ++r) {
            Group &a = gs.at(plan, p, r, 0), &b = gs.at(plan, p, r, S - 1);
            std::vector<int> gpus = a.gpus;
            gpus.insert(gpus.end(), b.gpus.begin(), b.gpus.end());
            double start = std::max(a.syncDone, b.syncDone);
            for (int gpu : gpus)
                start = std::max(start, commFree[gpu]);
            for (int gpu : gpus) {
                commFree[gpu] = start + dur;
                const Group& g = std::count(a.gpus.begin(), a.gpus.end(), gpu) ? a : b;
                rec.add(gpu, EventKind::AllReduce, g.pipeline, g.replica, g.stage, -1, start, start + dur);
            }
            a.syncDone = b.syncDone = start + dur;
        }
    }
}

// Optimizer step per group (on its ZeRO shard when sharded), after its gradients are synchronised.
void stepOptimizers(const Plan& plan, const CostModel& costs, Groups& gs, bool sharded, Recorder& rec)
{
    for (Group& g : gs.all) {
        const Pipeline& pl = plan.pipelines[g.pipeline];
        const double shards = sharded ? double(pl.replicas) * g.dp : 1.0;
        // Expert parallelism leaves a rank fewer expert parameters to step (none fewer when sharded).
        const double params = optimizerParams(g.params, g.expertParams, pl.expertParallel, sharded);
        const double update = g.params > 0 ? g.update * params / g.params : g.update;
        const double dur = optimizerSeconds(costs, g.device, update, params, shards);
        const double start = std::max(g.ready, g.syncDone);
        g.optEnd = start + dur;
        for (int gpu : g.gpus) {
            if (dur > 0)
                rec.add(gpu, EventKind::Optimizer, g.pipeline, g.replica, g.stage, -1, start, g.optEnd);
            else
                rec.touch(gpu, g.optEnd);
        }
    }
}

} // namespace

void simulatePipelines(const Plan& plan, const CostModel& costs, Recorder& rec)
{
    Groups gs = makeGroups(plan, costs, rec);
    runSchedules(plan, gs, rec);
    std::vector<Segment> segs = makeSegments(plan, gs);

    // Gradient synchronisation per segment, the tied embeddings, then the optimizer, then (ZeRO) the updated
    // shards' all-gather.
    std::vector<double> commFree(plan.cluster.gpuCount(), 0.0);
    for (Group& g : gs.all)
        g.syncDone = g.ready;
    auto readyAfterBackward = [](const Group& g) { return g.ready; };
    auto markSync = [](Group& g, double t) { g.syncDone = std::max(g.syncDone, t); };
    const bool sharded = plan.job.zeroStage > 0;
    runSegmentCollectives(segs, gs.all, commFree, sharded ? EventKind::ReduceScatter : EventKind::AllReduce,
                          plan.job.gradReduceBytes(), readyAfterBackward, markSync, rec);
    syncTiedEmbeddings(plan, gs, commFree, rec);
    stepOptimizers(plan, costs, gs, sharded, rec);
    if (sharded && plan.job.zeroStage < 3) { // ZeRO-3 keeps parameters sharded until the next forward
        auto readyAfterStep = [](const Group& g) { return g.optEnd; };
        auto ignore = [](Group&, double) {};
        runSegmentCollectives(segs, gs.all, commFree, EventKind::AllGather, plan.job.bytesPerValue(), readyAfterStep,
                              ignore, rec);
    }
}

} // namespace hetplan::simdetail
