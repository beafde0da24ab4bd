#pragma once
// Per-layer timings per (device type, tensor-parallel degree, micro-batch size): measured (imported) or
// generated analytically. Lookups between measured micro-batch sizes follow the measured trend of the
// per-sample time (a monotone cubic through the per-sample times, see lookup()); outside the measured range
// the per-sample time is held flat at the nearest measured size.
#include "core/model/job.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace hetplan {

struct LayerTiming {
    double forward = 0;          // seconds for one micro-batch
    double backward = 0;         // seconds for one micro-batch
    double update = 0;           // optimizer step seconds for this layer's shard (0 if unknown)
    double activationBytes = -1; // activation memory per micro-batch, bytes; < 0 = not measured
    // Recorded by hetplan-profile, kept for the reader (the cost models do not use them yet); -1 = not recorded.
    double peakBytes = -1;         // peak memory of the layer's forward + backward (params, input, activations)
    double tpAllReduceBytes = -1;  // bytes the layer's tensor-parallel shard all-reduces per micro-batch, forward
    bool operator==(const LayerTiming&) const = default;
};

struct ProfileKey {
    std::string deviceType;
    int tp = 1;
    int microBatch = 1;
    auto operator<=>(const ProfileKey&) const = default;
};

// What a measuring tool says about the machine a device type's tables came from (hetplan-profile writes it).
struct DeviceMeasurement {
    std::string hardware; // e.g. "NVIDIA H100 80GB HBM3"
    std::string tool;     // e.g. "hetplan-profile 0.1.0"
    std::string software; // e.g. "torch 2.3.0, CUDA 12.1, Python 3.11.2"
    // Largest micro-batch size every layer fitted at, per tensor-parallel degree, where a larger one ran out of
    // memory (absent: no size tried ran out).
    std::map<int, int> maxMicroBatch;
    bool operator==(const DeviceMeasurement&) const = default;
};

class Profile {
public:
    std::string model;  // model name the profile belongs to
    std::string source; // "analytic", "native", "oobleck", "sailor", "amp-npy", "csv", "metis"
    // What the measurements ran at. A job that differs is rescaled or refused by the CostModel, never
    // silently reused. 0 / nullopt = not recorded (profiles written before these fields existed).
    int sequenceLength = 0;
    std::optional<Precision> precision;
    std::map<std::string, DeviceMeasurement> measuredOn; // by device type; only what a tool recorded

    bool operator==(const Profile&) const = default;
    bool empty() const { return tables_.empty(); }

    // Replace/insert the per-layer table measured at one (device, tp, micro-batch).
    void set(const ProfileKey& key, std::vector<LayerTiming> layers);
    const std::vector<LayerTiming>* table(const ProfileKey& key) const;
    const std::map<ProfileKey, std::vector<LayerTiming>>& tables() const { return tables_; }

    bool has(const std::string& deviceType, int tp) const;
    std::vector<std::string> deviceTypes() const;
    std::vector<int> microBatches(const std::string& deviceType, int tp) const; // sorted ascending
    int layerCount() const;                                                     // 0 if empty; all tables must agree

    // Measured timing of `layer` at micro-batch `mbs`, or nullopt if this device/tp was not measured.
    // Between measured sizes forward and backward follow a monotone cubic (Fritsch-Butland, as SciPy's
    // PCHIP) through the per-sample times: per-sample time falls and flattens with the batch, and a monotone
    // interpolant never dips below or rises above its neighbouring measurements, where a natural cubic
    // spline overshoots (through 10, 6, 5, 5 it dips under 5) and would invent a sweet spot between
    // measurements. Below the smallest and above the largest measured size the per-sample time is flat.
    // The optimizer step and activation bytes (linear in the batch) interpolate linearly.
    std::optional<LayerTiming> lookup(int layer, const std::string& deviceType, int tp, double mbs) const;

    // Overlay: every table of `other` replaces the same key here (imported measurements win), and so does
    // its measuredOn entry of a device type. Throws
    // InputError when both record a different sequence length or precision.
    void merge(const Profile& other);
    // Keep only the given device types (a plan file carries only what it uses).
    Profile restrictedTo(const std::vector<std::string>& deviceTypes) const;

    // Checks tables are consistent (same layer count, non-negative finite times); throws InputError.
    void validate(const std::string& file) const;

private:
    std::map<ProfileKey, std::vector<LayerTiming>> tables_;
};

} // namespace hetplan
