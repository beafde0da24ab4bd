#include "megatron_space.h"

#include "core/base/errors.h"
#include "core/model/framework_options.h"
#include "core/sim/simulator.h"

#include <QJsonArray>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

namespace hetplan {

std::vector<PlannerOption> megatronSpaceOptions()
{
    return {
        PlannerOption::boolean("search_vpp", "Try interleaved 1F1B", true,
                               "Megatron's virtual pipeline stages: each plan is also simulated with 2 and 4 "
                               "model chunks per stage where its stages and micro-batches allow"),
        PlannerOption::boolean("search_sp", "Try sequence parallelism", true,
                               "plan again with Megatron's sequence parallelism (activations split tp ways between "
                               "the tensor-parallel regions)"),
        PlannerOption::boolean("search_dist_opt", "Try the distributed optimizer", true,
                               "plan again with Megatron's distributed optimizer (optimizer states sharded over the "
                               "data-parallel ranks, ZeRO-1)"),
        PlannerOption::boolean("search_recompute", "Try recomputation", true,
                               "plan again with selective (attention core) and with full activation recomputation"),
        PlannerOption::boolean("search_cp", "Try context parallelism", true,
                               "Megatron's context parallelism: each plan is also simulated with 2 and 4 of its "
                               "data-parallel copies splitting the sequence (ring attention) over more, smaller "
                               "micro-batches"),
        PlannerOption::boolean("search_ep", "Try expert parallelism", true,
                               "MoE models: each plan is also simulated with its experts spread over 2, 4, ... "
                               "data-parallel ranks of a stage (whole experts each, tokens sent by all-to-all)"),
    };
}

std::vector<PlannerOption> withMegatronSpace(std::vector<PlannerOption> own)
{
    for (PlannerOption& o : megatronSpaceOptions())
        own.push_back(std::move(o));
    return own;
}

bool searchesMegatronSpace(const Planner& planner)
{
    const std::vector<PlannerOption> opts = planner.options();
    return std::any_of(opts.begin(), opts.end(), [](const PlannerOption& o) { return o.key == "search_vpp"; });
}

namespace {

enum class Recompute { None, Selective, Full };

Recompute recomputeOf(const Job& j)
{
    return j.recompute ? Recompute::Full : j.selectiveRecompute ? Recompute::Selective : Recompute::None;
}

std::string toString(Recompute r)
{
    switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
    }
    return "none";
}

bool hasMultiGpuNode(const Cluster& c)
{
    return std::any_of(c.nodes.begin(), c.nodes.end(), [](const Node& n) { return n.gpus > 1; });
}

} // namespace

namespace {

// Which families may change the job: searched, run by the job's framework, and left off by the job (a
// setting the job turns on stays on).
struct OpenFamilies {
    bool sp = false, distOpt = false, recompute = false;
};

OpenFamilies openFamilies(const PlanRequest& req)
{
    const Job& j = req.job;
    OpenFamilies o;
    o.sp = req.boolOption("search_sp") && frameworkRuns(j.framework, FrameworkOption::SequenceParallel) &&
           !j.sequenceParallel && hasMultiGpuNode(req.cluster);
    o.distOpt = req.boolOption("search_dist_opt") && j.zeroStage == 0 &&
                frameworkRuns(j.framework, FrameworkOption::DistributedOptimizer);
    o.recompute = req.boolOption("search_recompute") && recomputeOf(j) == Recompute::None;
    return o;
}

// The recomputation choices besides none the job's framework runs.
std::vector<Recompute> recomputeChoices(const Job& j)
{
    std::vector<Recompute> out;
    if (frameworkRuns(j.framework, FrameworkOption::SelectiveRecompute))
        out.push_back(Recompute::Selective);
    if (frameworkRuns(j.framework, FrameworkOption::FullRecompute))
        out.push_back(Recompute::Full);
    return out;
}

Job withChoices(Job j, bool sp, bool distOpt, Recompute r)
{
    j.sequenceParallel = j.sequenceParallel || sp;
    if (distOpt)
        j.zeroStage = 1;
    if (r != Recompute::None) {
        j.recompute = r == Recompute::Full;
        j.selectiveRecompute = r == Recompute::Selective;
    }
    return j;
}

} // namespace

std::vector<Job> megatronJobVariants(const PlanRequest& req)
{
    const OpenFamilies o = openFamilies(req);
    std::vector<Recompute> rc{Recompute::None};
    if (o.recompute)
        for (Recompute r : recomputeChoices(req.job))
            rc.push_back(r);
    std::vector<Job> out;
    for (Recompute r : rc)
        for (bool z : o.distOpt ? std::vector<bool>{false, true} : std::vector<bool>{false})
            for (bool sp : o.sp ? std::vector<bool>{false, true} : std::vector<bool>{false})
                out.push_back(withChoices(req.job, sp, z, r));
    return out;
}

std::vector<Job> megatronReplanJobs(const PlanRequest& req)
{
    const OpenFamilies o = openFamilies(req);
    std::vector<Job> out{req.job};
    if (o.recompute)
        for (Recompute r : recomputeChoices(req.job))
            out.push_back(withChoices(req.job, o.sp, o.distOpt, r));
    else if (o.sp || o.distOpt)
        out.push_back(withChoices(req.job, o.sp, o.distOpt, Recompute::None));
    return out;
}

namespace {

// Whether `plan` passes Plan's structural rules.
bool valid(const Plan& plan)
{
    try {
        plan.validateStructure("plan");
        return true;
    } catch (const InputError&) {
        return false;
    }
}

// `plan` with `set(pipeline, value)` applied to every pipeline, for each of `values` in turn: the variants
// the plan rules allow are scored and the best under `objective` is kept (plans that fit first).
template <class Set>
void keepBestVariant(Plan& plan, const CostModel& costs, const Objective& objective, const std::vector<int>& values,
                     Set set)
{
    const Plan base = plan;
    for (int value : values) {
        Plan tried = base;
        for (Pipeline& pl : tried.pipelines)
            set(pl, value);
        if (!valid(tried))
            continue;
        scorePlan(tried, costs);
        if (preferredPlan(objective, tried.estimate, plan.estimate))
            plan = std::move(tried);
    }
}

} // namespace

Plan withContextParallel(const Plan& plan, int cp)
{
    Plan out = plan;
    for (Pipeline& pl : out.pipelines) {
        const bool stagesSplit = std::all_of(pl.stages.begin(), pl.stages.end(),
                                             [&](const Stage& st) { return st.dataParallel % cp == 0; });
        if (pl.contextParallel != 1)
            return plan;
        if (pl.replicas % cp == 0) { // cp replicas become one, their GPUs its stages' dp ranks
            pl.replicas /= cp;
            for (Stage& st : pl.stages)
                st.dataParallel *= cp;
        } else if (stagesSplit && pl.microBatchSize % cp == 0) { // cp of a stage's dp ranks share samples
            pl.microBatchSize /= cp;
        } else {
            return plan;
        }
        pl.microBatches *= cp;
        pl.contextParallel = cp;
    }
    return out;
}

void contextParallelBest(Plan& plan, const CostModel& costs, const Objective& objective)
{
    if (plan.pipelines.empty() || !frameworkRuns(plan.job.framework, FrameworkOption::ContextParallel) ||
        plan.pipelines.front().contextParallel != 1)
        return;
    const Plan base = plan;
    for (int cp : kContextParallelChoices)
        if (Plan tried = withContextParallel(base, cp); tried.pipelines.front().contextParallel == cp && valid(tried)) {
            scorePlan(tried, costs);
            if (preferredPlan(objective, tried.estimate, plan.estimate))
                plan = std::move(tried);
        }
}

void expertParallelBest(Plan& plan, const CostModel& costs, const Objective& objective)
{
    if (plan.pipelines.empty() || !frameworkRuns(plan.job.framework, FrameworkOption::ExpertParallel) ||
        !plan.model.hasMoeLayers() || plan.pipelines.front().expertParallel != 1)
        return;
    std::vector<int> sizes;
    for (int ep = 2; ep <= plan.model.arch.experts; ep *= 2)
        sizes.push_back(ep);
    keepBestVariant(plan, costs, objective, sizes, [](Pipeline& pl, int ep) { pl.expertParallel = ep; });
}

void interleaveBest(Plan& plan, const CostModel& costs, const Objective& objective)
{
    if (plan.pipelines.empty() || !frameworkRuns(plan.job.framework, FrameworkOption::Interleaving) ||
        plan.job.schedule != Schedule::OneFOneB)
        return;
    std::vector<int> counts;
    for (int v : kVirtualStageChoices)
        if (v != plan.pipelines.front().virtualStages)
            counts.push_back(v);
    keepBestVariant(plan, costs, objective, counts, [](Pipeline& pl, int v) { pl.virtualStages = v; });
}

PlanLevelFamilies PlanLevelFamilies::of(const PlanRequest& req)
{
    return {req.boolOption("search_cp"), req.boolOption("search_ep"), req.boolOption("search_vpp")};
}

void planLevelBest(Plan& plan, const CostModel& costs, const Objective& objective, PlanLevelFamilies families)
{
    if (families.cp)
        contextParallelBest(plan, costs, objective);
    if (families.ep)
        expertParallelBest(plan, costs, objective);
    if (families.vpp)
        interleaveBest(plan, costs, objective);
}

namespace {

QJsonObject choiceJson(const Plan& p)
{
    const int v = p.pipelines.empty() ? 1 : p.pipelines.front().virtualStages;
    const int cp = p.pipelines.empty() ? 1 : p.pipelines.front().contextParallel;
    const int ep = p.pipelines.empty() ? 1 : p.pipelines.front().expertParallel;
    return QJsonObject{{"virtual_stages", v},
                       {"context_parallel", cp},
                       {"expert_parallel", ep},
                       {"sequence_parallel", p.job.sequenceParallel},
                       {"distributed_optimizer", p.job.zeroStage == 1},
                       {"zero_stage", p.job.zeroStage},
                       {"recompute", QString::fromStdString(toString(recomputeOf(p.job)))}};
}

// `job` with exactly the settings a "megatron_space" section's planned_with records (the job a re-plan gets
// is the plan's, with the settings chosen after planning).
Job jobPlannedWith(Job job, const QJsonObject& section)
{
    const QJsonObject w = section.value("planned_with").toObject();
    const QString r = w.value("recompute").toString();
    job.sequenceParallel = w.value("sequence_parallel").toBool();
    job.zeroStage = w.value("zero_stage").toInt(job.zeroStage);
    job.recompute = r == "full";
    job.selectiveRecompute = r == "selective";
    return job;
}

double peakGiB(const Plan& p)
{
    double peak = 0;
    for (const auto& [gpu, bytes] : p.estimate.peakMemoryBytes)
        peak = std::max(peak, bytes);
    return peak / 1073741824.0;
}

} // namespace

namespace {

// `plan` (a planner's, scored) under every job variant, keeping the planner's decisions: the best variant
// by `objective`, then its best context- and expert-parallel sizes, then its best interleaving (context
// parallelism multiplies the micro-batches, which may open interleaving). A stop (cancel, time limit) ends
// the tries early.
Plan bestSettings(const Plan& plan, const std::vector<Job>& variants, PlanLevelFamilies families,
                  const Objective& objective, const Progress& progress)
{
    Plan best = plan;
    for (const Job& j : variants) {
        if (progress.stopReason() != StopReason::None)
            return best;
        if (j == plan.job)
            continue;
        Plan p = plan;
        p.job = j;
        scorePlan(p, CostModel(p.model, p.job, p.profile));
        if (preferredPlan(objective, p.estimate, best.estimate))
            best = std::move(p);
    }
    if (progress.stopReason() == StopReason::None)
        planLevelBest(best, CostModel(best.model, best.job, best.profile), objective, families);
    return best;
}

} // namespace

Plan planInMegatronSpace(const std::string& plannerName, const PlanRequest& request, Progress& progress,
                         const PlanOneFn& planOne)
{
    const std::vector<Job> variants = megatronJobVariants(request);
    // Re-planning from an earlier plan's stored search (template planners after a node failure): plan with the
    // job that search was made with, as its templates are only valid for it.
    // Re-planning from this planner's own stored search (template planners after a node failure): its
    // templates are valid only for the job that search planned with, so that job goes first; the others
    // follow (a template planner refuses them, and a planner that stores nothing plans them afresh).
    std::vector<Job> replan = megatronReplanJobs(request);
    const auto reused = request.reuse.find("megatron_space");
    if (reused != request.reuse.end() && request.reuse.count(plannerName)) {
        const Job stored = jobPlannedWith(request.job, reused->second);
        replan.erase(std::remove(replan.begin(), replan.end(), stored), replan.end());
        replan.insert(replan.begin(), stored);
    }
    const PlanLevelFamilies families = PlanLevelFamilies::of(request);
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<Plan> best;
    QJsonObject plannedWith; // the settings the best plan's planner run had
    std::exception_ptr ownError;
    StopReason stopped = StopReason::None;
    QJsonArray tried;
    for (size_t i = 0; i < replan.size(); ++i) {
        if (i > 0 && progress.stopReason() != StopReason::None) {
            stopped = progress.stopReason();
            break;
        }
        PlanRequest req = request;
        req.job = replan[i];
        // The time left, shared by the runs still to make (the first, the request's own job, gets its share
        // too: a later run cannot take the time it needs).
        if (request.timeLimitSeconds > 0) {
            const double left =
                request.timeLimitSeconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (left <= 0 && i > 0) { // (0 would mean no limit)
                stopped = StopReason::TimeLimit;
                break;
            }
            req.timeLimitSeconds = std::max(1e-9, left / double(replan.size() - i));
        }
        const double from = double(i) / double(replan.size()), share = 1.0 / double(replan.size());
        Progress sub([&](double f, const std::string& text) { progress.report(from + share * f, text); },
                     req.timeLimitSeconds, progress.stopToken());
        try {
            Plan planned = planOne(plannerName, req, sub);
            if (planned.search.stopped != StopReason::None)
                stopped = planned.search.stopped;
            progress.report(from + share, plannerName + ": trying Megatron's options on its plan");
            Plan plan = bestSettings(planned, variants, families, request.objective, sub);
            QJsonObject row = choiceJson(plan);
            row["planned_with"] = choiceJson(planned);
            row["iteration_seconds"] = plan.estimate.iterationSeconds;
            row["peak_memory_gib"] = peakGiB(plan);
            row["fits"] = plan.estimate.feasible;
            tried.append(row);
            if (!best || preferredPlan(request.objective, plan.estimate, best->estimate)) {
                best = std::move(plan);
                plannedWith = choiceJson(planned);
            }
        } catch (const InputError&) {
            if (i == 0)
                throw; // the request's own job is wrong: every variant would be
        } catch (const std::exception&) {
            if (i == 0)
                ownError = std::current_exception();
        }
        if (sub.stopReason() != StopReason::None) // its share ran out, or the user cancelled
            stopped = sub.stopReason();
    }
    if (!best) {
        if (ownError)
            std::rethrow_exception(ownError);
        throw InfeasibleError(plannerName + ": no plan under any of the Megatron options tried");
    }
    best->search.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (best->search.stopped == StopReason::None)
        best->search.stopped = stopped; // some run was cut short: the best is the best found so far
    QJsonObject section = choiceJson(*best);
    section["planned_with"] = plannedWith;
    section["variants"] = int(variants.size());
    section["tried"] = tried;
    best->details["megatron_space"] = section;
    return std::move(*best);
}

} // namespace hetplan
