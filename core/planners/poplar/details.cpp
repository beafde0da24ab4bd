#include "details.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <map>

namespace hetplan::poplar {

std::vector<int> denseSizes(int maxMicroBatch)
{
    std::vector<int> sizes;
    const int n = 128;
    if (maxMicroBatch <= n) {
        for (int b = 1; b <= maxMicroBatch; ++b)
            sizes.push_back(b);
        return sizes;
    }
    const double top = std::log(double(maxMicroBatch));
    for (int k = 0; k < n; ++k) {
        const int b = int(std::lround(std::exp(top * k / (n - 1))));
        if (sizes.empty() || b > sizes.back())
            sizes.push_back(b);
    }
    if (sizes.back() != maxMicroBatch)
        sizes.push_back(maxMicroBatch);
    return sizes;
}

namespace {

QJsonObject deviceJson(const DeviceProfile& d, const SpeedCurve& c, const std::vector<ZeroGpu>& chosen)
{
    QJsonArray gpus, profiled, oom, splineX, splineY, picks;
    for (int g : d.gpus)
        gpus.append(g);
    for (const ProfiledPoint& p : d.points)
        profiled.append(QJsonObject{
            {"micro_batch", p.microBatch}, {"seconds", p.seconds}, {"samples_per_second", p.microBatch / p.seconds}});
    for (int b : d.outOfMemory)
        oom.append(b);
    for (int b : denseSizes(c.maxMicroBatch())) {
        splineX.append(b);
        splineY.append(c.speedAt(b));
    }
    std::map<int, int> count; // the plan's micro-batch sizes on this device type
    for (const ZeroGpu& z : chosen)
        if (z.accumulationSteps > 0 && std::find(d.gpus.begin(), d.gpus.end(), z.gpu) != d.gpus.end())
            ++count[z.microBatchSize];
    for (const auto& [b, n] : count)
        picks.append(QJsonObject{{"micro_batch", b}, {"samples_per_second", c.speed(b)}, {"gpus", n}});
    return QJsonObject{{"device", QString::fromStdString(d.device)},
                       {"gpus", gpus},
                       {"estimated_max_micro_batch", d.estimatedMax},
                       {"max_micro_batch", d.maxMicroBatch},
                       {"profiling_runs", d.runs},
                       {"profiled", profiled},
                       {"out_of_memory", oom},
                       {"spline", QJsonObject{{"micro_batch", splineX}, {"samples_per_second", splineY}}},
                       {"peak_micro_batch", c.peakMicroBatch()},
                       {"peak_samples_per_second", c.speed(c.peakMicroBatch())},
                       {"chosen", picks}};
}

} // namespace

QJsonObject detailsJson(const ProfilingResult& profiling, const std::vector<SpeedCurve>& curves,
                        const Allocation& allocation, bool wallTime)
{
    QJsonArray escalations, devices;
    for (const std::string& e : profiling.escalations)
        escalations.append(QString::fromStdString(e));
    for (size_t k = 0; k < profiling.devices.size(); ++k)
        devices.append(deviceJson(profiling.devices[k], curves[k], allocation.gpus));
    QJsonObject o{{"zero_stage_requested", profiling.requestedStage},
                  {"zero_stage", profiling.stage},
                  {"escalations", escalations},
                  {"method", wallTime ? "wall-time" : "peak-speed"},
                  {"candidates", double(allocation.candidates)},
                  {"devices", devices}};
    if (wallTime) {
        o["step_limit_seconds"] = allocation.stepLimit;
        o["accumulation_steps"] = allocation.accumulation;
    }
    return o;
}

} // namespace hetplan::poplar
