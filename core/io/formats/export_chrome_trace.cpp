// Chrome Trace Event JSON of the simulated iteration (chrome://tracing, Perfetto; see exporters.h).
#include "core/io/exporters.h"

#include "core/cost/costmodel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <map>

namespace hetplan {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

} // namespace

QJsonObject chromeTrace(const Plan& plan, const SimResult& result)
{
    const Cluster& c = plan.cluster;
    const int G = c.gpuCount();
    // Integer nanoseconds for the lane assignment, so "no overlap" holds exactly for what is written.
    struct Item {
        const TimelineEvent* e;
        long long start, end;
    };
    std::map<std::pair<int, int>, std::vector<Item>> tracks; // (gpu, 0 compute | 1 communication)
    for (const TimelineEvent& e : result.events) {
        if (e.gpu < 0 || e.gpu >= G)
            continue;
        const long long s = std::llround(e.start * 1e9), t = std::llround(e.end * 1e9);
        if (t <= s)
            continue; // nothing to draw
        tracks[{e.gpu, isCommunication(e.kind) ? 1 : 0}].push_back({&e, s, t});
    }

    QJsonArray events;
    std::map<int, bool> namedNode;
    for (auto& [key, items] : tracks) {
        const auto [gpu, track] = key;
        const int node = c.gpu(gpu).node;
        if (!namedNode[node]) {
            namedNode[node] = true;
            const Node& n = c.nodes[node];
            events.append(QJsonObject{{"ph", "M"},
                                      {"name", "process_name"},
                                      {"pid", node},
                                      {"tid", 0},
                                      {"args", QJsonObject{{"name", qs(n.name + " (" + n.deviceType + ")")}}}});
            events.append(QJsonObject{{"ph", "M"},
                                      {"name", "process_sort_index"},
                                      {"pid", node},
                                      {"tid", 0},
                                      {"args", QJsonObject{{"sort_index", node}}}});
        }
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
        std::vector<long long> laneEnd; // greedy interval partitioning: first lane that is free
        for (const Item& it : items) {
            size_t lane = 0;
            while (lane < laneEnd.size() && laneEnd[lane] > it.start)
                ++lane;
            if (lane == laneEnd.size()) {
                laneEnd.push_back(0);
                const int tid = int(2 * G * lane) + gpu * 2 + track;
                std::string name = "GPU " + c.gpuName(gpu) + (track ? " communication" : " compute");
                if (lane > 0)
                    name += " #" + std::to_string(lane + 1);
                events.append(QJsonObject{{"ph", "M"},
                                          {"name", "thread_name"},
                                          {"pid", node},
                                          {"tid", tid},
                                          {"args", QJsonObject{{"name", qs(name)}}}});
                events.append(QJsonObject{{"ph", "M"},
                                          {"name", "thread_sort_index"},
                                          {"pid", node},
                                          {"tid", tid},
                                          {"args", QJsonObject{{"sort_index", gpu * 64 + track * 32 + int(lane)}}}});
            }
            laneEnd[lane] = it.end;
            const TimelineEvent& e = *it.e;
            std::string name = toString(e.kind);
            if (e.microBatch >= 0)
                name += " " + std::to_string(e.microBatch);
            QJsonObject args{{"pipeline", e.pipeline}, {"replica", e.replica}, {"stage", e.stage}};
            if (e.microBatch >= 0)
                args["micro_batch"] = e.microBatch;
            events.append(QJsonObject{{"ph", "X"},
                                      {"name", qs(name)},
                                      {"cat", track ? "communication" : "compute"},
                                      {"pid", node},
                                      {"tid", int(2 * G * lane) + gpu * 2 + track},
                                      {"ts", double(it.start) / 1000.0},
                                      {"dur", double(it.end - it.start) / 1000.0},
                                      {"args", args}});
        }
    }
    return QJsonObject{
        {"traceEvents", events},
        {"displayTimeUnit", "ms"},
        {"otherData", QJsonObject{{"planner", qs(plan.planner)}, {"iteration_seconds", result.iterationSeconds}}}};
}

void registerChromeTraceExporter(ExporterRegistry& registry)
{
    registry.add(
        {{"chrome-trace", "Chrome trace of the simulated iteration (chrome://tracing, Perfetto)", "*.json", ".json"},
         [](const Plan& plan) {
             const CostModel costs(plan.model, plan.job, plan.profile);
             const QJsonObject trace = chromeTrace(plan, simulate(plan, costs));
             return QJsonDocument(trace).toJson(QJsonDocument::Compact).toStdString();
         }});
}

} // namespace hetplan
