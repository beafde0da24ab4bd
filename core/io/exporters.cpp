#include "exporters.h"

#include "json_io.h"

#include "core/cost/costmodel.h"
#include "core/base/errors.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>

namespace hetplan {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

[[noreturn]] void refuse(const std::string& field, const std::string& reason) { throw InputError("plan", field, reason); }

// A pipeline plan both DeepSpeed and Megatron can run: every pipeline has the same shape (they are then
// just more data-parallel replicas) and every stage the same tensor- and data-parallel degree.
struct UniformPipeline {
    int stages = 1, tp = 1, dp = 1;      // dp: data parallelism inside a stage (splits the micro-batch)
    int replicas = 0;                    // over all pipelines
    int microBatchSize = 1;              // per pipeline replica
    int microBatches = 1;
    std::vector<int> bounds;             // first layer of each stage, then the layer count
    int dataParallelSize() const { return replicas * dp; }
    int microBatchPerGpu() const { return microBatchSize / dp; }
};

UniformPipeline uniformPipeline(const Plan& plan, const std::string& target)
{
    if (plan.pipelines.empty())
        refuse("pipelines", "the plan has no pipelines");
    const Pipeline& p0 = plan.pipelines.front();
    if (p0.stages.empty())
        refuse("pipelines[0].stages", "the pipeline has no stages");
    UniformPipeline u;
    u.stages = int(p0.stages.size());
    u.tp = p0.stages[0].tensorParallel;
    u.dp = p0.stages[0].dataParallel;
    u.microBatchSize = p0.microBatchSize;
    u.microBatches = p0.microBatches;
    for (const Stage& s : p0.stages)
        u.bounds.push_back(s.firstLayer);
    u.bounds.push_back(p0.stages.back().endLayer);
    for (size_t i = 0; i < plan.pipelines.size(); ++i) {
        const Pipeline& p = plan.pipelines[i];
        const std::string pf = "pipelines[" + std::to_string(i) + "]";
        bool same = p.stages.size() == p0.stages.size() && p.microBatchSize == p0.microBatchSize &&
                    p.microBatches == p0.microBatches;
        for (size_t s = 0; same && s < p.stages.size(); ++s)
            same = p.stages[s].firstLayer == p0.stages[s].firstLayer && p.stages[s].endLayer == p0.stages[s].endLayer &&
                   p.stages[s].tensorParallel == p0.stages[s].tensorParallel &&
                   p.stages[s].dataParallel == p0.stages[s].dataParallel;
        if (!same)
            refuse(pf, target + " runs one pipeline shape replicated; this plan has pipelines with different "
                                "stages or batches (e.g. Oobleck/Ditto templates)");
        for (size_t s = 0; s < p.stages.size(); ++s) {
            if (p.stages[s].tensorParallel != u.tp)
                refuse(pf + ".stages[" + std::to_string(s) + "].tensor_parallel",
                       target + " uses one tensor-parallel degree for all stages; this plan mixes " +
                           std::to_string(u.tp) + " and " + std::to_string(p.stages[s].tensorParallel));
            if (p.stages[s].dataParallel != u.dp)
                refuse(pf + ".stages[" + std::to_string(s) + "].data_parallel",
                       target + " uses one data-parallel degree for all stages; this plan mixes " +
                           std::to_string(u.dp) + " and " + std::to_string(p.stages[s].dataParallel));
        }
        u.replicas += p.replicas;
    }
    if (u.microBatchSize % u.dp != 0)
        refuse("pipelines[0].micro_batch_size", "micro-batch " + std::to_string(u.microBatchSize) +
                                                    " does not split evenly over " + std::to_string(u.dp) +
                                                    " data-parallel ranks of a stage");
    return u;
}

// A ZeRO plan whose GPUs all run the same batches (what a standard launcher can express).
struct UniformZero {
    int stage = 0, gpus = 0, microBatchSize = 0, accumulationSteps = 0;
};

UniformZero uniformZero(const Plan& plan, const std::string& target)
{
    const ZeroPlan& z = *plan.zero;
    if (z.gpus.empty())
        refuse("zero.gpus", "the ZeRO plan has no GPUs");
    UniformZero u;
    u.stage = z.stage;
    u.gpus = int(z.gpus.size());
    u.microBatchSize = z.gpus[0].microBatchSize;
    u.accumulationSteps = z.gpus[0].accumulationSteps;
    for (size_t i = 0; i < z.gpus.size(); ++i) {
        const ZeroGpu& g = z.gpus[i];
        if (g.microBatchSize != u.microBatchSize || g.accumulationSteps != u.accumulationSteps ||
            g.lastMicroBatchSize != g.microBatchSize)
            refuse("zero.gpus[" + std::to_string(i) + "]",
                   target + " needs the same micro-batch and accumulation steps on every GPU; this plan gives "
                            "GPUs different batches (Poplar-style) — launch it from the plan file or rank table");
    }
    if (u.microBatchSize < 1 || u.accumulationSteps < 1)
        refuse("zero.gpus", "micro-batch and accumulation steps must be at least 1");
    return u;
}

// Launchers (DeepSpeed's hostfile, torchrun under Megatron) number ranks host by host and, on each host,
// give local rank k to GPU k. The plan's rank order must be exactly that, or the launched job would put
// stages on other GPUs than planned.
void refuseScatteredRanks(const Plan& plan)
{
    std::map<std::string, int> used;   // ranks seen per host
    std::string current;
    for (const RankInfo& r : plan.ranks()) {
        const bool revisit = r.host != current && used.count(r.host);
        if (revisit || r.localRank != used[r.host])
            refuse("ranks", "ranks are not contiguous per host in local-GPU order; a hostfile cannot express this "
                            "placement — use the rank table (--format ranks)");
        ++used[r.host];
        current = r.host;
    }
}

void refuseSpmd(const Plan& plan, const std::string& target)
{
    if (plan.spmd && plan.pipelines.empty() && !plan.zero)
        refuse("spmd", target + " cannot run an SPMD program with per-GPU sharding ratios");
    if (plan.pipelines.empty() && !plan.zero)
        refuse("pipelines", "the plan has neither pipelines nor ZeRO batches");
}

[[noreturn]] void layoutError(const std::string& layout, const std::string& reason)
{
    throw InputError("megatron-layout", "layout", reason + " in \"" + layout + "\"");
}

bool isBlock(LayerKind k) { return k == LayerKind::Transformer || k == LayerKind::MoE; }

std::string shellQuote(const std::string& s)
{
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=/:") ==
                          std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

// ---------------------------------------------------------------- DeepSpeed

QJsonObject deepSpeedConfig(const Plan& plan)
{
    refuseSpmd(plan, "DeepSpeed");
    QJsonObject o;
    int micro = 0, gas = 0, dpSize = 0, zeroStage = 0;
    if (!plan.pipelines.empty()) {
        const UniformPipeline u = uniformPipeline(plan, "DeepSpeed");
        zeroStage = plan.job.zeroStage;
        if (zeroStage >= 2 && u.stages > 1)
            refuse("zero", "DeepSpeed does not support ZeRO stage ≥2 with pipeline parallelism");
        micro = u.microBatchPerGpu();
        gas = u.microBatches;
        dpSize = u.dataParallelSize();
        if (u.stages > 1) {
            const std::vector<int>& b = u.bounds;
            bool even = true;
            for (size_t s = 1; s + 1 < b.size(); ++s)
                even &= b[s + 1] - b[s] == b[1] - b[0];
            // DeepSpeed's "pipeline" section knows stages, partition, seed_layers,
            // activation_checkpoint_interval, pipe_partitioned and grad_partitioned. Its partition methods
            // (uniform, parameters, type:regex) cannot name arbitrary boundaries, and "uniform" counts the
            // user's PipelineModule layers, not ours: the exact split always goes to a namespaced section.
            QJsonObject pipe{{"stages", u.stages}};
            if (even)
                pipe["partition"] = "uniform";
            o["pipeline"] = pipe;
            QJsonArray bounds;
            for (int x : b)
                bounds.append(x);
            o["hetplan"] = QJsonObject{
                {"layer_boundaries", bounds},
                {"note", "DeepSpeed's PipelineModule cannot take arbitrary boundaries from the config; pass these "
                         "to your PipelineModule partitioning"}};
        }
    } else {
        const UniformZero u = uniformZero(plan, "DeepSpeed");
        zeroStage = u.stage;
        micro = u.microBatchSize;
        gas = u.accumulationSteps;
        dpSize = u.gpus;
    }
    o["train_batch_size"] = micro * gas * dpSize;
    o["train_micro_batch_size_per_gpu"] = micro;
    o["gradient_accumulation_steps"] = gas;
    o["zero_optimization"] = QJsonObject{{"stage", zeroStage}};
    if (plan.job.precision == Precision::FP16)
        o["fp16"] = QJsonObject{{"enabled", true}};
    else if (plan.job.precision == Precision::BF16)
        o["bf16"] = QJsonObject{{"enabled", true}};
    return o;
}

// ---------------------------------------------------------------- Megatron-LM

std::string formatMegatronLayout(const std::vector<int>& perStage)
{
    std::string out;
    for (size_t s = 0; s < perStage.size(); ++s) {
        if (s > 0)
            out += '|';
        if (s == 0)
            out += 'E';
        if (perStage[s] == 1)
            out += 't';
        else if (perStage[s] > 1)
            out += "t*" + std::to_string(perStage[s]);
        if (s + 1 == perStage.size())
            out += 'L';
    }
    return out;
}

std::vector<int> parseMegatronLayout(const std::string& layout)
{
    const size_t kMaxExpanded = 1 << 20;
    auto fail = [&](const std::string& reason) { layoutError(layout, reason); };
    auto readCount = [&](const std::string& s, size_t& i) {
        size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
            ++j;
        if (j == i || j - i > 6)
            fail("expected a repeat count after '*'");
        const int n = std::stoi(s.substr(i, j - i));
        i = j;
        return n;
    };

    std::string s;
    for (char c : layout)
        if (c != ',' && c != ' ')
            s += c;
    // 1. Unroll "(group)*N" (groups do not nest, as in Megatron's parser).
    std::string g;
    for (size_t i = 0; i < s.size();) {
        if (s[i] == ')')
            fail("unbalanced ')'");
        if (s[i] != '(') {
            g += s[i++];
            continue;
        }
        const size_t close = s.find(')', i + 1);
        if (close == std::string::npos)
            fail("unbalanced '('");
        const std::string body = s.substr(i + 1, close - i - 1);
        if (body.empty() || body.find('(') != std::string::npos)
            fail("empty or nested group");
        if (close + 1 >= s.size() || s[close + 1] != '*')
            fail("a group must be followed by '*N'");
        size_t k = close + 2;
        const int n = readCount(s, k);
        if (body.size() * size_t(n) + g.size() > kMaxExpanded)
            fail("layout too long");
        for (int r = 0; r < n; ++r)
            g += body;
        i = k;
    }
    // 2. Unroll "x*N".
    std::string flat;
    for (size_t i = 0; i < g.size();) {
        const char c = g[i++];
        if (c == '*')
            fail("'*' without a layer character");
        if (i < g.size() && g[i] == '*') {
            if (c == '|')
                fail("'|' cannot be repeated outside a group");
            ++i;
            const int n = readCount(g, i);
            if (flat.size() + size_t(n) > kMaxExpanded)
                fail("layout too long");
            flat.append(size_t(n), c);
        } else {
            flat += c;
        }
    }
    // 3. Stages.
    std::vector<int> perStage(1, 0);
    int embeddings = 0, losses = 0;
    for (size_t i = 0; i < flat.size(); ++i) {
        const char c = flat[i];
        switch (c) {
        case '|': perStage.push_back(0); break;
        case 't': ++perStage.back(); break;
        case 'm': break;
        case 'E':
            if (i != 0)
                fail("the embedding 'E' must open the first stage");
            ++embeddings;
            break;
        case 'L':
            if (i + 1 != flat.size())
                fail("the loss 'L' must close the last stage");
            ++losses;
            break;
        default: fail(std::string("unknown layer character '") + c + "' (known: E, L, t, m)");
        }
    }
    if (embeddings != 1)
        fail("the layout needs one embedding 'E' at the start");
    if (losses != 1)
        fail("the layout needs one loss 'L' at the end");
    return perStage;
}

std::vector<std::string> megatronArguments(const Plan& plan)
{
    refuseSpmd(plan, "Megatron-LM");
    const ModelSpec& m = plan.model;
    // Megatron builds GPT/BERT-style models: embedding, transformer blocks, head.
    for (int l = 0; l < m.layerCount(); ++l) {
        const LayerKind k = m.layers[l].kind;
        if (!isBlock(k) && k != LayerKind::Embedding && k != LayerKind::Head)
            refuse("model.layers[" + std::to_string(l) + "]",
                   "Megatron-LM builds transformer models; layer '" + m.layers[l].name + "' is not an embedding, "
                   "transformer block or head");
    }
    const int blocks = m.blockCount();
    if (blocks == 0)
        refuse("model", "the model has no transformer blocks");

    int tp = 1, pp = 1, micro = 0, global = 0, zeroStage = 0;
    std::vector<int> perStage;
    if (!plan.pipelines.empty()) {
        const UniformPipeline u = uniformPipeline(plan, "Megatron-LM");
        tp = u.tp;
        pp = u.stages;
        micro = u.microBatchPerGpu();
        global = u.microBatchSize * u.microBatches * u.replicas;
        zeroStage = plan.job.zeroStage;
        for (int s = 0; s < u.stages; ++s) {
            int n = 0;
            for (int l = u.bounds[s]; l < u.bounds[s + 1]; ++l) {
                const LayerKind k = m.layers[l].kind;
                n += isBlock(k);
                if (k == LayerKind::Embedding && s != 0)
                    refuse("pipelines[0].stages[" + std::to_string(s) + "]",
                           "Megatron-LM keeps the embedding in the first stage; this plan puts it in stage " +
                               std::to_string(s));
                if (k == LayerKind::Head && s != u.stages - 1)
                    refuse("pipelines[0].stages[" + std::to_string(s) + "]",
                           "Megatron-LM keeps the head/loss in the last stage; this plan puts it in stage " +
                               std::to_string(s));
            }
            perStage.push_back(n);
        }
    } else {
        const UniformZero u = uniformZero(plan, "Megatron-LM");
        micro = u.microBatchSize;
        global = u.microBatchSize * u.accumulationSteps * u.gpus;
        zeroStage = u.stage;
    }
    if (zeroStage >= 2)
        refuse("zero", "Megatron-LM's distributed optimizer shards optimizer states only (ZeRO-1); ZeRO stage " +
                           std::to_string(zeroStage) + " has no Megatron equivalent");

    std::vector<std::string> a{"--tensor-model-parallel-size", std::to_string(tp),
                               "--pipeline-model-parallel-size", std::to_string(pp),
                               "--micro-batch-size", std::to_string(micro),
                               "--global-batch-size", std::to_string(global),
                               "--num-layers", std::to_string(blocks)};
    if (m.arch.hidden > 0)
        a.insert(a.end(), {"--hidden-size", std::to_string(m.arch.hidden)});
    if (m.arch.heads > 0)
        a.insert(a.end(), {"--num-attention-heads", std::to_string(m.arch.heads)});
    if (m.arch.ffn > 0)
        a.insert(a.end(), {"--ffn-hidden-size", std::to_string(m.arch.ffn)});
    a.insert(a.end(), {"--seq-length", std::to_string(plan.job.sequenceLength)});
    a.insert(a.end(), {"--max-position-embeddings", std::to_string(std::max(plan.job.sequenceLength, m.arch.sequence))});
    if (m.arch.experts > 0)
        a.insert(a.end(), {"--num-experts", std::to_string(m.arch.experts)});
    if (plan.job.precision == Precision::FP16)
        a.push_back("--fp16");
    else if (plan.job.precision == Precision::BF16)
        a.push_back("--bf16");
    if (zeroStage == 1)
        a.push_back("--use-distributed-optimizer");
    if (plan.job.recompute)
        a.insert(a.end(), {"--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"});
    if (pp > 1 && std::any_of(perStage.begin(), perStage.end(), [&](int n) { return n != perStage.front(); }))
        a.insert(a.end(), {"--pipeline-model-parallel-layout", formatMegatronLayout(perStage)});
    refuseScatteredRanks(plan);
    return a;
}

std::string megatronArgumentText(const Plan& plan)
{
    const std::vector<std::string> a = megatronArguments(plan);
    std::string out;
    for (size_t i = 0; i < a.size(); ++i) {
        const bool option = a[i].rfind("--", 0) == 0;
        if (option && i > 0)
            out += " \\\n";
        else if (i > 0)
            out += ' ';
        out += shellQuote(a[i]);
    }
    return out + "\n";
}

// ---------------------------------------------------------------- launch files

std::string hostfile(const Plan& plan)
{
    refuseScatteredRanks(plan);
    std::vector<std::string> order;
    std::map<std::string, int> perHost;
    for (const RankInfo& r : plan.ranks()) {
        if (!perHost.count(r.host))
            order.push_back(r.host);
        ++perHost[r.host];
    }
    std::string out;
    for (const std::string& h : order)
        out += h + " slots=" + std::to_string(perHost[h]) + "\n";
    return out;
}

std::string rankTable(const Plan& plan)
{
    std::string out = "rank,gpu,host,local_rank\n";
    for (const RankInfo& r : plan.ranks())
        out += std::to_string(r.rank) + "," + plan.cluster.gpuName(r.gpu) + "," + r.host + "," +
               std::to_string(r.localRank) + "\n";
    return out;
}

// ---------------------------------------------------------------- Chrome trace

QJsonObject chromeTrace(const Plan& plan, const SimResult& result)
{
    const Cluster& c = plan.cluster;
    const int G = c.gpuCount();
    // Integer nanoseconds for the lane assignment, so "no overlap" holds exactly for what is written.
    struct Item {
        const TimelineEvent* e;
        long long start, end;
    };
    std::map<std::pair<int, int>, std::vector<Item>> tracks;   // (gpu, 0 compute | 1 communication)
    for (const TimelineEvent& e : result.events) {
        if (e.gpu < 0 || e.gpu >= G)
            continue;
        const long long s = std::llround(e.start * 1e9), t = std::llround(e.end * 1e9);
        if (t <= s)
            continue;   // nothing to draw
        tracks[{e.gpu, isCommunication(e.kind) ? 1 : 0}].push_back({&e, s, t});
    }

    QJsonArray events;
    std::map<int, bool> namedNode;
    for (auto& [key, items] : tracks) {
        const auto [gpu, track] = key;
        const int node = c.gpu(gpu).node;
        if (!namedNode[node]) {
            namedNode[node] = true;
            const Node& n = c.nodes[node];
            events.append(QJsonObject{{"ph", "M"}, {"name", "process_name"}, {"pid", node}, {"tid", 0},
                                      {"args", QJsonObject{{"name", qs(n.name + " (" + n.deviceType + ")")}}}});
            events.append(QJsonObject{{"ph", "M"}, {"name", "process_sort_index"}, {"pid", node}, {"tid", 0},
                                      {"args", QJsonObject{{"sort_index", node}}}});
        }
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
        std::vector<long long> laneEnd;   // greedy interval partitioning: first lane that is free
        for (const Item& it : items) {
            size_t lane = 0;
            while (lane < laneEnd.size() && laneEnd[lane] > it.start)
                ++lane;
            if (lane == laneEnd.size()) {
                laneEnd.push_back(0);
                const int tid = int(2 * G * lane) + gpu * 2 + track;
                std::string name = "GPU " + c.gpuName(gpu) + (track ? " communication" : " compute");
                if (lane > 0)
                    name += " #" + std::to_string(lane + 1);
                events.append(QJsonObject{{"ph", "M"}, {"name", "thread_name"}, {"pid", node}, {"tid", tid},
                                          {"args", QJsonObject{{"name", qs(name)}}}});
                events.append(QJsonObject{{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", node}, {"tid", tid},
                                          {"args", QJsonObject{{"sort_index", gpu * 64 + track * 32 + int(lane)}}}});
            }
            laneEnd[lane] = it.end;
            const TimelineEvent& e = *it.e;
            std::string name = toString(e.kind);
            if (e.microBatch >= 0)
                name += " " + std::to_string(e.microBatch);
            QJsonObject args{{"pipeline", e.pipeline}, {"replica", e.replica}, {"stage", e.stage}};
            if (e.microBatch >= 0)
                args["micro_batch"] = e.microBatch;
            events.append(QJsonObject{{"ph", "X"},
                                      {"name", qs(name)},
                                      {"cat", track ? "communication" : "compute"},
                                      {"pid", node},
                                      {"tid", int(2 * G * lane) + gpu * 2 + track},
                                      {"ts", double(it.start) / 1000.0},
                                      {"dur", double(it.end - it.start) / 1000.0},
                                      {"args", args}});
        }
    }
    return QJsonObject{{"traceEvents", events},
                       {"displayTimeUnit", "ms"},
                       {"otherData", QJsonObject{{"planner", qs(plan.planner)},
                                                 {"iteration_seconds", result.iterationSeconds}}}};
}

// ---------------------------------------------------------------- dispatch

std::vector<std::string> exportFormats() { return {"plan", "deepspeed", "megatron", "hostfile", "rank-table", "chrome-trace"}; }

std::string exportPlan(const Plan& plan, const std::string& format)
{
    auto json = [](const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString(); };
    if (format == "plan")
        return json(toJson(plan));
    if (format == "deepspeed")
        return json(deepSpeedConfig(plan));
    if (format == "megatron")
        return megatronArgumentText(plan);
    if (format == "hostfile")
        return hostfile(plan);
    if (format == "rank-table")
        return rankTable(plan);
    if (format == "chrome-trace") {
        CostModel costs(plan.model, plan.job, plan.profile);
        return QJsonDocument(chromeTrace(plan, simulate(plan, costs))).toJson(QJsonDocument::Compact).toStdString();
    }
    std::string known;
    for (const std::string& f : exportFormats())
        known += (known.empty() ? "" : "|") + f;
    throw InputError("--format", "format", "unknown export format '" + format + "' (expected " + known + ")");
}

} // namespace hetplan
