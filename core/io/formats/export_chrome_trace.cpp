// Chrome Trace Event JSON of the simulated iteration (chrome://tracing, Perfetto; see exporters.h).
#include "core/base/qstrings.h"
#include "core/io/exporters.h"

#include "core/cost/costmodel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <map>

namespace hetplan {

namespace {

// Chrome's trace engine sizes its window from the first timestamp and ignores one at 0: the iteration's
// time 0 is written as 1 µs.
constexpr double kTraceOffsetMicroseconds = 1.0;

// Integer nanoseconds for the lane assignment, so "no overlap" holds exactly for what is written.
struct Item {
    const TimelineEvent* e;
    long long start, end;
};

using Tracks = std::map<std::pair<int, int>, std::vector<Item>>; // (gpu, 0 compute | 1 communication)

Tracks tracksOf(const Cluster& c, const SimResult& result)
{
    Tracks tracks;
    for (const TimelineEvent& e : result.events) {
        if (e.gpu < 0 || e.gpu >= c.gpuCount())
            continue;
        const long long s = std::llround(e.start * 1e9), t = std::llround(e.end * 1e9);
        if (t <= s)
            continue; // nothing to draw
        tracks[{e.gpu, isCommunication(e.kind) ? 1 : 0}].push_back({&e, s, t});
    }
    return tracks;
}

QJsonObject metadata(const char* name, int pid, int tid, QJsonObject args)
{
    return QJsonObject{{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", args}};
}

// The process (node) rows: named after the node and its device, in node order.
void nameNode(const Cluster& c, int node, QJsonArray& events)
{
    const Node& n = c.nodes[node];
    events.append(metadata("process_name", node, 0, {{"name", toQString(n.name + " (" + n.deviceType + ")")}}));
    events.append(metadata("process_sort_index", node, 0, {{"sort_index", node}}));
}

// A thread row per (GPU, track, lane): overlapping events of one track go to extra lanes.
void nameLane(const Cluster& c, int gpu, int track, size_t lane, QJsonArray& events)
{
    const int tid = int(2 * c.gpuCount() * lane) + gpu * 2 + track;
    std::string name = "GPU " + c.gpuName(gpu) + (track ? " communication" : " compute");
    if (lane > 0)
        name += " #" + std::to_string(lane + 1);
    const int node = c.gpu(gpu).node;
    events.append(metadata("thread_name", node, tid, {{"name", toQString(name)}}));
    events.append(metadata("thread_sort_index", node, tid, {{"sort_index", gpu * 64 + track * 32 + int(lane)}}));
}

QJsonObject completeEvent(const Cluster& c, const Item& it, int gpu, int track, size_t lane)
{
    const TimelineEvent& e = *it.e;
    std::string name = toString(e.kind);
    if (e.microBatch >= 0)
        name += " " + std::to_string(e.microBatch);
    QJsonObject args{{"pipeline", e.pipeline}, {"replica", e.replica}, {"stage", e.stage}};
    if (e.microBatch >= 0)
        args["micro_batch"] = e.microBatch;
    return QJsonObject{{"ph", "X"},
                       {"name", toQString(name)},
                       {"cat", track ? "communication" : "compute"},
                       {"pid", c.gpu(gpu).node},
                       {"tid", int(2 * c.gpuCount() * lane) + gpu * 2 + track},
                       {"ts", kTraceOffsetMicroseconds + double(it.start) / 1000.0},
                       {"dur", double(it.end - it.start) / 1000.0},
                       {"args", args}};
}

} // namespace

QJsonObject chromeTrace(const Plan& plan, const SimResult& result)
{
    const Cluster& c = plan.cluster;
    QJsonArray events;
    std::map<int, bool> namedNode;
    for (auto& [key, items] : tracksOf(c, result)) {
        const auto [gpu, track] = key;
        if (!namedNode[c.gpu(gpu).node]) {
            namedNode[c.gpu(gpu).node] = true;
            nameNode(c, c.gpu(gpu).node, events);
        }
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
        std::vector<long long> laneEnd; // greedy interval partitioning: first lane that is free
        for (const Item& it : items) {
            size_t lane = 0;
            while (lane < laneEnd.size() && laneEnd[lane] > it.start)
                ++lane;
            if (lane == laneEnd.size()) {
                laneEnd.push_back(0);
                nameLane(c, gpu, track, lane, events);
            }
            laneEnd[lane] = it.end;
            events.append(completeEvent(c, it, gpu, track, lane));
        }
    }
    return QJsonObject{
        {"traceEvents", events},
        {"displayTimeUnit", "ms"},
        {"otherData", QJsonObject{{"planner", toQString(plan.planner)}, {"iteration_seconds", result.iterationSeconds}}}};
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
