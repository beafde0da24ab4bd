#include "selection.h"

#include "core/base/errors.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace hetplan {

namespace {

// The cluster's nodes per device type, each type's nodes best first: the fastest NIC, then the smallest
// runtime overhead, then cluster order (a subset with fewer nodes keeps the front).
std::vector<std::pair<std::string, std::vector<int>>> nodesByType(const Cluster& cluster)
{
    std::vector<std::pair<std::string, std::vector<int>>> out;
    for (int n = 0; n < int(cluster.nodes.size()); ++n) {
        const std::string& type = cluster.nodes[size_t(n)].deviceType;
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& t) { return t.first == type; });
        if (it == out.end())
            it = out.insert(out.end(), {type, {}});
        it->second.push_back(n);
    }
    for (auto& [type, nodes] : out)
        std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) {
            const Node &x = cluster.nodes[size_t(a)], &y = cluster.nodes[size_t(b)];
            if (x.nicBandwidth != y.nicBandwidth)
                return x.nicBandwidth > y.nicBandwidth;
            return x.runtimeOverhead < y.runtimeOverhead;
        });
    return out;
}

// Nodes to keep per type → the subset leaving the others out.
NodeSubset subsetKeeping(const Cluster& cluster, const std::vector<std::pair<std::string, std::vector<int>>>& types,
                         const std::vector<int>& keep, std::string why)
{
    std::set<int> kept;
    for (size_t t = 0; t < types.size(); ++t)
        kept.insert(types[t].second.begin(), types[t].second.begin() + keep[t]);
    NodeSubset s{{}, std::move(why)};
    for (int n = 0; n < int(cluster.nodes.size()); ++n)
        if (!kept.count(n))
            s.leftOut.push_back(cluster.nodes[size_t(n)].name);
    return s;
}

std::string typeList(const std::vector<std::pair<std::string, std::vector<int>>>& types, const std::vector<int>& keep,
                     bool kept)
{
    std::string out;
    for (size_t t = 0; t < types.size(); ++t)
        if ((keep[t] > 0) == kept)
            out += (out.empty() ? "" : ", ") + types[t].first;
    return out;
}

} // namespace

std::vector<NodeSubset> candidateSubsets(const Cluster& cluster)
{
    const auto types = nodesByType(cluster);
    const size_t m = types.size();
    std::vector<int> all;
    for (const auto& t : types)
        all.push_back(int(t.second.size()));
    std::vector<NodeSubset> out{subsetKeeping(cluster, types, all, "every node")};
    // Subsets of the types: all of them up to four types, else one type left out at a time.
    const auto withoutTypes = [&](const std::vector<int>& keep) {
        out.push_back(subsetKeeping(cluster, types, keep, "without " + typeList(types, keep, false)));
    };
    if (m >= 2 && m <= 4)
        for (unsigned mask = 1; mask + 1 < (1u << m); ++mask) {
            std::vector<int> keep(m, 0);
            for (size_t t = 0; t < m; ++t)
                keep[t] = (mask >> t) & 1 ? all[t] : 0;
            withoutTypes(keep);
        }
    else if (m > 4)
        for (size_t t = 0; t < m; ++t) {
            std::vector<int> keep = all;
            keep[t] = 0;
            withoutTypes(keep);
        }
    // Fewer nodes: of one type, then of every type alike.
    const auto fraction = [](int n, double f) { return std::max(1, int(std::lround(n * f))); };
    for (size_t t = 0; t < m; ++t)
        for (double f : {0.5, 0.75}) {
            std::vector<int> keep = all;
            keep[t] = fraction(all[t], f);
            if (keep[t] < all[t])
                out.push_back(subsetKeeping(cluster, types, keep,
                                            std::to_string(keep[t]) + " of " + std::to_string(all[t]) + " " +
                                                types[t].first + " nodes"));
        }
    for (double f : {0.25, 0.5, 0.75}) {
        std::vector<int> keep(m);
        for (size_t t = 0; t < m; ++t)
            keep[t] = fraction(all[t], f);
        if (keep != all)
            out.push_back(subsetKeeping(cluster, types, keep,
                                        std::to_string(int(std::lround(f * 100))) + " % of every type's nodes"));
    }
    std::set<std::vector<std::string>> seen;
    std::erase_if(out, [&](const NodeSubset& s) {
        return s.leftOut.size() == cluster.nodes.size() || !seen.insert(s.leftOut).second;
    });
    return out;
}

namespace {

QJsonArray names(const std::vector<std::string>& v)
{
    QJsonArray out;
    for (const std::string& s : v)
        out.append(QString::fromStdString(s));
    return out;
}

QJsonObject rowOf(const NodeSubset& s, const Plan& p, const std::optional<std::string>& miss)
{
    QJsonObject row{{"subset", QString::fromStdString(s.why)},
                    {"left_out", names(s.leftOut)},
                    {"gpus", int(p.usedGpus().size())},
                    {"iteration_seconds", p.estimate.iterationSeconds},
                    {"tokens_per_second", p.estimate.tokensPerSecond},
                    {"fits", p.estimate.feasible},
                    {"meets", !miss}};
    if (p.estimate.cost) {
        row["dollars_per_hour"] = p.estimate.cost->dollarsPerHour;
        row["dollars_per_million_tokens"] = p.estimate.cost->dollarsPerMillionTokens;
    }
    if (miss)
        row["miss"] = QString::fromStdString(*miss);
    return row;
}

std::string ratioText(double r)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f×", r);
    return text;
}

// Why the chosen subset beat every node: the gain under the goal, against the full cluster's plan.
std::string gainText(const Objective& o, const Plan& chosen, const std::optional<Plan>& full)
{
    if (!full)
        return "every node gave no plan";
    if (full->search.stopped != StopReason::None) // its search was cut short: no fair comparison
        return "the search on every node was stopped early (" + toString(full->search.stopped) + ")";
    if (auto miss = objectiveMiss(o, full->estimate))
        return "the plan on every node " + *miss;
    if (o.goal == Objective::Goal::Time)
        return ratioText(full->estimate.iterationSeconds / chosen.estimate.iterationSeconds) +
               " faster than the plan on every node";
    return ratioText(objectiveValue(o, full->estimate) / objectiveValue(o, chosen.estimate)) +
           " cheaper per token than the plan on every node";
}

QJsonArray idleGpus(const Plan& plan)
{
    const std::vector<int> used = plan.usedGpus();
    const std::set<int> usedSet(used.begin(), used.end());
    QJsonArray out;
    for (int g = 0; g < plan.cluster.gpuCount(); ++g)
        if (!usedSet.count(g))
            out.append(QString::fromStdString(plan.cluster.gpuName(g)));
    return out;
}

} // namespace

Plan runWithSelection(const std::string& planner, const PlanRequest& request, Progress& progress, const SingleRun& run)
{
    const Cluster base = withoutFailedNodes(request.cluster);
    if (base.nodes.empty()) { // every node failed: the plain run says so
        PlanRequest plain = request;
        plain.selectGpus = false;
        plain.objective = {};
        return run(planner, plain, progress);
    }
    const std::vector<NodeSubset> subsets = candidateSubsets(base);
    const Objective& objective = request.objective;
    std::optional<Plan> best, full;
    size_t bestIndex = 0;
    std::optional<std::string> closestMiss;
    double closest = std::numeric_limits<double>::infinity();
    std::optional<InputError> inputError; // the first, rethrown when nothing but input errors came back
    bool onlyInputErrors = true;
    std::string fullError;
    QJsonArray tried;
    StopReason stopped = StopReason::None;
    const auto start = std::chrono::steady_clock::now();
    const auto errorRow = [&](const NodeSubset& s, const std::string& text) {
        tried.append(QJsonObject{{"subset", QString::fromStdString(s.why)}, {"left_out", names(s.leftOut)},
                                 {"error", QString::fromStdString(text)}});
    };
    for (size_t i = 0; i < subsets.size(); ++i) {
        if ((stopped = progress.stopReason()) != StopReason::None)
            break;
        const NodeSubset& s = subsets[i];
        progress.report(double(i) / double(subsets.size()), planner + ": GPUs " + s.why);
        PlanRequest sub = request;
        sub.selectGpus = false;
        sub.cluster = s.leftOut.empty() ? base : withoutNodes(base, s.leftOut, "selection");
        // What is left of the time limit, shared by the subsets still to try (time one leaves unused
        // goes to the next).
        if (request.timeLimitSeconds > 0) {
            const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            sub.timeLimitSeconds = std::max(1e-3, request.timeLimitSeconds - used) / double(subsets.size() - i);
        }
        const auto forward = [&](double f, const std::string& text) {
            progress.report((double(i) + f) / double(subsets.size()), text);
        };
        Progress inner(forward, sub.timeLimitSeconds, progress.stopToken());
        try {
            Plan p = run(planner, sub, inner);
            onlyInputErrors = false;
            const std::optional<std::string> miss = objectiveMiss(objective, p.estimate);
            tried.append(rowOf(s, p, miss));
            if (!miss && (!best || betterUnder(objective, p.estimate, best->estimate))) {
                best = p;
                bestIndex = i;
            }
            if (miss && objectiveShortfall(objective, p.estimate) < closest) {
                closest = objectiveShortfall(objective, p.estimate);
                closestMiss = "the plan " + (s.leftOut.empty() ? std::string("on every node") : s.why) + " " + *miss;
            }
            if (i == 0)
                full = std::move(p);
        } catch (const InfeasibleError& e) {
            onlyInputErrors = false;
            errorRow(s, e.what());
            fullError = i == 0 ? e.what() : fullError;
        } catch (const InputError& e) {
            // A subset outside the planner's domain (a homogeneous-only planner on mixed types, ...).
            errorRow(s, e.what());
            fullError = i == 0 ? e.what() : fullError;
            if (!inputError)
                inputError = e;
        } catch (const CancelledError& e) {
            if (progress.stopReason() != StopReason::None) { // the whole run was stopped
                stopped = progress.stopReason();
                break;
            }
            onlyInputErrors = false; // only this subset's share of the time ran out
            errorRow(s, std::string("stopped: ") + e.what());
        }
    }
    if (!best) {
        if (stopped != StopReason::None)
            throw CancelledError(planner + ": stopped before any subset of the GPUs gave a plan");
        if (onlyInputErrors && inputError)
            throw *inputError; // what no subset can fix: a bad option for this model, ...
        throw InfeasibleError(planner + ": no plan on any subset of the GPUs meets the goal (" + describe(objective) +
                              ")" + (closestMiss       ? ": " + *closestMiss
                                     : fullError.empty() ? std::string()
                                                         : "; on every node: " + fullError));
    }
    Plan plan = std::move(*best);
    if (stopped != StopReason::None)
        plan.search.stopped = stopped;
    const NodeSubset& chosen = subsets[bestIndex];
    QJsonArray leftOut;
    for (const std::string& name : chosen.leftOut) {
        const Node& n = base.nodes[size_t(*base.findNode(name))];
        leftOut.append(QJsonObject{{"node", QString::fromStdString(name)},
                                   {"device", QString::fromStdString(n.deviceType)},
                                   {"gpus", n.gpus}});
    }
    QJsonObject section{{"objective", QString::fromStdString(describe(objective))},
                        {"goal", QString::fromStdString(toString(objective.goal))},
                        {"subset", QString::fromStdString(chosen.why)},
                        {"left_out", leftOut},
                        {"why", QString::fromStdString(chosen.leftOut.empty() ? "every node gives the best plan"
                                                                             : gainText(objective, plan, full))},
                        {"idle_in_plan", idleGpus(plan)},
                        {"tried", tried}};
    if (objective.budgetDollarsPerHour > 0)
        section["budget_dollars_per_hour"] = objective.budgetDollarsPerHour;
    if (objective.minTokensPerSecond > 0)
        section["min_tokens_per_second"] = objective.minTokensPerSecond;
    plan.details["selection"] = section;
    return plan;
}

std::vector<FrontierPoint> costFrontier(std::vector<FrontierPoint> points)
{
    std::stable_sort(points.begin(), points.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
        return a.dollarsPerHour != b.dollarsPerHour ? a.dollarsPerHour < b.dollarsPerHour
                                                    : a.tokensPerSecond > b.tokensPerSecond;
    });
    std::vector<FrontierPoint> out;
    for (const FrontierPoint& p : points)
        if (out.empty() || p.tokensPerSecond > out.back().tokensPerSecond)
            out.push_back(p);
    return out;
}

std::optional<Objective> objectiveOf(const Plan& plan)
{
    auto it = plan.details.find("selection");
    if (it == plan.details.end())
        return std::nullopt;
    Objective o;
    if (!parseObjectiveGoal(it->second.value("goal").toString().toStdString(), o.goal))
        o.goal = Objective::Goal::Time;
    o.budgetDollarsPerHour = it->second.value("budget_dollars_per_hour").toDouble();
    o.minTokensPerSecond = it->second.value("min_tokens_per_second").toDouble();
    return o;
}

std::vector<FrontierPoint> selectionPoints(const Plan& plan)
{
    std::vector<FrontierPoint> out;
    auto it = plan.details.find("selection");
    if (it == plan.details.end())
        return out;
    for (const QJsonValue& v : it->second.value("tried").toArray()) {
        const QJsonObject row = v.toObject();
        if (row.contains("dollars_per_hour") && row.value("fits").toBool(true))
            out.push_back({row.value("dollars_per_hour").toDouble(), row.value("tokens_per_second").toDouble(),
                           plan.planner + ", " + row.value("subset").toString().toStdString()});
    }
    return out;
}

} // namespace hetplan
