#pragma once
// The physical range of every measured or user-given quantity, declared once. A value outside its range is
// a unit mistake or a broken measurement, never a real GPU, link or price, and letting it through makes
// times overflow to infinity, LPs lose their optimum and costs read "$inf/h" far from the input that
// caused it. Readers check a value where it enters (checkRange) and refuse it as `file: field: reason`,
// the reason naming the range. docs/user-guide.md ("Input ranges") lists the table for users.
#include <string>

namespace hetplan {

struct PhysicalRange {
    const char* quantity; // what is bounded ("layer time")
    double min, max;      // inclusive bounds, in `unit`
    bool zeroAllowed;     // exactly 0 is accepted too (a layer that does no work; "none" for a budget)
    const char* unit;     // "s", "B", "B/s", "FLOP/s", "$/GPU-hour", ...
    const char* why;      // the one-line reason for the bounds
};

namespace ranges {
// One layer's forward, backward or optimizer step on one micro-batch: below 1 ns is less than one GPU clock
// cycle, above 10^4 s (almost 3 hours per layer) is a unit mistake; 0 = the tool measured nothing there.
inline constexpr PhysicalRange kLayerTime{"a layer's time", 1e-9, 1e4, true, "s",
                                          "one layer on one micro-batch: under 1 ns is below one GPU clock cycle, "
                                          "over 10000 s is a unit mistake"};
// One layer's activation, peak memory or all-reduce traffic per micro-batch: no GPU holds 1 PB.
inline constexpr PhysicalRange kLayerBytes{"a layer's memory", 1, 1e15, true, "B",
                                           "one layer on one micro-batch: no GPU holds 1 PB, and a fraction of a byte "
                                           "is not memory"};
// Any link or device memory: slower than 1 kB/s is a unit mistake, 1 PB/s is ~100x the fastest HBM.
inline constexpr PhysicalRange kBandwidth{"a bandwidth", 1e3, 1e15, false, "B/s",
                                          "any link or memory: under 1 kB/s or over 1 PB/s is a unit mistake"};
// One message's latency.
inline constexpr PhysicalRange kLatency{"a latency", 0, 10, true, "s",
                                        "one message: over 10 s is a unit mistake"};
// A GPU's memory: the largest parts hold 192 GB.
inline constexpr PhysicalRange kDeviceMemory{"a GPU's memory", 1e6, 1e15, false, "B",
                                             "one GPU: under 1 MB or over 1 PB is a unit mistake"};
// A GPU's peak rate: a B200 does ~2.3e15 dense 16-bit FLOP/s.
inline constexpr PhysicalRange kFlopRate{"a GPU's FLOP rate", 1e9, 1e18, false, "FLOP/s",
                                         "one GPU: under 1 GFLOP/s or over 1 EFLOP/s is a unit mistake"};
// One GPU-hour on demand: cloud list prices are between about $0.1 and $100.
inline constexpr PhysicalRange kPricePerGpuHour{"a price", 1e-4, 1e4, false, "US dollars per GPU-hour",
                                                "cloud list prices are $0.1 to $100 per GPU-hour; 0 is no price"};
// A budget for the whole cluster: the highest price times a million GPUs; 0 = no budget.
inline constexpr PhysicalRange kBudget{"a budget", 1e-4, 1e10, true, "US dollars per hour",
                                       "at most $10000 per GPU-hour for a million GPUs; 0 = no budget"};
// A throughput floor: a million GPUs at a million tokens/s each; 0 = no floor.
inline constexpr PhysicalRange kThroughputFloor{"a throughput", 1e-3, 1e12, true, "tokens/s",
                                                "at most a million GPUs at a million tokens/s each; 0 = no floor"};
// A fraction of a device's peak it reaches: below 0.1 % no GPU is working.
inline constexpr PhysicalRange kEfficiency{"an efficiency", 1e-3, 1, false, "",
                                           "a fraction of the device's peak: under 0.1 % no GPU is working"};
// The micro-batch size at which a device reaches half its best efficiency (the catalog's batch curve).
inline constexpr PhysicalRange kHalfBatch{"a micro-batch size", 1e-3, 1e6, false, "samples",
                                          "where a GPU's efficiency curve reaches half its height"};
// A model's layer, per sample: a trillion-parameter model's layer over a ten-million-token sequence (the
// longest a job takes) stays below these; beyond them analytic times overflow.
inline constexpr PhysicalRange kModelParams{"a layer's parameters", 0, 1e15, true, "parameters",
                                            "one layer: a thousand times the largest model's whole count"};
inline constexpr PhysicalRange kModelFlop{"a layer's FLOP", 0, 1e21, true, "FLOP per sample",
                                          "one layer's forward on one sample"};
inline constexpr PhysicalRange kModelBytes{"a layer's bytes", 0, 1e18, true, "B per sample",
                                           "one layer on one sample"};
inline constexpr PhysicalRange kModelCount{"a count", 0, 1e9, true, "",
                                           "kernels per forward or a matrix dimension"};
} // namespace ranges

// Empty when `v` is within `r`, else the reason: "must be 0 or between 1e-09 and 10000 s (one layer on one
// micro-batch: …), got 1e+20".
std::string rangeProblem(const PhysicalRange& r, double v);
// Throws InputError(file, field, rangeProblem(r, v)) when `v` is outside `r`.
void checkRange(const PhysicalRange& r, double v, const std::string& file, const std::string& field);

} // namespace hetplan
