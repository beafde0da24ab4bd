#pragma once
// What Megatron-LM users turn on besides the parallel degrees the papers search: interleaved 1F1B (virtual
// pipeline stages), sequence parallelism, the distributed optimizer (ZeRO-1) and selective or full
// recomputation. A pipeline planner that declares these options is searched with them:
// - a setting the job turns on stays on; the search may turn on what the job leaves off;
// - the planner plans with the request's own job, and again with the job that saves the most memory for
//   each recomputation choice (sequence parallelism and the distributed optimizer on): memory it saves may
//   let the planner pick other degrees, stages or micro-batches;
// - every plan found is scored under every combination of the open settings (the planner's decisions
//   kept), the best one then with context parallelism 2 and 4, with expert parallelism (MoE models) 2, 4, ...
//   up to the experts, and with 1, 2 and 4 virtual stages;
// - the best simulated plan under the request's objective is returned.
// Each family has its own option; with all six off a planner searches its paper's own space. What was tried
// is recorded in the plan's "megatron_space" section (a planner's own section describes its own search,
// before these settings were applied).
#include "core/planners/planner.h"

#include <functional>
#include <string>
#include <vector>

namespace hetplan {

// search_vpp, search_sp, search_dist_opt, search_recompute, search_cp and search_ep (all on by default).
std::vector<PlannerOption> megatronSpaceOptions();
inline constexpr const char* kMegatronSpaceFamilies[] = {"search_vpp", "search_sp", "search_dist_opt",
                                                         "search_recompute", "search_cp", "search_ep"};
// `own` with them appended (what a pipeline planner's options() returns).
std::vector<PlannerOption> withMegatronSpace(std::vector<PlannerOption> own);
// Whether `planner` declares them.
bool searchesMegatronSpace(const Planner& planner);

// Every job the open families of `req` (options resolved) allow, the request's own first. Only what the
// job's framework runs (core/model/framework_options.h): DeepSpeed's pipeline engine has no sequence
// parallelism and no selective recomputation.
std::vector<Job> megatronJobVariants(const PlanRequest& req);
// The jobs the planner plans with: the request's own, then per recomputation choice the one saving the most
// memory (or, without a recomputation choice, the one with the other open settings on).
std::vector<Job> megatronReplanJobs(const PlanRequest& req);

// The virtual-stage counts tried on a pipeline plan besides 1.
inline constexpr int kVirtualStageChoices[] = {2, 4};

// The context-parallel sizes tried on a pipeline plan besides 1.
inline constexpr int kContextParallelChoices[] = {2, 4};

// `plan` with every pipeline's per-rank micro-batch split over cp ranks of its sequence: the same GPUs and
// samples, cp times the micro-batches of 1/cp the tokens per rank. cp replicas of a pipeline regroup as one
// whose stages have cp times the data-parallel ranks (replica cj + i's dp ranks become dp ranks i·dp to
// i·dp + dp − 1 of replica j) or,
// when the replicas do not divide, the stages' dp ranks already there share samples, the micro-batch
// 1/cp as large. `plan` unchanged when neither fits some pipeline (or it already runs context parallelism).
Plan withContextParallel(const Plan& plan, int cp);
// `plan` (scored) with the best context-parallel size of kContextParallelChoices and 1 that the plan rules
// allow (jobs whose framework runs it: Megatron-core); rescored. The same for expert parallelism over 2, 4, ...
// up to the model's experts (MoE models). Plans that fit win, then `objective`.
void contextParallelBest(Plan& plan, const CostModel& costs, const Objective& objective);
void expertParallelBest(Plan& plan, const CostModel& costs, const Objective& objective);

// `plan` (scored) with the best number of virtual stages of kVirtualStageChoices and 1 that its pipelines
// and the job allow (interleaved 1F1B runs on Megatron with several stages, micro-batches a multiple of the
// stages and a layer per chunk); rescored. Plans that fit win over plans that do not, then `objective`.
void interleaveBest(Plan& plan, const CostModel& costs, const Objective& objective);

// The plan-level settings (no re-plan, no job change) the search tries on a plan, by their options.
struct PlanLevelFamilies {
    bool cp = false, ep = false, vpp = false;
    static PlanLevelFamilies of(const PlanRequest& req); // search_cp, search_ep, search_vpp
};
// `plan` (scored) at its best context-parallel size, then expert-parallel size, then virtual stages, of the
// families on (context parallelism multiplies the micro-batches, which may open interleaving).
void planLevelBest(Plan& plan, const CostModel& costs, const Objective& objective, PlanLevelFamilies families);

// Runs `planOne` (plans and scores one request) once per job of megatronReplanJobs and keeps the best plan
// under any variant; the time limit is shared as it goes, and a run cut short marks the result stopped.
// Throws what planOne threw for the request's own job when no run gave a plan.
using PlanOneFn = std::function<Plan(const std::string& planner, const PlanRequest& request, Progress& progress)>;
Plan planInMegatronSpace(const std::string& plannerName, const PlanRequest& request, Progress& progress,
                         const PlanOneFn& planOne);

} // namespace hetplan
