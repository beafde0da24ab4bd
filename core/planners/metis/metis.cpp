#include "metis.h"

#include "core/planners/common/exact_pipeline.h"
#include "core/planners/common/template_placement.h"
#include "core/planners/megatron_space.h"
#include "core/planners/objective.h"

#include "core/base/errors.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <optional>

namespace hetplan {

std::vector<PlannerOption> MetisPlanner::options() const
{
    return withMegatronSpace(
        {searchedMicroBatchOption(),
         PlannerOption::integer("simulated", "Templates simulated", 8, 1, 64,
                                "the best templates by the search's own estimate that are placed and simulated; "
                                "the best simulated one wins"),
         PlannerOption::real("template_work", "Work per template", 2e6, 1e4, 1e10,
                             "the most DP states × layers one template search may take; beyond it the types "
                             "with the least compute sit out that template (their GPUs idle in it)"),
         PlannerOption::boolean("uniform_shapes", "Score AMP's and HetHub's plans", true,
                                "also score the best plans of AMP and HetHub (one shape for every stage, inside "
                                "this space) and keep whichever is best")});
}

namespace {

// One template found by the exact search for `copies` copies of micro-batch `mbs`.
struct Found {
    int copies = 1, mbs = 1, microBatches = 1;
    std::vector<TemplateStage> stages;
    double estimate = 0; // T plus the copies' gradient sync, seconds
};

// Each type's GPUs one of `copies` copies may use (the rest stay idle).
std::vector<int> shareOf(const std::vector<TypeGroup>& groups, int copies)
{
    std::vector<int> out;
    for (const TypeGroup& g : groups)
        out.push_back(g.gpus / copies);
    return out;
}

class MetisSearch {
public:
    MetisSearch(const PlanRequest& req, const CostModel& costs, Progress& progress)
        : req_(req),
          costs_(costs),
          progress_(progress),
          groups_(typeGroups(req.cluster)),
          tightest_(groupTightestNodes(groups_, req.cluster, costs)),
          maxWork_(req.doubleOption("template_work"))
    {}

    // Every (copies, micro-batch) the global batch allows, each searched exactly.
    std::vector<Found> templates()
    {
        std::vector<Found> found;
        const std::vector<int> sizes = templateMicroBatchCandidates(req_);
        const int gpus = req_.cluster.gpuCount(), gbs = req_.job.globalBatchSize;
        for (size_t m = 0; m < sizes.size(); ++m)
            for (int copies = 1; copies <= gpus; ++copies) {
                const int mbs = sizes[m];
                if (gbs % (copies * mbs) != 0 || progress_.stopReason() != StopReason::None)
                    continue;
                std::vector<int> share = shareOf(groups_, copies);
                if (std::all_of(share.begin(), share.end(), [](int c) { return c == 0; }))
                    continue;
                QJsonObject row{{"copies", copies}, {"micro_batch_size", mbs}};
                const QJsonArray dropped = fitStateBudget(share);
                if (!dropped.isEmpty())
                    row["types_left_idle"] = dropped;
                progress_.report(0.05 + 0.6 * double(m) / double(sizes.size()),
                                 "metis: " + std::to_string(copies) + " copies, micro-batch " + std::to_string(mbs));
                std::optional<Found> f = search(copies, mbs, share);
                row["T"] = f ? QJsonValue(f->estimate) : QJsonValue("no fit");
                tried_.append(row);
                if (f)
                    found.push_back(std::move(*f));
            }
        std::stable_sort(found.begin(), found.end(),
                         [](const Found& a, const Found& b) { return a.estimate < b.estimate; });
        return found;
    }

    // The template placed on the cluster as one pipeline of `copies` replicas; nothing when the nodes
    // cannot hold the copies' stages.
    std::optional<Pipeline> place(const Found& f, CopyOrder order) const
    {
        try {
            return placeReplicated(f.stages, req_.cluster, groups_, f.copies, f.mbs, f.microBatches, order);
        } catch (const InfeasibleError&) {
            return std::nullopt;
        }
    }

    QJsonArray tried() const { return tried_; }
    long long labels() const { return labels_; }
    const std::vector<TypeGroup>& groups() const { return groups_; }

private:
    // Many device types make the DP's states (layers × prod(share_i + 1)) explode, and each state tries
    // every layer split: the types with the least compute in the share (GPUs × peak FLOP/s) are left idle
    // in this template until states × layers fits the template_work option. AMP's and HetHub's plans, scored beside the
    // templates, still use every type.
    QJsonArray fitStateBudget(std::vector<int>& share) const
    {
        QJsonArray dropped;
        const int layers = costs_.model().layerCount();
        while (exactStateCount(layers, share) * layers > maxWork_) {
            int weakest = -1;
            double least = 0;
            for (size_t i = 0; i < share.size(); ++i) {
                const double compute = share[i] * costs_.device(groups_[i].type).peakFlops;
                if (share[i] > 0 && (weakest < 0 || compute < least)) {
                    weakest = int(i);
                    least = compute;
                }
            }
            if (std::count_if(share.begin(), share.end(), [](int c) { return c > 0; }) <= 1) {
                if (share[size_t(weakest)] <= 1)
                    break;                   // a model of that many layers: the search runs over the budget
                share[size_t(weakest)] /= 2; // one type left: fewer of its GPUs per copy
                continue;
            }
            dropped.append(QString::fromStdString(groups_[size_t(weakest)].type));
            share[size_t(weakest)] = 0;
        }
        return dropped;
    }

    std::optional<Found> search(int copies, int mbs, const std::vector<int>& share)
    {
        std::vector<int> maxGpus;
        for (size_t i = 0; i < groups_.size(); ++i)
            maxGpus.push_back(std::max(1, std::min(groups_[i].maxNodeGpus, share[i])));
        const int microBatches = req_.job.globalBatchSize / (copies * mbs);
        const StageCosts sc(costs_, req_.job, groupTypes(groups_), maxGpus, mbs, microBatches, tightest_,
                            &req_.cluster);
        const ExactResult r = exactPipeline(sc, share, req_.job, &progress_);
        labels_ += r.labels;
        if (r.stages.empty())
            return std::nullopt;
        const double sync =
            copies > 1 ? replicaSyncSeconds(r.stages, req_.model, req_.job, req_.cluster, groups_, copies) : 0;
        return Found{copies, mbs, microBatches, r.stages,
                     templateObjective(stageTimes(r.stages), microBatches).total() + sync};
    }

    const PlanRequest& req_;
    const CostModel& costs_;
    Progress& progress_;
    std::vector<TypeGroup> groups_;
    std::vector<Node> tightest_;
    QJsonArray tried_;
    long long labels_ = 0;
    double maxWork_;
};

// A plan of `pipelines` on the request's cluster, model and job, not scored yet.
Plan planOf(const PlanRequest& req, std::vector<Pipeline> pipelines)
{
    Plan p;
    p.cluster = req.cluster;
    p.model = req.model;
    p.job = req.job;
    p.pipelines = std::move(pipelines);
    return p;
}

// A plan of `pipelines` for `req`, scored by the shared simulator, at its best context- and expert-parallel
// sizes and virtual stages when those are searched (so every plan offered, AMP's and HetHub's too, is compared
// with the plan-level settings the search would give it on its own).
Plan scored(const PlanRequest& req, const CostModel& costs, std::vector<Pipeline> pipelines)
{
    Plan p = planOf(req, std::move(pipelines));
    scorePlan(p, costs);
    planLevelBest(p, costs, req.objective, PlanLevelFamilies::of(req));
    return p;
}

// Keeps the better of the plans offered: one meeting the objective's constraints before one that does not
// (then the faster), else the better under the goal.
class Keeper {
public:
    explicit Keeper(const Objective& o) : objective_(o) {}
    bool offer(Plan p, const std::string& source)
    {
        rows_.append(QJsonObject{{"plan", QString::fromStdString(source)},
                                 {"iteration_seconds", p.estimate.iterationSeconds},
                                 {"fits", p.estimate.feasible}});
        if (!p.estimate.feasible)
            return false;
        const bool better = !best_ || preferredPlan(objective_, p.estimate, best_->estimate);
        if (better) {
            best_ = std::move(p);
            source_ = source;
        }
        return better;
    }
    std::optional<Plan>& best() { return best_; }
    const std::string& source() const { return source_; }
    QJsonArray rows() const { return rows_; }

private:
    Objective objective_;
    std::optional<Plan> best_;
    std::string source_;
    QJsonArray rows_;
};

std::string templateName(const Found& f)
{
    return std::to_string(f.copies) + " copies of a " + std::to_string(f.stages.size()) +
           "-stage template, micro-batch " + std::to_string(f.mbs);
}

// The best plan of a planner whose space is inside metis's (amp, hethub), scored; nothing when it finds none.
std::optional<Plan> containedPlan(const std::string& name, const PlanRequest& req, const CostModel& costs,
                                  Progress& progress)
{
    auto planner = PlannerRegistry::instance().create(name);
    if (!planner)
        return std::nullopt;
    PlanRequest sub = req;
    sub.options = resolveOptions(*planner, {});
    try {
        Plan p = planner->plan(sub, costs, progress);
        const PlanLevelFamilies families = PlanLevelFamilies::of(req);
        if (families.cp || families.ep || families.vpp)
            return scored(req, costs, std::move(p.pipelines));
        // Its search tail scored it on these inputs already: a second simulation would give the same.
        Plan q = planOf(req, std::move(p.pipelines));
        q.estimate = p.estimate;
        return q;
    } catch (const InfeasibleError&) {
    } catch (const InputError&) {
    } catch (const CancelledError&) {
    }
    return std::nullopt;
}

} // namespace

Plan MetisPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    progress.report(0, "metis: stage costs");
    Keeper keeper(req.objective);
    // AMP first (it answers in about a second even at thousands of GPUs), HetHub last (its search is the
    // longest at scale): a time limit then stops metis with the most plans scored.
    const auto offerContained = [&](const std::string& name) {
        if (!req.boolOption("uniform_shapes") || progress.stopReason() != StopReason::None)
            return false;
        std::optional<Plan> p = containedPlan(name, req, costs, progress);
        return p && keeper.offer(std::move(*p), name + "'s plan (one shape for every stage)");
    };
    bool containedWins = offerContained("amp");
    MetisSearch search(req, costs, progress);
    const std::vector<Found> found = search.templates();
    std::optional<Found> chosen;
    const int simulated = std::min<int>(req.intOption("simulated"), int(found.size()));
    for (int i = 0; i < simulated && progress.stopReason() == StopReason::None; ++i) {
        progress.report(0.7 + 0.2 * i / std::max(1, simulated), "metis: simulating template " + std::to_string(i + 1));
        // Both placements of the copies: which one's sends or all-reduces cost less depends on the cluster.
        for (CopyOrder order : {CopyOrder::ByCopy, CopyOrder::ByStage}) {
            std::optional<Pipeline> p = search.place(found[size_t(i)], order);
            const std::string name =
                templateName(found[size_t(i)]) + (order == CopyOrder::ByCopy ? ", copy by copy" : ", stage by stage");
            if (p && keeper.offer(scored(req, costs, {std::move(*p)}), name)) {
                chosen = found[size_t(i)];
                containedWins = false;
            }
        }
    }
    containedWins = offerContained("hethub") || containedWins;
    if (containedWins)
        chosen.reset();
    if (!keeper.best()) {
        if (progress.stopReason() != StopReason::None)
            throw CancelledError("metis: stopped before any plan was found");
        throw InfeasibleError("metis: no template of these GPUs fits the model in memory");
    }
    Plan plan;
    plan.pipelines = keeper.best()->pipelines;
    plan.search.stopped = progress.stopReason();
    plan.search.candidates = search.labels();
    plan.search.extra["templates"] = double(found.size());
    QJsonObject details{
        {"chosen", QString::fromStdString(keeper.source())}, {"tried", search.tried()}, {"simulated", keeper.rows()}};
    if (chosen) {
        plan.plannerEstimate = chosen->estimate;
        details["template"] = templateJson(chosen->stages, search.groups());
        details["copies"] = chosen->copies;
        details["micro_batch_size"] = chosen->mbs;
        details["micro_batches"] = chosen->microBatches;
        details["T"] = chosen->estimate;
    }
    plan.details["metis"] = details;
    return plan;
}

} // namespace hetplan
