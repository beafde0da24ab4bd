#pragma once
// The plan's "poplar" section (Plan::details["poplar"]):
//   zero_stage_requested, zero_stage, escalations[]            what algorithm 1 did with the ZeRO stage
//   method ("peak-speed" | "wall-time"), step_limit_seconds, accumulation_steps, candidates
//   devices[]: device, gpus[], estimated_max_micro_batch, max_micro_batch, profiling_runs,
//              profiled[] {micro_batch, seconds, samples_per_second}   the sizes run that fit
//              out_of_memory[]                                          the sizes run that did not
//              spline {micro_batch[], samples_per_second[]}             the curve sampled densely
//              peak_micro_batch, peak_samples_per_second
//              chosen[] {micro_batch, samples_per_second, gpus}         the plan's micro-batches on it
#include "allocation.h"

#include <QJsonObject>

namespace hetplan::poplar {

QJsonObject detailsJson(const ProfilingResult& profiling, const std::vector<SpeedCurve>& curves,
                        const Allocation& allocation, bool wallTime);

// The spline sampled at every size up to 128, else at 128 sizes evenly spaced in log(b), ends included.
std::vector<int> denseSizes(int maxMicroBatch);

} // namespace hetplan::poplar
