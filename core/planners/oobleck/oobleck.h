#pragma once
// `oobleck`: Oobleck's pipeline templates (SOSP'23 section 4.1.2) on a homogeneous cluster. Templates for
// every node count from the smallest that fits memory to the cluster size and every stage count
// (common/oobleck_templates.h); the plan instantiates the cluster as pipelines of those templates and
// splits the batch across them as Oobleck does (each pipeline gets micro-batches until the slowest one
// would finish later, so they end together). The plan's `oobleck` section carries the template table, so a
// later call with fewer nodes (--without, --reuse plan.json) re-instantiates it without searching.
//
// Decisions: templates are generated with N_b = all micro-batches of the global batch (a template does not
// know how many pipelines will share the batch); each pipeline's T is re-evaluated with its own share, and
// memory checked for N_b in flight still fits with fewer. Instantiation tries p = 1 .. N / n_min pipelines
// with node counts as even as possible (⌊N/p⌋ or ⌈N/p⌉), keeping the best estimated iteration. A cluster
// with several device types or unequal nodes is refused (InfeasibleError, exit 3) with a pointer to ditto.
#include "core/planners/planner.h"

namespace hetplan {

class OobleckPlanner : public Planner {
public:
    std::string name() const override { return "oobleck"; }
    std::string description() const override
    {
        return "Oobleck: pipeline templates per node count on a homogeneous cluster, instantiated as pipelines";
    }
    std::vector<PlannerOption> options() const override;
    Plan plan(const PlanRequest& request, const CostModel& costs, Progress& progress) const override;
};

} // namespace hetplan
