#pragma once
// Per-layer timings per (device type, tensor-parallel degree, micro-batch size): measured (imported) or
// generated analytically. Lookups between measured micro-batch sizes interpolate linearly; outside the
// measured range they scale with the micro-batch size from the nearest measured point.
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
    bool operator==(const LayerTiming&) const = default;
};

struct ProfileKey {
    std::string deviceType;
    int tp = 1;
    int microBatch = 1;
    auto operator<=>(const ProfileKey&) const = default;
};

class Profile {
public:
    std::string model;  // model name the profile belongs to
    std::string source; // "analytic", "native", "oobleck", "sailor", "amp-npy", "csv"

    bool operator==(const Profile&) const = default;
    bool empty() const { return tables_.empty(); }

    // Replace/insert the per-layer table measured at one (device, tp, micro-batch).
    void set(const ProfileKey& key, std::vector<LayerTiming> layers);
    const std::vector<LayerTiming>* table(const ProfileKey& key) const;
    const std::map<ProfileKey, std::vector<LayerTiming>>& tables() const { return tables_; }

    bool has(const std::string& deviceType, int tp) const;
    std::vector<std::string> deviceTypes() const;
    std::vector<int> tensorParallelDegrees(const std::string& deviceType) const;
    std::vector<int> microBatches(const std::string& deviceType, int tp) const; // sorted ascending
    int layerCount() const;                                                     // 0 if empty; all tables must agree

    // Measured timing of `layer` at micro-batch `mbs` (interpolated), or nullopt if this device/tp was not
    // measured.
    std::optional<LayerTiming> lookup(int layer, const std::string& deviceType, int tp, double mbs) const;

    // Overlay: every table of `other` replaces the same key here (imported measurements win).
    void merge(const Profile& other);
    // Keep only the given device types (a plan file carries only what it uses).
    Profile restrictedTo(const std::vector<std::string>& deviceTypes) const;

    // Checks tables are consistent (same layer count, non-negative finite times); throws InputError.
    void validate(const std::string& file) const;

private:
    std::map<ProfileKey, std::vector<LayerTiming>> tables_;
};

} // namespace hetplan
