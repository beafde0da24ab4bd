#include "annealing.h"

#include "core/base/errors.h"
#include "core/planners/amp/amp_cost.h"
#include "core/planners/amp/domino.h"
#include "core/planners/common/bounds.h"
#include "core/planners/common/search_tail.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace hetplan {

std::vector<PlannerOption> AnnealingPlanner::options() const
{
    return {PlannerOption::integer("iterations", "Annealing steps", 300, 0, 10000000, "annealing steps"),
            PlannerOption::integer("top_k", "Strategies simulated", 10, 1, 100000,
                                   "recorded strategies re-scored by the simulator"),
            PlannerOption::real("temperature", "Initial temperature", 0.2, 0, 1000,
                                "initial temperature as a fraction of the first feasible cost"),
            PlannerOption::boolean("keep_infeasible", "Keep memory misfits", false,
                                   "accept strategies that do not fit GPU memory"),
            PlannerOption::boolean("repair_memory", "Repair memory misfits", true,
                                   "re-split layers with misfitting stages forbidden before rejecting a move"),
            PlannerOption::boolean("cross_node_tp", "Tensor parallel across nodes", false,
                                   "allow domino shapes that split a tensor-parallel group across nodes (as in the "
                                   "paper; Megatron-LM and DeepSpeed keep tp inside a node)")};
}

namespace {

template <typename T>
const T& pick(const std::vector<T>& v, std::mt19937_64& rng)
{
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

std::vector<int> strategyKey(const Strategy& s)
{
    const Degrees d = s.placement.degrees;
    std::vector<int> k{d.pp, d.dp, d.tp, s.microBatchSize};
    k.insert(k.end(), s.placement.gpus.begin(), s.placement.gpus.end());
    k.insert(k.end(), s.layerBounds.begin(), s.layerBounds.end());
    return k;
}

// One annealing walk: the state, the temperature schedule and the record of accepted strategies.
class Walk {
public:
    Walk(const PlanRequest& req, const CostModel& costs, const Progress& progress)
        : req_(req),
          progress_(progress),
          amp_(req.cluster, costs),
          rng_(req.seed),
          iterations_(req.intOption("iterations")),
          temperature_(req.doubleOption("temperature")),
          keepInfeasible_(req.boolOption("keep_infeasible")),
          repair_(req.boolOption("repair_memory") && !keepInfeasible_),
          crossNodeTp_(req.boolOption("cross_node_tp")),
          all_(enumerateDegrees(req.cluster.gpuCount(), req.model.layerCount(), req.job.globalBatchSize,
                                allowedTensorDegrees(req.model, req.cluster, crossNodeTp_)))
    {
        if (all_.empty())
            throw InfeasibleError("annealing: no (pp, dp, tp) fits the cluster, model and global batch");
    }

    // Runs until the iterations are done or a stop is requested; returns why it stopped early (or None).
    StopReason run()
    {
        visit(realise(pick(all_, rng_))); // initialize_strategy()
        for (int i = 0; i < iterations_; ++i, ++steps_) {
            if (const StopReason r = progress_.stopReason(); r != StopReason::None)
                return r;
            if (i % 16 == 0)
                progress_.report(0.8 * i / std::max(1, iterations_), "annealing");
            step(i);
        }
        return StopReason::None;
    }

    std::vector<Strategy> recorded()
    {
        std::vector<Strategy> out;
        for (auto& [key, strategy] : record_)
            out.push_back(std::move(strategy));
        return out;
    }
    long long steps() const { return steps_; }
    long long dropped() const { return dropped_; }

private:
    // Draw micro-batch and domino placement for given degrees, split layers by the DP, cost by eq. 3-5.
    Strategy realise(const Degrees& d)
    {
        const int gbs = req_.job.globalBatchSize;
        Strategy s;
        s.microBatchSize = pick(divisors(gbs / d.dp), rng_);
        s.microBatches = gbs / (d.dp * s.microBatchSize);
        auto placed = randomDominoPlacement(req_.cluster, d, rng_, !crossNodeTp_);
        if (!placed)
            return s; // no tiling for these degrees: no layer split, so the move is not usable
        s.placement = *placed;
        const AmpEstimate e = amp_.evaluate(s.placement, s.microBatchSize, s.microBatches, LayerDpMethod::Fast, repair_,
                                            [this] { return progress_.stopReason() != StopReason::None; });
        s.layerBounds = e.bounds;
        s.plannerCost = e.seconds;
        s.fitsMemory = e.fitsMemory && !e.bounds.empty();
        return s;
    }

    bool usable(const Strategy& s) const { return !s.layerBounds.empty() && (s.fitsMemory || keepInfeasible_); }

    // The start state: recorded if usable; the first usable state sets the temperature scale.
    void visit(Strategy s)
    {
        if (usable(s)) {
            cost_ = s.plannerCost;
            t0_ = temperature_ * cost_;
            record_.emplace(strategyKey(s), s);
        } else {
            ++dropped_;
        }
        current_ = std::move(s);
    }

    // Neighbour: vary tmp with dp fixed, or dp with tmp fixed (any degrees if stuck).
    Degrees neighbour()
    {
        const Degrees cur = current_.placement.degrees;
        const bool varyTp = unit_(rng_) > 0.5;
        std::vector<Degrees> moves;
        for (const Degrees& d : all_)
            if (varyTp ? (d.dp == cur.dp && d.tp != cur.tp) : (d.tp == cur.tp && d.dp != cur.dp))
                moves.push_back(d);
        return pick(moves.empty() ? all_ : moves, rng_);
    }

    void step(int i)
    {
        Strategy next = realise(neighbour());
        if (!usable(next)) {
            ++dropped_;
            if (!std::isfinite(cost_))
                current_ = std::move(next); // nothing feasible yet: keep wandering instead of circling the start
            return;
        }
        if (!std::isfinite(cost_)) {
            visit(std::move(next));
            return;
        }
        // Linear cooling to 0; a worse move is accepted with probability exp((cost − next)/t).
        const double t = t0_ * (1.0 - double(i) / iterations_);
        const double delta = std::min(cost_ - next.plannerCost, 0.0);
        const double accept = t > 0 ? std::exp(delta / t) : (delta < 0 ? 0.0 : 1.0);
        if (unit_(rng_) < accept) {
            cost_ = next.plannerCost;
            record_.emplace(strategyKey(next), next);
            current_ = std::move(next);
        }
    }

    const PlanRequest& req_;
    const Progress& progress_;
    const AmpCostModel amp_;
    std::mt19937_64 rng_;
    std::uniform_real_distribution<double> unit_{0.0, 1.0};
    const int iterations_;
    const double temperature_;
    const bool keepInfeasible_, repair_, crossNodeTp_;
    const std::vector<Degrees> all_;
    Strategy current_;
    double cost_ = std::numeric_limits<double>::infinity();
    double t0_ = -1;
    std::map<std::vector<int>, Strategy> record_;
    long long steps_ = 0, dropped_ = 0;
};

} // namespace

Plan AnnealingPlanner::plan(const PlanRequest& req, const CostModel& costs, Progress& progress) const
{
    Walk walk(req, costs, progress);
    const StopReason stopped = walk.run();
    std::vector<Strategy> recorded = walk.recorded();
    SearchStats stats;
    stats.candidates = walk.steps() + 1;
    stats.extra["dropped_for_memory"] = double(walk.dropped()); // rejected moves; the tail drops none
    stats.extra["recorded"] = double(recorded.size());
    SearchTail tail;
    tail.simulate = tail.keep = req.intOption("top_k");
    tail.keepInfeasible = req.boolOption("keep_infeasible");
    tail.what = "recorded strategies";
    return finishSearch(std::move(recorded), tail, req, costs, progress, stopped, std::move(stats), "annealing");
}

} // namespace hetplan
