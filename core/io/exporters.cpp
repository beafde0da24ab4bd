// Export through the registry; the formats themselves live in formats/export_*.cpp.
#include "core/io/exporters.h"

#include "core/cost/costmodel.h"

#include <cstdio>

namespace hetplan {

std::string exportPlan(const Plan& plan, const std::string& format)
{
    return ExporterRegistry::instance().get(format).write(plan);
}

std::string launchRefusal(const Plan& plan)
{
    // Simulated afresh: the estimate stored in a plan file may be stale or edited.
    const CostModel costs(plan.model, plan.job, plan.profile);
    const SimResult r = simulate(plan, costs);
    int worst = -1;
    double worstRatio = 1, worstCapacity = 0;
    for (const auto& [gpu, peak] : r.peakMemoryBytes) {
        const double capacity =
            costs.device(plan.cluster.nodeOf(gpu).deviceType).memoryBytes * (1 - plan.job.memoryMargin);
        if (peak > capacity && peak / capacity > worstRatio) {
            worst = gpu;
            worstRatio = peak / capacity;
            worstCapacity = capacity;
        }
    }
    if (worst >= 0) {
        char figures[96];
        std::snprintf(figures, sizeof figures, "%.2f GiB of its %.2f GiB", r.peakMemoryBytes.at(worst) / 1073741824.0,
                      worstCapacity / 1073741824.0);
        return "the plan does not fit memory: GPU " + plan.cluster.gpuName(worst) + " needs " + figures +
               " (simulated with the plan's own inputs)";
    }
    if (!plan.estimate.feasible)
        return "the plan is marked infeasible (estimate.feasible is false)";
    return {};
}

} // namespace hetplan
