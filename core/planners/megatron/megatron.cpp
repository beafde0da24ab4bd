#include "megatron.h"

#include "core/base/errors.h"
#include "core/planners/amp/amp_cost.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/search_tail.h"
#include "core/planners/megatron_space.h"

#include <algorithm>
#include <map>

namespace hetplan {

std::vector<PlannerOption> MegatronPlanner::options() const
{
    return withMegatronSpace({PlannerOption::choice(
        "split", "Layer split", "layers", {"layers", "params"},
        "layer assignment: layers (equal transformer blocks per stage, embedding first, head last) or params "
        "(balanced parameters)")});
}

Plan MegatronPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    const std::string split = req.option("split");
    const int gpus = req.cluster.gpuCount();
    const int layers = req.model.layerCount();
    const int gbs = req.job.globalBatchSize;
    std::vector<double> params;
    for (const LayerSpec& l : req.model.layers)
        params.push_back(l.params);
    // "layers": Megatron divides the transformer blocks evenly (embedding with the first stage, head with
    // the last), as AMP ran it (its table 8).
    auto boundsFor = [&](int pp) {
        return split == "params" ? balancedBounds(params, pp) : blockBounds(req.model, pp);
    };

    const std::vector<Degrees> all = enumerateDegrees(gpus, layers, gbs, allowedTensorDegrees(req.model, req.cluster));
    const AmpCostModel amp(req.cluster, costs);
    std::vector<Strategy> proposals;
    long long considered = 0;
    StopReason stopped = StopReason::None;
    for (int mbs : divisors(gbs)) {
        if ((stopped = progress.stopReason()) != StopReason::None)
            break;
        // Degrees usable with this micro-batch, grouped by tp·pp (ascending).
        std::map<int, std::vector<Degrees>> byProduct;
        for (const Degrees& d : all)
            if ((gbs / d.dp) % mbs == 0)
                byProduct[d.tp * d.pp].push_back(d);
        for (const auto& [product, group] : byProduct) {
            bool any = false;
            for (const Degrees& d : group) {
                ++considered;
                Strategy s;
                s.placement = megatronPlacement(req.cluster, d);
                s.microBatchSize = mbs;
                s.microBatches = gbs / (d.dp * mbs);
                s.layerBounds = boundsFor(d.pp);
                const AmpEstimate e = amp.estimate(s.placement, mbs, s.microBatches, s.layerBounds);
                if (!e.fitsMemory)
                    continue;
                s.plannerCost = e.seconds;
                proposals.push_back(std::move(s));
                any = true;
            }
            if (any)
                break; // the smallest tp·pp that fits
        }
    }
    if (proposals.empty() && stopped == StopReason::None)
        throw InfeasibleError("megatron: no tp·pp fits GPU memory for any micro-batch size");
    SearchStats stats;
    stats.candidates = considered;
    stats.extra["proposals"] = double(proposals.size());
    SearchTail tail;
    tail.simulate = 0; // Megatron has no cost model: every proposal is "run"
    tail.keep = int(proposals.size());
    tail.what = "proposals";
    return finishSearch(std::move(proposals), tail, req, costs, progress, stopped, std::move(stats), "megatron");
}

} // namespace hetplan
