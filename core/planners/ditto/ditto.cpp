#include "ditto.h"

#include "folding.h"
#include "recovery.h"

#include "core/base/errors.h"
#include "core/planners/common/exact_pipeline.h"
#include "core/planners/common/oobleck_templates.h"
#include "core/planners/megatron_space.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace hetplan {

std::vector<PlannerOption> DittoPlanner::options() const
{
    return withMegatronSpace({PlannerOption::choice("recovery", "Recovery", "dp", {"dp", "greedy", "paper"},
                                  "dp: merge single-GPU virtual stages (algorithm 2 with a beam and memory-aware "
                                  "merges); greedy: assign devices to Oobleck's virtual template (algorithm 1); "
                                  "paper: algorithm 2 as published (one state per stage, x GPUs merge exactly "
                                  "x·d_i stages, no exact fallback)"),
            PlannerOption::choice("folding", "Node folding", "plain", {"plain", "comm"},
                                  "plain: d_i = round(c_w / c_i); comm: also charge communication (5.3.2)"),
            PlannerOption::integer("beam", "DP states per cell", 64, 1, 4096,
                                   "states the DP recovery keeps per virtual stage (1 = the paper's single state)"),
            PlannerOption::choice("merge", "DP merges", "any", {"any", "folded"},
                                  "folded: x GPUs of type i merge up to x·d_i virtual stages (the paper); any: any "
                                  "number (section 6.4's remedy, needed when memory binds)"),
            searchedMicroBatchOption(), pipelinesOption(), maxStatesOption(),
            PlannerOption::integer("exact_below", "Exact search below", 2000000, 0, 1000000000,
                                   "also run the exact pipeline search (exhaustive's), shape by shape from the best "
                                   "recovered one, while the states searched stay at most this, and keep the better "
                                   "plan; 0 = never (ignored with recovery=paper)")});
}

namespace {

std::vector<int> boundsOf(const std::vector<TemplateStage>& stages)
{
    std::vector<int> b{0};
    for (const TemplateStage& s : stages)
        b.push_back(s.end);
    return b;
}

// The stored virtual template of `gpus` virtual GPUs (--reuse), if the plan has one made the same way.
std::optional<std::vector<TemplateStage>> storedTemplate(const PlanRequest& req, const Folding& f,
                                                         const std::string& weakType, int gpus)
{
    auto it = req.reuse.find("ditto");
    if (it == req.reuse.end())
        return std::nullopt;
    const QJsonObject& o = it->second;
    checkReusedInputs(req, o, "ditto");
    if (o.value("recovery").toString().toStdString() != req.option("recovery") ||
        o.value("folding").toObject().value("weakest").toString().toStdString() != weakType)
        return std::nullopt;
    for (const QJsonValue& v : o.value("virtual_templates").toArray()) {
        const QJsonObject t = v.toObject();
        if (t.value("virtual_gpus").toInt() != gpus)
            continue;
        const QJsonArray bounds = t.value("bounds").toArray(), sizes = t.value("gpus").toArray();
        if (bounds.size() != sizes.size() + 1 || bounds.first().toInt() != 0 ||
            bounds.last().toInt() != req.model.layerCount())
            throw InputError("--reuse", "ditto.virtual_templates", "a stored template does not cover the model");
        std::vector<TemplateStage> stages;
        for (qsizetype s = 0; s < sizes.size(); ++s) {
            if (bounds[s + 1].toInt() <= bounds[s].toInt() || sizes[s].toInt() < 1)
                throw InputError("--reuse", "ditto.virtual_templates", "a stored template has an empty stage");
            stages.push_back({bounds[s].toInt(), bounds[s + 1].toInt(), f.weakest, sizes[s].toInt(), {}, 0});
        }
        return stages;
    }
    return std::nullopt;
}

// Oobleck's templates on the virtual cluster: single-GPU stages for the DP, up to M GPUs for greedy.
TemplateTable virtualTable(const StageCosts& sc, const Folding& f, bool dp, int gpus, const Progress& progress)
{
    // Virtual devices have no memory: the recovery checks every real stage (recovery.h), for the greedy as for
    // the DP. The greedy's virtual template keeps Oobleck's stages of up to a node of virtual GPUs.
    return generateTemplates(sc, {f.weakest, f.gpusPerNode, gpus, dp, true}, &progress);
}

std::vector<TemplateStage> fromTable(const TemplateTable& table, bool dp, int gpus, int microBatches)
{
    const PipelineTemplate* t = dp ? table.at(gpus, gpus) : table.best(gpus, microBatches);
    return t ? t->stages : std::vector<TemplateStage>{};
}

QJsonArray dittoTableJson(const TemplateTable& table, bool dp, int upTo, int microBatches)
{
    QJsonArray out;
    for (int g = 1; g <= upTo; ++g) {
        const std::vector<TemplateStage> s = fromTable(table, dp, g, microBatches);
        if (s.empty())
            continue;
        QJsonArray bounds, sizes;
        for (int b : boundsOf(s))
            bounds.append(b);
        for (const TemplateStage& st : s)
            sizes.append(st.gpus);
        out.append(QJsonObject{{"virtual_gpus", g}, {"bounds", bounds}, {"gpus", sizes}});
    }
    return out;
}

QJsonObject foldingJson(const Folding& f, const std::vector<TypeGroup>& groups)
{
    QJsonArray types;
    for (size_t i = 0; i < groups.size(); ++i)
        types.append(QJsonObject{{"device", QString::fromStdString(groups[i].type)},
                                 {"d", f.d[i]},
                                 {"gpus", groups[i].gpus},
                                 {"virtual_gpus", groups[i].gpus * f.d[i]},
                                 {"model_seconds", f.modelSeconds[i]}});
    return QJsonObject{{"mode", QString::fromStdString(f.mode)},
                       {"weakest", QString::fromStdString(groups[f.weakest].type)},
                       {"types", types},
                       {"virtual_gpus", f.virtualGpus},
                       {"gpus_per_node", f.gpusPerNode},
                       {"virtual_nodes", double(f.virtualGpus) / f.gpusPerNode}};
}

} // namespace

namespace {

// (r, S): the virtual devices per weakest GPU and the virtual stages the template search runs on. The DP's
// virtual template has one stage per virtual device: at most L (decision 1), and each weakest GPU split
// into r = ⌊L / V⌋ virtual devices when the model has room (decision 4). The greedy's has V GPUs.
std::pair<int, int> virtualSize(const PlanRequest& req, const Folding& f)
{
    const bool dp = req.option("recovery") != "greedy";
    const int L = req.model.layerCount();
    const int granularity = dp ? std::max(1, L / std::max(1, f.virtualGpus)) : 1;
    return {granularity, dp ? std::min(f.virtualGpus * granularity, L) : f.virtualGpus};
}

void checkTemplateSize(const PlanRequest& req, int stages)
{
    checkStateCount(req, "ditto", templateStateCount(req.model.layerCount(), stages),
                    "layers x virtual GPUs x stage counts");
}

struct Recovered {
    std::vector<TemplateStage> virt, real;
    TemplateTable table; // empty when the stored template was reused
    bool reused = false;
    int granularity = 1, stages = 0;
};

int virtualGpusOf(const std::vector<TemplateStage>& stages)
{
    int g = 0;
    for (const TemplateStage& s : stages)
        g += s.gpus;
    return g;
}

std::string sizesOf(const std::vector<TemplateStage>& stages)
{
    std::string sizes;
    for (const TemplateStage& s : stages)
        sizes += (sizes.empty() ? "" : ",") + std::to_string(s.gpus);
    return sizes;
}

// Greedy on Oobleck's virtual templates, best virtual T first: the first it can recover. Algorithm 1 keeps
// Oobleck's rule of at most one node of virtual GPUs per stage and gives each stage ceil(g_j / d_i) real
// GPUs, so a template of all V virtual GPUs often has more stages than the real GPUs can take (Ex2-Ex5:
// V = 24-44 virtual GPUs, at least V / M stages, on 12-22 real GPUs). Decision: the greedy then falls back
// to Oobleck's templates for fewer virtual GPUs (V - 1, V - 2, ...), i.e. it under-uses the strong GPUs,
// which is the waste section 6.1 describes and the DP recovery removes.
void recoverGreedyFromTable(Recovered& r, const StageCosts& sc, const Folding& f, const std::vector<int>& available,
                            const Progress& progress)
{
    for (int g = r.stages; g >= 1; --g) {
        std::vector<const PipelineTemplate*> order;
        for (auto it = r.table.entries.lower_bound({g, 0}); it != r.table.entries.end() && it->first.first == g; ++it)
            order.push_back(&it->second);
        std::stable_sort(order.begin(), order.end(), [&](auto* a, auto* b) {
            return a->objective(sc.microBatches()) < b->objective(sc.microBatches());
        });
        for (const PipelineTemplate* t : order) {
            progress.checkpoint(); // one recovery per template, up to V · L of them
            r.virt = t->stages;
            r.real = recoverGreedy(sc, f, available, r.virt);
            if (!r.real.empty())
                return;
        }
    }
}

Recovered recoverTemplate(const PlanRequest& req, const StageCosts& sc, const Folding& f, const std::string& weakType,
                          const std::vector<int>& available, const Progress& progress)
{
    const bool paper = req.option("recovery") == "paper";
    const bool dp = req.option("recovery") == "dp" || paper;
    Recovered r;
    std::tie(r.granularity, r.stages) = virtualSize(req, f);
    const RecoveryOptions options = paper ? RecoveryOptions{1, false, r.granularity, true}
                                          : RecoveryOptions{req.intOption("beam"), req.option("merge") == "any",
                                                            r.granularity, false};
    // A stored template is reused when it recovers; the greedy falls back to fewer virtual GPUs as below.
    for (int g = r.stages; g >= (dp ? r.stages : 1); --g) {
        progress.checkpoint(); // the greedy may try up to V stored templates
        if (auto stored = storedTemplate(req, f, weakType, g)) {
            r.virt = *stored;
            r.real = dp ? recoverDp(sc, f, available, boundsOf(r.virt), options, &progress)
                        : recoverGreedy(sc, f, available, r.virt);
            r.reused = !r.real.empty();
            if (r.reused)
                return r;
        }
    }
    progress.report(0.2, "ditto: virtual template");
    checkTemplateSize(req, r.stages);
    r.table = virtualTable(sc, f, dp, r.stages, progress);
    progress.report(0.6, "ditto: recovery");
    if (dp) {
        r.virt = fromTable(r.table, true, r.stages, sc.microBatches());
        if (!r.virt.empty())
            r.real = recoverDp(sc, f, available, boundsOf(r.virt), options, &progress);
    } else {
        recoverGreedyFromTable(r, sc, f, available, progress);
    }
    if (r.real.empty())
        throw InfeasibleError(std::string("ditto: the ") + (dp ? "DP" : "greedy") +
                              " recovery found no plan whose stages fit the GPUs' memory with the GPUs available" +
                              (r.virt.empty() ? std::string(" (no virtual template)")
                                              : " (virtual template: " + std::to_string(r.virt.size()) + " stages of " +
                                                    sizesOf(r.virt) + " virtual GPUs)"));
    return r;
}

QJsonObject dittoDetails(const PlanRequest& req, const Folding& f, const std::vector<TypeGroup>& groups,
                         const Recovered& r, int microBatches)
{
    const bool dp = req.option("recovery") != "greedy";
    QJsonObject d = objectiveJson(templateObjective(stageTimes(r.real), microBatches));
    d["recovery"] = QString::fromStdString(req.option("recovery"));
    d["folding"] = foldingJson(f, groups);
    d["template"] = templateJson(r.real, groups);
    d["virtual_template"] = QJsonObject{{"stages", int(r.virt.size())},
                                        {"virtual_gpus", virtualGpusOf(r.virt)},
                                        {"T", templateObjective(stageTimes(r.virt), microBatches).total()}};
    d["reused"] = r.reused;
    d["inputs"] = QString::fromStdString(templateInputsKey(req));
    d["granularity"] = r.granularity;
    d["micro_batches"] = microBatches;
    const int L = req.model.layerCount();
    if (dp && f.virtualGpus > L)
        d["note"] = QString("the folded cluster has %1 virtual GPUs, more than the model's %2 layers; the DP "
                            "used the finest template (%2 one-layer stages) and may leave GPUs idle")
                        .arg(f.virtualGpus)
                        .arg(L);
    d["virtual_templates"] = r.reused ? req.reuse.at("ditto").value("virtual_templates").toArray()
                                      : dittoTableJson(r.table, dp, r.stages, microBatches);
    return d;
}

} // namespace

namespace {

// Ditto at one micro-batch size: folding, virtual template, recovery, and below the state threshold the
// exact pipeline (the better of the two is kept). `exactBudget` (null: no exact search) is the number of exact
// states still allowed; the search runs when its states fit and takes them from the budget. Throws
// InfeasibleError when neither finds a pipeline.
struct MicroBatchPlan {
    Plan plan;
    double objective = kNoStage;
};

MicroBatchPlan planAtMicroBatch(const PlanRequest& req, const CostModel& costs, Progress& progress,
                                const std::vector<TypeGroup>& allGroups, int k, int mbs, double* exactBudget)
{
    // k identical pipelines: the search runs on one share, each pipeline takes 1/k of the batch.
    const std::vector<TypeGroup> groups = k == 1 ? allGroups : replicaShare(allGroups, req.cluster, k, 0);
    const int B = req.job.globalBatchSize / k / mbs;
    StageCosts sc(costs, req.job, groupTypes(groups), groupNodeSizes(groups), mbs, B,
                  groupTightestNodes(allGroups, req.cluster, costs), &req.cluster, StageCosts::Memory::Defer);
    const Folding f = req.option("folding") == "comm" ? foldWithComm(sc, groups, req.cluster, req.model, req.job)
                                                      : foldPlain(sc, groups);
    // Both tables are sized before either is built: the memory table takes O(entries · log N_b), the
    // template search O(states · L) (a stored template spares the search; recoverTemplate checks it then).
    checkStateCount(req, "ditto", sc.memoryEntries(), "stage-cost entries: layer ranges x stage shapes");
    if (!req.reuse.count("ditto"))
        checkTemplateSize(req, virtualSize(req, f).second);
    sc.fitMemory(costs, &progress);
    std::vector<int> available;
    for (const TypeGroup& g : groups)
        available.push_back(g.gpus);
    std::optional<Recovered> r;
    std::string recoveryFailure;
    try {
        r = recoverTemplate(req, sc, f, groups[f.weakest].type, available, progress);
    } catch (const InfeasibleError& e) {
        recoveryFailure = e.what();
    }
    // The exact search costs about as much as the folding saves on small clusters: where it is affordable,
    // run it too, so the plan is never worse than the exact optimum nor missing where one exists.
    std::optional<ExactResult> exact;
    const double states = exactStateCount(req.model.layerCount(), available);
    if (exactBudget && req.option("recovery") != "paper" && states <= *exactBudget) {
        *exactBudget -= states;
        progress.report(0.8, "ditto: exact pipeline");
        exact = exactPipeline(sc, available, req.job, &progress);
    }
    const double recovered = r ? templateObjective(stageTimes(r->real), B).total() : kNoStage;
    const bool useExact = exact && !exact->stages.empty() && exact->objective < recovered;
    if (!r && !useExact)
        throw InfeasibleError(recoveryFailure);
    const std::vector<TemplateStage>& stages = useExact ? exact->stages : r->real;
    MicroBatchPlan c;
    const double sync = k > 1 ? replicaSyncSeconds(stages, req.model, req.job, req.cluster, groups, k) : 0;
    c.objective = templateObjective(stageTimes(stages), B).total() + sync;
    c.plan.pipelines = placeReplicas(stages, req.cluster, allGroups, k, mbs, B);
    c.plan.plannerEstimate = c.objective;
    c.plan.search.candidates = (r ? r->table.labels : 0) + (exact ? exact->labels : 0);
    c.plan.search.extra["reused_templates"] = r && r->reused ? 1 : 0;
    QJsonObject d = r ? dittoDetails(req, f, groups, *r, B) : QJsonObject{};
    if (!r) {
        d = objectiveJson(templateObjective(stageTimes(stages), B));
        d["recovery"] = QString::fromStdString(req.option("recovery"));
        d["folding"] = foldingJson(f, groups);
        d["recovery_failed"] = QString::fromStdString(recoveryFailure);
        d["inputs"] = QString::fromStdString(templateInputsKey(req));
    }
    if (exact) {
        d["exact"] = QJsonObject{{"states", states},
                                 {"T", exact->stages.empty() ? QJsonValue() : QJsonValue(exact->objective)},
                                 {"used", useExact}};
        if (useExact) {
            const QJsonObject o = objectiveJson(templateObjective(stageTimes(stages), B));
            for (auto it = o.begin(); it != o.end(); ++it)
                d[it.key()] = it.value();
            d["template"] = templateJson(stages, groups);
        }
    }
    d["micro_batch_size"] = mbs;
    d["pipelines"] = k;
    d["replica_sync_seconds"] = sync;
    c.plan.details["ditto"] = d;
    return c;
}

} // namespace

Plan DittoPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    progress.report(0, "ditto: stage costs");
    const std::vector<TypeGroup> groups = typeGroups(req.cluster);
    // Each micro-batch size is a separate template problem (T is the whole iteration's time, so they
    // compare directly); the best is kept. A stop after one plan keeps that plan.
    std::optional<MicroBatchPlan> best;
    std::pair<int, int> bestShape; // (pipelines, micro-batch) of `best`
    std::string failure;
    QJsonArray tried;
    std::vector<std::pair<int, int>> shapes; // (pipelines, micro-batch size) to try
    // The paper recovers one pipeline.
    const std::vector<int> replicas = req.option("recovery") == "paper" ? std::vector<int>{1} : replicaCandidates(req, groups);
    for (int k : replicas)
        for (int mbs : templateMicroBatchCandidates(req))
            if (req.job.globalBatchSize % (k * mbs) == 0)
                shapes.emplace_back(k, mbs);
    // Folding and recovery at every shape (cheap), then the exact search where it is affordable, shape by
    // shape from the best recovered one (failed shapes last): the recovery's ranking of micro-batch sizes
    // is not the exact one's (on ditto-ex3 the recovery prefers mbs 1, the exact optimum is at mbs 2), so
    // the exact search goes on while its state budget lasts rather than stopping at the first shape.
    std::map<std::pair<int, int>, double> recoveredT;
    auto attempt = [&](std::pair<int, int> shape, double* exactBudget) {
        const auto [k, mbs] = shape;
        const double budgetBefore = exactBudget ? *exactBudget : 0;
        try {
            MicroBatchPlan c = planAtMicroBatch(req, costs, progress, groups, k, mbs, exactBudget);
            const bool exact = exactBudget && *exactBudget < budgetBefore;
            if (exactBudget && !exact)
                return false; // the exact search did not fit the budget: nothing new at this shape
            tried.append(QJsonObject{{"pipelines", k}, {"micro_batch_size", mbs}, {"exact", exact}, {"T", c.objective}});
            if (!exact)
                recoveredT[shape] = c.objective;
            if (!best || c.objective < best->objective) {
                best = std::move(c);
                bestShape = shape;
            }
            return true;
        } catch (const InfeasibleError& e) {
            const bool exact = exactBudget && *exactBudget < budgetBefore;
            if (exactBudget && !exact)
                return false;
            tried.append(QJsonObject{{"pipelines", k}, {"micro_batch_size", mbs}, {"exact", exact}, {"failed", QString(e.what())}});
            if (failure.empty())
                failure = e.what();
            return false;
        }
    };
    try {
        for (const auto& shape : shapes)
            attempt(shape, nullptr);
        std::vector<std::pair<int, int>> order = shapes;
        std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
            const auto ta = recoveredT.find(a), tb = recoveredT.find(b);
            const double va = ta == recoveredT.end() ? kNoStage : ta->second;
            const double vb = tb == recoveredT.end() ? kNoStage : tb->second;
            return va < vb;
        });
        double budget = double(req.intOption("exact_below"));
        for (const auto& shape : order) {
            if (budget <= 0)
                break;
            attempt(shape, &budget);
        }
    } catch (const CancelledError&) {
        if (!best)
            throw;
        best->plan.search.stopped = progress.stopReason();
        return std::move(best->plan);
    }
    if (!best)
        throw InfeasibleError(failure.empty() ? std::string("ditto: no micro-batch size divides the global batch")
                                              : failure);
    QJsonObject d = best->plan.details["ditto"];
    d["tried"] = tried;
    best->plan.details["ditto"] = d;
    return std::move(best->plan);
}

} // namespace hetplan
