// Plan JSON (hetplan.plan/1): the decision, its scores and its inputs. GPUs are written by name
// ("node/local") and read back to dense indices of the plan's own cluster.
#include "json_io.h"
#include "plan_spmd_json.h"
#include "plan_summary_json.h"

#include "core/base/json_reader.h"
#include "core/base/qstrings.h"

#include "core/base/errors.h"
#include "core/base/names.h"
#include "core/cost/spmd_costs.h"
#include "core/model/pricing.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace hetplan {

namespace {

// GPU names ("node/local") and dense indices of one plan's cluster, both ways, built in one pass:
// Cluster::gpuName and findGpu walk the node list on every call, which made writing and reading a plan
// quadratic in the node count (minutes on a 100,000-node cluster).
class GpuIndex {
public:
    explicit GpuIndex(const Cluster& c) : cluster_(c), refs_(c.gpuRefs()), offsets_(c.nodeOffsets())
    {
        for (size_t n = 0; n < c.nodes.size(); ++n)
            nodeByName_.emplace(c.nodes[n].name, int(n)); // the first of equal names, as findNode
    }
    std::string name(int g) const
    {
        const GpuRef& r = refs_.at(size_t(g));
        return cluster_.nodes[size_t(r.node)].name + "/" + std::to_string(r.local);
    }
    std::optional<int> find(const std::string& name) const // as Cluster::findGpu
    {
        const auto slash = name.rfind('/');
        if (slash == std::string::npos)
            return std::nullopt;
        const auto node = nodeByName_.find(name.substr(0, slash));
        const std::string idx = name.substr(slash + 1);
        if (node == nodeByName_.end() || idx.empty() || idx.size() > 6 ||
            !std::all_of(idx.begin(), idx.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
            return std::nullopt;
        const int local = std::stoi(idx);
        if (local >= cluster_.nodes[size_t(node->second)].gpus)
            return std::nullopt;
        return offsets_[size_t(node->second)] + local;
    }

private:
    const Cluster& cluster_;
    std::vector<GpuRef> refs_;
    std::vector<int> offsets_;
    std::unordered_map<std::string, int> nodeByName_;
};

QJsonArray gpuNames(const GpuIndex& ix, const std::vector<int>& gpus)
{
    QJsonArray a;
    for (int g : gpus)
        a.append(toQString(ix.name(g)));
    return a;
}

int gpuFromName(const GpuIndex& ix, const QJsonValue& v, const std::string& file, const std::string& field)
{
    if (!v.isString())
        throw InputError(file, field, "expected a GPU name like \"node/0\"");
    const std::string name = v.toString().toStdString();
    auto g = ix.find(name);
    if (!g)
        throw InputError(file, field, "unknown GPU '" + name + "' in the plan's cluster");
    return *g;
}

std::vector<int> intArray(const JsonReader& r, const std::string& key)
{
    std::vector<int> out;
    const QJsonArray a = r.array(key);
    for (int i = 0; i < a.size(); ++i) {
        // Whole numbers only, as JsonReader::integer: 0.5 must not quietly become 0.
        const double d = a.at(i).toDouble();
        if (!a.at(i).isDouble() || d != std::floor(d) || std::fabs(d) > 2e9)
            r.fail(key + "[" + std::to_string(i) + "]", "expected an integer");
        out.push_back(int(d));
    }
    return out;
}
// estimate.frameworks: {"megatron": {"ok": true, "reasons": []}, ...}
std::map<std::string, FrameworkVerdict> frameworksFromJson(const JsonReader& fw)
{
    std::map<std::string, FrameworkVerdict> out;
    for (auto it = fw.object().begin(); it != fw.object().end(); ++it) {
        const std::string name = it.key().toStdString();
        const JsonReader v = fw.object(name);
        v.allowOnly({"ok", "reasons"});
        FrameworkVerdict verdict;
        verdict.ok = v.boolean("ok", true);
        const QJsonArray reasons = v.array("reasons");
        for (int i = 0; i < reasons.size(); ++i) {
            if (!reasons.at(i).isString())
                v.fail("reasons[" + std::to_string(i) + "]", "expected a string");
            verdict.reasons.push_back(reasons.at(i).toString().toStdString());
        }
        out[name] = std::move(verdict);
    }
    return out;
}

// estimate.cost: {"dollars_per_hour": h, "dollars_per_million_tokens": m}, both positive and finite; or, when
// the cost is unknown, both null with "unknown_because" and the "unpriced_device_types" that made it so.
void costFromJson(const JsonReader& c, Estimate& est)
{
    c.allowOnly({"dollars_per_hour", "dollars_per_million_tokens", "unknown_because", "unpriced_device_types"});
    if (c.value("dollars_per_hour").isNull()) {
        if (!c.value("dollars_per_million_tokens").isNull())
            c.fail("dollars_per_million_tokens", "must be null when dollars_per_hour is null");
        const QJsonArray types = c.has("unpriced_device_types") ? c.array("unpriced_device_types") : QJsonArray{};
        for (int i = 0; i < types.size(); ++i) {
            if (!types.at(i).isString() || types.at(i).toString().isEmpty())
                c.fail("unpriced_device_types[" + std::to_string(i) + "]", "expected a device type name");
            est.unpricedDeviceTypes.push_back(types.at(i).toString().toStdString());
        }
        return;
    }
    PlanCost cost;
    cost.dollarsPerHour = c.number("dollars_per_hour");
    cost.dollarsPerMillionTokens = c.number("dollars_per_million_tokens");
    for (const char* key : {"dollars_per_hour", "dollars_per_million_tokens"})
        if (!(c.number(key) > 0 && std::isfinite(c.number(key))))
            c.fail(key, "must be a positive, finite number of US dollars");
    est.cost = cost;
}

// Always written, so every plan says what it costs or why that is unknown.
QJsonObject costToJson(const Estimate& est)
{
    if (est.cost && costIsFinite(*est.cost)) // JSON has no infinity: a non-finite cost is an unknown one
        return QJsonObject{{"dollars_per_hour", est.cost->dollarsPerHour},
                           {"dollars_per_million_tokens", est.cost->dollarsPerMillionTokens}};
    QJsonObject c{{"dollars_per_hour", QJsonValue::Null},
                  {"dollars_per_million_tokens", QJsonValue::Null},
                  {"unknown_because", toQString(costUnknownReason(est))}};
    if (!est.unpricedDeviceTypes.empty()) {
        QJsonArray types;
        for (const std::string& t : est.unpricedDeviceTypes)
            types.append(toQString(t));
        c["unpriced_device_types"] = types;
    }
    return c;
}

// ---------------------------------------------------------------- writing, section by section

QJsonObject estimateToJson(const Plan& p, const GpuIndex& ix)
{
    QJsonObject est{{"iteration_seconds", p.estimate.iterationSeconds},
                    {"tokens_per_second", p.estimate.tokensPerSecond},
                    {"feasible", p.estimate.feasible}};
    QJsonObject mem;
    for (const auto& [g, bytes] : p.estimate.peakMemoryBytes)
        mem[toQString(ix.name(g))] = bytes;
    est["peak_memory_bytes"] = mem;
    if (!p.estimate.memory.empty()) {
        QJsonObject parts;
        for (const auto& [g, m] : p.estimate.memory)
            parts[toQString(ix.name(g))] = gpuMemoryToJson(m);
        est["memory_breakdown"] = parts;
    }
    est["cost"] = costToJson(p.estimate);
    if (!p.estimate.frameworks.empty()) {
        QJsonObject fw;
        for (const auto& [name, verdict] : p.estimate.frameworks) {
            QJsonArray reasons;
            for (const std::string& why : verdict.reasons)
                reasons.append(toQString(why));
            fw[toQString(name)] = QJsonObject{{"ok", verdict.ok}, {"reasons", reasons}};
        }
        est["frameworks"] = fw;
    }
    return est;
}

QJsonObject searchToJson(const SearchStats& st)
{
    QJsonObject search{{"seconds", st.seconds}, {"candidates", double(st.candidates)}};
    for (const auto& [k, v] : st.extra)
        search[toQString(k)] = v;
    if (st.stopped != StopReason::None)
        search["stopped"] = toQString(toString(st.stopped));
    return search;
}

QJsonArray candidatesToJson(const std::vector<Candidate>& candidates)
{
    QJsonArray cands;
    for (const Candidate& cd : candidates) {
        QJsonArray lps;
        for (int n : cd.layersPerStage)
            lps.append(n);
        QJsonObject j{{"pp", cd.pp},
                      {"dp", cd.dp},
                      {"tp", cd.tp},
                      {"micro_batch_size", cd.microBatchSize},
                      {"layers_per_stage", lps},
                      {"planner_cost", cd.plannerCost}};
        if (cd.simulatedCost)
            j["simulated_cost"] = *cd.simulatedCost;
        cands.append(j);
    }
    return cands;
}

QJsonArray pipelinesToJson(const Plan& p, const GpuIndex& ix)
{
    QJsonArray pls;
    for (const Pipeline& pl : p.pipelines) {
        QJsonArray stages;
        for (const Stage& s : pl.stages)
            stages.append(QJsonObject{{"layers", QJsonArray{s.firstLayer, s.endLayer}},
                                      {"gpus", gpuNames(ix, s.gpus)},
                                      {"tensor_parallel", s.tensorParallel},
                                      {"data_parallel", s.dataParallel}});
        QJsonObject o{{"replicas", pl.replicas},
                      {"micro_batch_size", pl.microBatchSize},
                      {"micro_batches", pl.microBatches},
                      {"stages", stages}};
        if (pl.virtualStages != 1)
            o["virtual_stages"] = pl.virtualStages;
        if (pl.contextParallel != 1)
            o["context_parallel"] = pl.contextParallel;
        if (pl.expertParallel != 1)
            o["expert_parallel"] = pl.expertParallel;
        pls.append(o);
    }
    return pls;
}

QJsonObject zeroToJson(const ZeroPlan& z, const GpuIndex& ix)
{
    QJsonArray gpus;
    for (const ZeroGpu& g : z.gpus)
        gpus.append(QJsonObject{{"gpu", toQString(ix.name(g.gpu))},
                                {"micro_batch_size", g.microBatchSize},
                                {"accumulation_steps", g.accumulationSteps},
                                {"last_micro_batch_size", g.lastMicroBatchSize}});
    return QJsonObject{{"stage", z.stage}, {"gpus", gpus}};
}

QJsonArray ranksToJson(const Plan& p, const GpuIndex& ix)
{
    QJsonArray ranks;
    for (const RankInfo& r : p.ranks())
        ranks.append(QJsonObject{{"rank", r.rank},
                                 {"gpu", toQString(ix.name(r.gpu))},
                                 {"host", toQString(r.host)},
                                 {"local_rank", r.localRank}});
    return ranks;
}

// ---------------------------------------------------------------- reading, section by section

// The inputs must describe one run: a profile of another model, or a job at another sequence length
// than the model was built for, would make every score in the file meaningless.
void readInputs(const JsonReader& r, Plan& p, const std::string& file)
{
    JsonReader inputs = r.object("inputs");
    // Each sub-document's errors point into its own section ("inputs.model.layers[2].params").
    auto section = [&](const char* name, auto read) {
        const QJsonObject doc = inputs.object(name).object(); // "inputs.<name>: missing" as it is
        try {
            read(doc);
        } catch (const InputError& e) {
            const std::string at = std::string("inputs.") + name;
            throw InputError(file, e.field().empty() ? at : at + "." + e.field(), e.reason());
        }
    };
    section("cluster", [&](const QJsonObject& o) { p.cluster = clusterFromJson(o, file); });
    section("model", [&](const QJsonObject& o) { p.model = modelFromJson(o, file); });
    if (inputs.has("profile"))
        section("profile", [&](const QJsonObject& o) { p.profile = profileFromJson(o, file); });
    p.job = jobFromJson(r.object("job").object(), file);
    if (!p.profile.empty() && p.profile.layerCount() != p.model.layerCount())
        throw InputError(file, "inputs.profile.layers",
                         "the profile has " + std::to_string(p.profile.layerCount()) + " layers, the model " +
                             std::to_string(p.model.layerCount()));
    if (p.model.arch.sequence > 0 && p.job.sequenceLength != p.model.arch.sequence)
        throw InputError(file, "job.sequence_length",
                         std::to_string(p.job.sequenceLength) + " differs from the model's sequence length " +
                             std::to_string(p.model.arch.sequence));
}

void readEstimate(const JsonReader& r, Plan& p, const GpuIndex& ix, const std::string& file)
{
    JsonReader est = r.object("estimate");
    p.estimate.iterationSeconds = est.number("iteration_seconds", 0);
    p.estimate.tokensPerSecond = est.number("tokens_per_second", 0);
    p.estimate.feasible = est.boolean("feasible", true);
    if (est.has("peak_memory_bytes")) {
        JsonReader mem = est.object("peak_memory_bytes");
        for (auto it = mem.object().begin(); it != mem.object().end(); ++it) {
            const std::string key = it.key().toStdString();
            int g = gpuFromName(ix, QJsonValue(it.key()), file, mem.field(key));
            p.estimate.peakMemoryBytes[g] = mem.number(key);
        }
    }
    if (est.has("memory_breakdown")) {
        JsonReader parts = est.object("memory_breakdown");
        for (auto it = parts.object().begin(); it != parts.object().end(); ++it) {
            const std::string key = it.key().toStdString();
            int g = gpuFromName(ix, QJsonValue(it.key()), file, parts.field(key));
            p.estimate.memory[g] = gpuMemoryFromJson(parts.object(key));
        }
    }
    if (est.has("frameworks"))
        p.estimate.frameworks = frameworksFromJson(est.object("frameworks"));
    if (est.has("cost"))
        costFromJson(est.object("cost"), p.estimate);
    if (r.has("planner_estimate"))
        p.plannerEstimate = r.object("planner_estimate").number("iteration_seconds");
}

SearchStats searchFromJson(const JsonReader& s)
{
    SearchStats st;
    for (auto it = s.object().begin(); it != s.object().end(); ++it) {
        const std::string key = it.key().toStdString();
        if (key == "seconds") {
            st.seconds = s.number(key);
        } else if (key == "candidates") {
            st.candidates = (long long)s.number(key);
        } else if (key == "stopped") {
            const std::string why = s.string(key);
            if (!parseStopReason(why, st.stopped))
                s.fail(key, "expected \"cancelled\" or \"time-limit\", got " + quotedInput(why));
        } else {
            st.extra[key] = s.number(key);
        }
    }
    return st;
}

std::vector<Candidate> candidatesFromJson(const JsonReader& r)
{
    std::vector<Candidate> out;
    const QJsonArray a = r.array("candidates");
    for (int i = 0; i < a.size(); ++i) {
        JsonReader c = r.element(a, "candidates", i);
        Candidate cd;
        cd.pp = c.integer("pp");
        cd.dp = c.integer("dp");
        cd.tp = c.integer("tp");
        cd.microBatchSize = c.integer("micro_batch_size");
        cd.layersPerStage = intArray(c, "layers_per_stage");
        cd.plannerCost = c.number("planner_cost");
        if (c.has("simulated_cost"))
            cd.simulatedCost = c.number("simulated_cost");
        out.push_back(cd);
    }
    return out;
}

Stage stageFromJson(const JsonReader& sr, const GpuIndex& ix, const std::string& file)
{
    Stage st;
    std::vector<int> range = intArray(sr, "layers");
    if (range.size() != 2)
        sr.fail("layers", "expected [first, end)");
    st.firstLayer = range[0];
    st.endLayer = range[1];
    const QJsonArray gpus = sr.array("gpus");
    for (int g = 0; g < gpus.size(); ++g)
        st.gpus.push_back(gpuFromName(ix, gpus.at(g), file, sr.field("gpus[" + std::to_string(g) + "]")));
    st.tensorParallel = sr.integer("tensor_parallel", 1);
    st.dataParallel = sr.integer("data_parallel", 1);
    return st;
}

std::vector<Pipeline> pipelinesFromJson(const JsonReader& r, const GpuIndex& ix, const std::string& file)
{
    std::vector<Pipeline> out;
    const QJsonArray pls = r.array("pipelines");
    for (int i = 0; i < pls.size(); ++i) {
        JsonReader pr = r.element(pls, "pipelines", i);
        Pipeline pl;
        pl.replicas = pr.integer("replicas", 1);
        pl.microBatchSize = pr.integer("micro_batch_size");
        pl.microBatches = pr.integer("micro_batches");
        pl.virtualStages = pr.integer("virtual_stages", 1);
        pl.contextParallel = pr.integer("context_parallel", 1);
        pl.expertParallel = pr.integer("expert_parallel", 1);
        const QJsonArray stages = pr.array("stages");
        for (int s = 0; s < stages.size(); ++s)
            pl.stages.push_back(stageFromJson(pr.element(stages, "stages", s), ix, file));
        out.push_back(pl);
    }
    return out;
}

ZeroPlan zeroFromJson(const JsonReader& z, const Plan& p, const GpuIndex& ix, const std::string& file)
{
    ZeroPlan zp;
    // The plan's stage is the planner's decision (Poplar raises it per plan); the job's is the user's floor.
    zp.stage = z.integer("stage");
    if (zp.stage < 0 || zp.stage > 3)
        z.fail("stage", "must be 0, 1, 2 or 3");
    if (zp.stage < p.job.zeroStage)
        z.fail("stage", "ZeRO stage " + std::to_string(zp.stage) + " is below job.zero_stage " +
                            std::to_string(p.job.zeroStage) + ", the least the job asks for");
    const QJsonArray gpus = z.array("gpus");
    for (int i = 0; i < gpus.size(); ++i) {
        JsonReader g = z.element(gpus, "gpus", i);
        ZeroGpu zg;
        zg.gpu = gpuFromName(ix, g.value("gpu"), file, g.field("gpu"));
        zg.microBatchSize = g.integer("micro_batch_size");
        zg.accumulationSteps = g.integer("accumulation_steps");
        zg.lastMicroBatchSize = g.integer("last_micro_batch_size", zg.microBatchSize);
        zp.gpus.push_back(zg);
    }
    return zp;
}

} // namespace

namespace {

bool isPlanKey(const QString& key)
{
    const std::string k = key.toStdString();
    return std::any_of(planKeys().begin(), planKeys().end(), [&](const PlanKey& p) { return k == p.key; });
}

std::map<std::string, QJsonObject> detailsFromJson(const JsonReader& r)
{
    std::map<std::string, QJsonObject> out;
    for (auto it = r.object().begin(); it != r.object().end(); ++it) {
        if (isPlanKey(it.key()))
            continue;
        const std::string key = it.key().toStdString();
        if (!it.value().isObject())
            r.fail(key, "unknown field (a planner's own section must be an object)");
        out[key] = it.value().toObject();
    }
    return out;
}

} // namespace

const std::vector<PlanKey>& planKeys()
{
    static const std::vector<PlanKey> keys{
        {"schema", true},   {"planner", true},    {"options", false},    {"cluster", true},
        {"model", true},    {"job", true},        {"estimate", true},    {"planner_estimate", false},
        {"summary", false}, {"search", false},    {"candidates", false}, {"pipelines", false},
        {"zero", false},    {"spmd", false},      {"ranks", true},       {"inputs", true}};
    return keys;
}

QJsonObject toJson(const Plan& p)
{
    QJsonObject o;
    o["schema"] = "hetplan.plan/1";
    o["planner"] = toQString(p.planner);
    if (!p.options.empty()) {
        QJsonObject opts;
        for (const auto& [k, v] : p.options)
            opts[toQString(k)] = toQString(v);
        o["options"] = opts;
    }
    o["cluster"] = toQString(p.cluster.name);
    o["model"] = toQString(p.model.name);
    o["job"] = toJson(p.job);
    const GpuIndex gpus(p.cluster);
    o["estimate"] = estimateToJson(p, gpus);
    if (p.plannerEstimate)
        o["planner_estimate"] = QJsonObject{{"iteration_seconds", *p.plannerEstimate}};
    if (p.summary)
        o["summary"] = summaryToJson(*p.summary);
    o["search"] = searchToJson(p.search);
    if (!p.candidates.empty())
        o["candidates"] = candidatesToJson(p.candidates);
    if (!p.pipelines.empty())
        o["pipelines"] = pipelinesToJson(p, gpus);
    if (p.zero)
        o["zero"] = zeroToJson(*p.zero, gpus);
    if (p.spmd)
        o["spmd"] = spmdToJson(*p.spmd);
    o["ranks"] = ranksToJson(p, gpus);
    QJsonObject inputs{{"cluster", toJson(p.cluster)}, {"model", toJson(p.model)}};
    if (!p.profile.empty())
        inputs["profile"] = toJson(p.profile);
    o["inputs"] = inputs;
    for (const auto& [key, section] : p.details) {
        if (isPlanKey(toQString(key)))
            throw std::logic_error("planner section '" + key + "' would overwrite the plan's own key");
        o[toQString(key)] = section;
    }
    return o;
}

Plan planFromJson(const QJsonObject& o, const std::string& file)
{
    JsonReader r(o, file);
    if (r.string("schema") != "hetplan.plan/1")
        r.fail("schema", "expected \"hetplan.plan/1\"");
    Plan p;
    p.planner = r.string("planner");
    // Any planner's name, ours or another tool's, as long as it is a plain name: it is written into scripts.
    if (const std::string why = plainNameProblem(p.planner); !why.empty())
        r.fail("planner", why);
    if (r.has("options")) {
        JsonReader opts = r.object("options");
        for (auto it = opts.object().begin(); it != opts.object().end(); ++it)
            p.options[it.key().toStdString()] = opts.string(it.key().toStdString());
    }
    readInputs(r, p, file);
    const GpuIndex gpus(p.cluster);
    readEstimate(r, p, gpus, file);
    if (r.has("summary")) // plans written before the summary existed have none
        p.summary = summaryFromJson(r.object("summary"));
    if (r.has("search"))
        p.search = searchFromJson(r.object("search"));
    if (r.has("candidates"))
        p.candidates = candidatesFromJson(r);
    if (r.has("pipelines"))
        p.pipelines = pipelinesFromJson(r, gpus, file);
    if (r.has("zero"))
        p.zero = zeroFromJson(r.object("zero"), p, gpus, file);
    if (r.has("spmd"))
        p.spmd = spmdFromJson(r.object("spmd"));
    p.details = detailsFromJson(r);
    p.validate(file);
    return p;
}

} // namespace hetplan
