#include "core/planners/sweep.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"

#include <QJsonArray>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <mutex>
#include <thread>

namespace hetplan {

namespace {

// A whole number in [lo, hi], else InputError naming the axis.
int wholeNumber(const std::string& v, int lo, int hi, const std::string& source, const std::string& axis)
{
    const bool digits = !v.empty() && v.size() <= 9 && std::all_of(v.begin(), v.end(), ::isdigit);
    const long long n = digits ? std::stoll(v) : -1;
    if (!digits || n < lo || n > hi)
        throw InputError(source, axis,
                         "expected whole numbers from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" +
                             v + "'");
    return int(n);
}

void checkValue(const std::string& axis, const std::string& v, const std::string& source)
{
    if (axis == "gbs")
        wholeNumber(v, 1, kMaxBatch, source, axis);
    else if (axis == "seq")
        wholeNumber(v, 1, 1 << 22, source, axis);
    else if (axis == "zero")
        wholeNumber(v, 0, 3, source, axis);
    else if (v.empty()) // without: a node name (checked against the cluster later) or "none"
        throw InputError(source, axis, "expected a node name or 'none', got an empty value");
}

} // namespace

SweepAxis parseSweepAxis(const std::string& spec, const std::string& source)
{
    const auto eq = spec.find('=');
    if (eq == std::string::npos)
        throw InputError(source, spec, "expected NAME=V1,V2,... (NAME: gbs, seq, zero or without)");
    SweepAxis axis{spec.substr(0, eq), {}};
    if (axis.name != "gbs" && axis.name != "seq" && axis.name != "zero" && axis.name != "without")
        throw InputError(source, axis.name, "unknown parameter (can vary: gbs, seq, zero, without)");
    const std::string list = spec.substr(eq + 1);
    if (list.empty())
        throw InputError(source, axis.name, "no values given");
    // Split by hand: "512," has an empty second value, which getline would drop silently.
    for (size_t from = 0;;) {
        const size_t comma = list.find(',', from);
        const std::string v = list.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        checkValue(axis.name, v, source);
        axis.values.push_back(v);
        if (comma == std::string::npos)
            break;
        from = comma + 1;
    }
    return axis;
}

void addSweepAxis(std::vector<SweepAxis>& axes, const SweepAxis& axis, const std::string& source)
{
    auto it = std::find_if(axes.begin(), axes.end(), [&](const SweepAxis& a) { return a.name == axis.name; });
    if (it == axes.end())
        it = axes.insert(axes.end(), SweepAxis{axis.name, {}});
    for (const std::string& v : axis.values) {
        if (std::find(it->values.begin(), it->values.end(), v) != it->values.end())
            throw InputError(source, axis.name, "value '" + v + "' given twice");
        it->values.push_back(v);
    }
}

std::vector<SweepPoint> sweepPoints(const std::vector<SweepAxis>& axes)
{
    std::vector<SweepPoint> points{SweepPoint{}};
    for (const SweepAxis& axis : axes) {
        std::vector<SweepPoint> next;
        for (const SweepPoint& p : points)
            for (const std::string& v : axis.values) {
                SweepPoint q = p;
                q.emplace_back(axis.name, v);
                next.push_back(std::move(q));
            }
        points = std::move(next);
    }
    return points;
}

double sweepSize(const std::vector<SweepAxis>& axes)
{
    double n = 1;
    for (const SweepAxis& a : axes)
        n *= double(a.values.size());
    return n;
}

SweepPoint sweepPoint(const std::vector<SweepAxis>& axes, long long index)
{
    SweepPoint point(axes.size());
    for (size_t k = axes.size(); k-- > 0;) {
        const long long n = (long long)axes[k].values.size();
        point[k] = {axes[k].name, axes[k].values[size_t(index % n)]};
        index /= n;
    }
    return point;
}

void checkSweepSize(const std::vector<SweepAxis>& axes, size_t planners, const std::string& source)
{
    const double combinations = sweepSize(axes), plans = combinations * double(planners);
    if (plans <= double(kMaxSweepPlans))
        return;
    throw InputError(source, "combinations",
                     messageNumber(combinations) + " combinations x " + std::to_string(planners) + " planner(s) = " +
                         messageNumber(plans) + " plans, more than the " + std::to_string(kMaxSweepPlans) +
                         " one sweep makes: vary fewer values or split the sweep");
}

PlanRequest applySweepPoint(const PlanRequest& base, const SweepPoint& point, const SequenceSetter& setSequence,
                            const std::string& source)
{
    PlanRequest r = base;
    for (const auto& [axis, v] : point) {
        if (axis == "gbs")
            r.job.globalBatchSize = std::stoi(v);
        else if (axis == "zero")
            r.job.zeroStage = std::stoi(v);
        else if (axis == "seq")
            setSequence(r, std::stoi(v));
        else if (axis == "without" && v != "none") {
            r.cluster = withoutNodes(r.cluster, {v}, source + " without");
            if (r.cluster.nodes.empty())
                throw InputError(source, "without", "no node of the cluster would be left without '" + v + "'");
        }
    }
    return r;
}

namespace {

// The combinations of a sweep, by index: each point, and its request, built only when it is planned.
struct SweepCombinations {
    size_t count = 0;
    std::function<SweepPoint(size_t)> point;
    std::function<PlanRequest(size_t)> request;
};

using Clock = std::chrono::steady_clock;

SweepRow planOne(const SweepCombinations& combinations, size_t index, const std::string& planner,
                 const PlannerOptions& perPlanner, const std::stop_token& stop,
                 std::optional<Clock::time_point> deadline)
{
    SweepRow row;
    row.point = combinations.point(index);
    row.planner = planner;
    row.status = RunStatus::Ok;
    if (stop.stop_requested()) {
        row.status = RunStatus::Cancelled;
        row.error = "the sweep was cancelled before this combination was planned";
        return row;
    }
    const double left = deadline ? std::chrono::duration<double>(*deadline - Clock::now()).count() : 0;
    if (deadline && left <= 0) {
        row.status = RunStatus::Cancelled;
        row.error = "the sweep's time limit passed before this combination was planned";
        return row;
    }
    try {
        PlanRequest request = requestForPlanner(combinations.request(index), planner, perPlanner);
        if (deadline && (request.timeLimitSeconds <= 0 || request.timeLimitSeconds > left))
            request.timeLimitSeconds = left;
        Progress progress({}, request.timeLimitSeconds, stop); // the search polls the sweep's token
        const Plan p = runPlanner(planner, request, progress);
        row.iterationSeconds = p.estimate.iterationSeconds;
        row.tokensPerSecond = p.estimate.tokensPerSecond;
        row.feasible = p.estimate.feasible;
        row.cost = p.estimate.cost;
        row.unpricedDeviceTypes = p.estimate.unpricedDeviceTypes;
        if (!p.estimate.feasible) {
            row.status = RunStatus::Infeasible;
            row.error = "the plan does not fit memory";
        }
    } catch (const InfeasibleError& e) {
        row.status = RunStatus::Infeasible;
        row.error = e.what();
    } catch (const CancelledError& e) {
        row.status = RunStatus::Cancelled;
        row.error = e.what();
    } catch (const InputError& e) {
        // Options that do not apply to this planner or combination: report, keep sweeping.
        row.status = RunStatus::NotApplicable;
        row.error = e.what();
    }
    return row;
}

std::vector<SweepRow> sweepRows(const SweepCombinations& combinations,
                                const std::vector<std::string>& planners, int threads, const SweepProgress& done,
                                const std::stop_token& stop, const PlannerOptions& perPlanner,
                                std::optional<Clock::time_point> deadline)
{
    const int total = int(combinations.count * planners.size());
    std::vector<SweepRow> rows(size_t(total), SweepRow{});
    std::atomic<int> next{0};
    int finished = 0;
    std::mutex reportLock;
    auto work = [&] {
        for (int i = next++; i < total; i = next++) {
            const size_t c = size_t(i) / planners.size();
            const std::string& planner = planners[size_t(i) % planners.size()];
            rows[size_t(i)] = planOne(combinations, c, planner, perPlanner, stop, deadline);
            const std::lock_guard<std::mutex> lock(reportLock);
            ++finished;
            if (done)
                done(finished, total, rows[size_t(i)]);
        }
    };
    if (threads <= 0)
        threads = int(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::clamp(threads, 1, std::max(total, 1));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    return rows;
}

} // namespace

std::vector<SweepRow> runSweep(const std::vector<std::pair<SweepPoint, PlanRequest>>& requests,
                               const std::vector<std::string>& planners, int threads, const SweepProgress& done,
                               std::stop_token stop, const PlannerOptions& perPlanner)
{
    const SweepCombinations combinations{
        requests.size(), [&](size_t c) { return requests[c].first; }, [&](size_t c) { return requests[c].second; }};
    return sweepRows(combinations, planners, threads, done, stop, perPlanner, {});
}

std::vector<SweepRow> runSweep(const std::vector<SweepAxis>& axes, const SweepRequestFn& request,
                               const std::vector<std::string>& planners, int threads, double timeLimitSeconds,
                               const SweepProgress& done, std::stop_token stop,
                               const PlannerOptions& perPlanner)
{
    checkSweepSize(axes, planners.size());
    std::optional<Clock::time_point> deadline;
    if (timeLimitSeconds > 0)
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(timeLimitSeconds));
    const SweepCombinations combinations{size_t(sweepSize(axes)),
                                         [&](size_t c) { return sweepPoint(axes, (long long)c); },
                                         [&](size_t c) { return request(sweepPoint(axes, (long long)c)); }};
    return sweepRows(combinations, planners, threads, done, stop, perPlanner, deadline);
}

QJsonObject sweepToJson(const std::vector<SweepAxis>& axes, const std::vector<std::string>& planners,
                        const std::vector<SweepRow>& rows, const std::string& cluster, const std::string& model)
{
    auto str = [](const std::string& s) { return QString::fromStdString(s); };
    // Numeric axes as numbers, node names as strings.
    auto value = [&](const std::string& axis, const std::string& v) {
        return axis == "without" ? QJsonValue(str(v)) : QJsonValue(std::stoi(v));
    };
    QJsonArray vary;
    for (const SweepAxis& a : axes) {
        QJsonArray values;
        for (const std::string& v : a.values)
            values.append(value(a.name, v));
        vary.append(QJsonObject{{"name", str(a.name)}, {"values", values}});
    }
    QJsonArray names;
    for (const std::string& p : planners)
        names.append(str(p));
    QJsonArray out;
    for (const SweepRow& r : rows) {
        QJsonObject settings;
        for (const auto& [axis, v] : r.point)
            settings[str(axis)] = value(axis, v);
        QJsonObject row{{"settings", settings}, {"planner", str(r.planner)}, {"status", str(toString(r.status))},
                        {"feasible", r.feasible}};
        if (r.status == RunStatus::Ok || r.iterationSeconds > 0) {
            row["iteration_seconds"] = r.iterationSeconds;
            row["tokens_per_second"] = r.tokensPerSecond;
        }
        if (r.cost) {
            row["dollars_per_hour"] = r.cost->dollarsPerHour;
            row["dollars_per_million_tokens"] = r.cost->dollarsPerMillionTokens;
        }
        if (!r.unpricedDeviceTypes.empty()) {
            QJsonArray types;
            for (const std::string& t : r.unpricedDeviceTypes)
                types.append(str(t));
            row["unpriced_device_types"] = types;
        }
        if (!r.error.empty())
            row["error"] = str(r.error);
        out.append(row);
    }
    return QJsonObject{{"schema", "hetplan.sweep/1"}, {"cluster", str(cluster)}, {"model", str(model)},
                       {"planners", names},         {"vary", vary},            {"rows", out}};
}

} // namespace hetplan
