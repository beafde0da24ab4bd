#include "consistency.h"

#include "core/base/errors.h"
#include "core/cost/costmodel.h"
#include "core/io/json_io.h"
#include "core/model/device.h"
#include "core/planners/megatron_space.h"
#include "core/sim/simulator.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>

namespace hetplan::bench {

namespace {

// NVIDIA types from datacenter to consumer, with the NIC their servers usually have (bytes/s).
struct TypeChoice {
    const char* device;
    double nic;
};
const TypeChoice kTypes[] = {{"H100-SXM", 50e9},  {"A100-80GB", 25e9}, {"A100-40GB", 25e9}, {"V100-32GB", 12.5e9},
                             {"V100-16GB", 12.5e9}, {"RTX-A6000", 12.5e9}, {"RTX-3090", 12.5e9}, {"T4", 6.25e9},
                             {"L4", 6.25e9}};

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

Scenario makeScenario(std::mt19937& rng, const GridShape& shape, int index)
{
    auto pick = [&](int n) { return int(rng() % unsigned(n)); };
    const int typeCount = 2 + pick(3);
    std::vector<int> types(std::size(kTypes));
    for (size_t i = 0; i < types.size(); ++i)
        types[i] = int(i);
    std::shuffle(types.begin(), types.end(), rng);
    types.resize(size_t(typeCount));
    const int budget = shape.minGpus + pick(shape.maxGpus - shape.minGpus + 1);
    Cluster c;
    c.name = "grid-" + std::to_string(index);
    std::string layout;
    for (int t = 0; t < typeCount; ++t) {
        const TypeChoice& type = kTypes[types[size_t(t)]];
        const int perNode = std::vector<int>{2, 4, 8}[size_t(pick(3))];
        const int nodes = std::max(1, budget / typeCount / perNode);
        const double nic = pick(4) == 0 ? type.nic / 4 : type.nic; // now and then a slower network
        for (int n = 0; n < nodes; ++n) {
            Node node;
            node.name = lower(type.device) + "-" + std::to_string(n);
            node.deviceType = type.device;
            node.gpus = perNode;
            node.nicBandwidth = nic;
            c.nodes.push_back(node);
        }
        layout += (layout.empty() ? "" : ", ") + std::to_string(nodes) + "×" + type.device + "×" +
                  std::to_string(perNode);
    }
    // A node whose software stack needs more memory than the catalog says: planners must see it.
    if (pick(3) == 0) {
        Node& n = c.nodes[size_t(pick(int(c.nodes.size())))];
        const DeviceType* d = DeviceCatalog::builtin().find(n.deviceType);
        n.runtimeOverhead = d->runtimeOverheadBytes + double(1 + pick(4)) * 1e9;
        layout += ", " + n.name + " +" + std::to_string(int((n.runtimeOverhead - d->runtimeOverheadBytes) / 1e9)) +
                  " GB overhead";
    }
    Scenario s;
    s.request.cluster = c;
    const std::string model = shape.models[size_t(pick(int(shape.models.size())))];
    s.request.model = buildExampleModel(model);
    s.request.job.globalBatchSize = std::vector<int>{32, 64, 128, 256, 512}[size_t(pick(5))];
    if (s.request.model.arch.sequence > 0)
        s.request.job.sequenceLength = s.request.model.arch.sequence;
    s.name = "s" + std::to_string(index) + ": " + std::to_string(c.gpuCount()) + " GPUs (" + layout + ") " + model +
             " gbs " + std::to_string(s.request.job.globalBatchSize);
    return s;
}

Outcome runOne(const std::string& planner, const PlanRequest& request, double timeLimit)
{
    Outcome o;
    o.planner = planner;
    const auto start = std::chrono::steady_clock::now();
    try {
        Progress progress({}, timeLimit);
        const Plan plan = runPlanner(planner, request, progress);
        // As a user gets it: through its JSON, simulated again from the inputs it carries.
        const Plan loaded = planFromJson(toJson(plan), "plan");
        const SimResult r = simulate(loaded, CostModel(loaded.model, loaded.job, loaded.profile));
        o.kind = Outcome::Kind::Plan;
        o.simulated = r.iterationSeconds;
        o.feasible = r.feasible;
        o.stoppedEarly = plan.search.stopped != StopReason::None;
        if (plan.plannerEstimate && planner == "exhaustive")
            o.objective = *plan.plannerEstimate;
        // Ditto's own objective T is compared with exhaustive's, which searches Ditto's space only: T of the
        // plan Ditto finds in that space, without Megatron's options (core/planners/megatron_space.h).
        if (planner == "ditto") {
            PlanRequest paper = request;
            for (const char* family : kMegatronSpaceFamilies)
                paper.options[family] = "false";
            Progress again({}, timeLimit);
            const Plan own = runPlanner(planner, paper, again);
            if (own.plannerEstimate)
                o.objective = *own.plannerEstimate;
        }
    } catch (const InfeasibleError& e) {
        o.kind = Outcome::Kind::Infeasible;
        o.message = e.what();
    } catch (const InputError& e) {
        o.kind = Outcome::Kind::NotApplicable;
        o.message = e.what();
    } catch (const CancelledError& e) {
        o.kind = Outcome::Kind::Stopped;
        o.message = e.what();
    }
    o.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return o;
}

// (contained, containing, compared on): the containing planner's space holds the contained one's plans.
struct Containment {
    const char* inner;
    const char* outer;
    bool onObjective; // compare T (ditto ⊆ exhaustive) rather than the simulated time
};
const Containment kContainments[] = {
    {"dp-even", "hap", false},
    {"dp-proportional", "hap", false},
    {"deepspeed-zero", "poplar", false},
    {"whale", "poplar", false},
    {"ditto", "exhaustive", true},
    {"amp", "metis", false},
    {"hethub", "metis", false},
};

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

} // namespace

std::vector<Scenario> consistencyGrid(const GridShape& shape)
{
    std::mt19937 rng(shape.seed);
    std::vector<Scenario> out;
    for (int i = 0; i < shape.scenarios; ++i)
        out.push_back(makeScenario(rng, shape, i));
    return out;
}

const Outcome* ScenarioRun::find(const std::string& planner) const
{
    for (const Outcome& o : outcomes)
        if (o.planner == planner)
            return &o;
    return nullptr;
}

double ScenarioRun::best() const
{
    double best = 0;
    for (const Outcome& o : outcomes)
        if (o.kind == Outcome::Kind::Plan && o.feasible && (best == 0 || o.simulated < best))
            best = o.simulated;
    return best;
}

std::vector<ScenarioRun> runGrid(const std::vector<Scenario>& grid, const std::vector<std::string>& planners,
                                 double timeLimitSeconds)
{
    std::vector<ScenarioRun> runs;
    for (const Scenario& s : grid) {
        ScenarioRun run{s, {}};
        for (const std::string& p : planners)
            run.outcomes.push_back(runOne(p, s.request, timeLimitSeconds));
        runs.push_back(std::move(run));
    }
    return runs;
}

std::vector<Violation> checkConsistency(const std::vector<ScenarioRun>& runs, double tolerance)
{
    std::vector<Violation> out;
    char text[200];
    for (const ScenarioRun& run : runs) {
        for (const Outcome& o : run.outcomes)
            if (o.kind == Outcome::Kind::Plan && !o.feasible)
                out.push_back({run.scenario.name, o.planner, "", "infeasible-ok", "its plan does not fit when simulated"});
        for (const Containment& c : kContainments) {
            const Outcome* inner = run.find(c.inner);
            const Outcome* outer = run.find(c.outer);
            if (!inner || !outer || inner->kind != Outcome::Kind::Plan || !inner->feasible)
                continue;
            // A search refused for its size or stopped by the time limit promises nothing.
            if (outer->kind == Outcome::Kind::NotApplicable || outer->kind == Outcome::Kind::Stopped ||
                outer->stoppedEarly)
                continue;
            if (outer->kind != Outcome::Kind::Plan) {
                out.push_back({run.scenario.name, c.outer, c.inner, "false-infeasible", outer->message});
                continue;
            }
            const double a = c.onObjective ? outer->objective : outer->simulated;
            const double b = c.onObjective ? inner->objective : inner->simulated;
            if (a > b * (1 + tolerance)) {
                std::snprintf(text, sizeof text, "%s %.4f s vs %s's %.4f s", c.onObjective ? "T" : "simulated", a,
                              c.inner, b);
                out.push_back({run.scenario.name, c.outer, c.inner, "beaten", text});
            }
            // Ditto's own promise: within 8 % of the exact optimum on T.
            if (c.onObjective && b > a * 1.08) {
                std::snprintf(text, sizeof text, "T %.4f s is %.1f %% over exhaustive's %.4f s", b, 100 * (b / a - 1), a);
                out.push_back({run.scenario.name, c.inner, c.outer, "over 8 %", text});
            }
        }
    }
    return out;
}

std::string consistencyTable(const std::vector<ScenarioRun>& runs)
{
    std::vector<std::string> planners;
    for (const Outcome& o : runs.empty() ? std::vector<Outcome>{} : runs.front().outcomes)
        planners.push_back(o.planner);
    const std::vector<Violation> violations = checkConsistency(runs);
    std::ostringstream t;
    t << "| planner | plans | infeasible ok | no plan | n/a | stopped | false no-plan | beaten | median / worst "
         "ratio to best | median search s of its plans |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const std::string& p : planners) {
        int plans = 0, noPlan = 0, na = 0, stopped = 0, badOk = 0, falseNo = 0, beaten = 0;
        std::vector<double> ratios, times;
        for (const ScenarioRun& run : runs) {
            const Outcome* o = run.find(p);
            switch (o->kind) {
            case Outcome::Kind::Plan:
                ++plans;
                times.push_back(o->searchSeconds); // refusals return at once and would hide the search time
                stopped += o->stoppedEarly;
                if (run.best() > 0 && o->feasible)
                    ratios.push_back(o->simulated / run.best());
                break;
            case Outcome::Kind::Infeasible: ++noPlan; break;
            case Outcome::Kind::NotApplicable: ++na; break;
            case Outcome::Kind::Stopped: ++stopped; break;
            }
        }
        for (const Violation& v : violations)
            if (v.planner == p) {
                badOk += v.kind == "infeasible-ok";
                falseNo += v.kind == "false-infeasible";
                beaten += v.kind == "beaten" || v.kind == "over 8 %";
            }
        char row[320];
        std::snprintf(row, sizeof row, "| %s | %d | %d | %d | %d | %d | %d | %d | %.3f / %.3f | %.2f |\n", p.c_str(),
                      plans, badOk, noPlan, na, stopped, falseNo, beaten, median(ratios),
                      ratios.empty() ? 0.0 : *std::max_element(ratios.begin(), ratios.end()), median(times));
        t << row;
    }
    return t.str();
}

} // namespace hetplan::bench
