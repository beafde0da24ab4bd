#pragma once
// A GPU model and the built-in catalog (resources/devices.json).
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// Runtime overhead of a device the catalog gives no figure for (the old flat reserve, 1 GB).
constexpr double kDefaultRuntimeOverheadBytes = 1.0e9;

struct DeviceType {
    std::string name;                 // catalog key, e.g. "V100-16GB"
    std::vector<std::string> aliases; // other spellings found in papers/tools ("v100_16gb", "V100-16")
    std::string vendor;               // "NVIDIA", "AMD", ...
    double peakFlops = 0;             // dense fp16/bf16 tensor FLOP/s
    double memoryBytes = 0;           // device memory, bytes
    double memoryBandwidth = 0;       // HBM/GDDR bandwidth, bytes/s
    std::string intraNodeLink;        // typical link between GPUs of one server, e.g. "NVLink 2.0"
    double intraNodeBandwidth = 0;    // bytes/s per GPU over that link (one direction)
    // Batch-efficiency curve: the fraction of peak a layer reaches at micro-batch b is
    //   eff(b) = effMax * b / (b + effHalfBatch)
    // which rises with b and saturates at effMax (the usual GEMM utilisation behaviour).
    double effMax = 0.5;
    double effHalfBatch = 1.0;
    std::string source; // where the numbers come from
    // The analytic profile's device model (core/cost/analytic.h; calibration in docs/calibration.md):
    double peakFlopsFp32 = 0;      // rate fp32 matrix products run at (TF32 tensor cores where NVIDIA has them)
    // The CUDA-core fp32 rate, what fp32 products run at when the job turns TF32 off (Job::tf32); the same
    // as peakFlopsFp32 on parts without TF32 (catalog `peak_flops_fp32_cuda_cores`, default peak_flops_fp32).
    double peakFlopsFp32CudaCores = 0;
    double gemmHalfDim = 0;        // matrix dimension at which a product reaches half its ceiling, per dimension
    double memoryEfficiency = 0.8; // achievable fraction of memory_bandwidth for streaming kernels
    double launchOverhead = 0;     // seconds per kernel launch (plus the framework's dispatch)
    std::string calibration;       // where the fitted figures come from
    // Whether two cards of this type on one PCIe tree do peer-to-peer transfers. NVIDIA's drivers disable
    // PCIe P2P on GeForce/Titan cards, so NCCL stages their transfers through host memory (catalog
    // `pcie_p2p`, default true; see cluster.h PcieTopology and collectives.h ringHopBandwidths).
    bool pcieP2p = true;
    // Memory a training process holds on this GPU beyond model states and activations: CUDA context,
    // NCCL communicator buffers, caching-allocator fragmentation and workspaces. Added to every GPU's peak
    // (a node of the cluster may override it). See resources/devices.json "runtime_overheads".
    double runtimeOverheadBytes = kDefaultRuntimeOverheadBytes;
    std::string runtimeOverheadSource;
    // Approximate on-demand cloud list price of one GPU-hour in US dollars; empty when no public cloud
    // offers the part on demand (consumer cards, export-only parts). A cluster node may override it.
    std::optional<double> pricePerGpuHour;
    std::string priceSource; // provider and offer the price comes from, or why there is none
    std::string priceDate;   // when that list price was published/read, e.g. "2024-06"

    double efficiency(double microBatch) const { return effMax * microBatch / (microBatch + effHalfBatch); }
    bool operator==(const DeviceType&) const = default;
};

class DeviceCatalog {
public:
    // The catalog bundled in resources (loaded once, thread-safe).
    static const DeviceCatalog& builtin();

    explicit DeviceCatalog(std::vector<DeviceType> devices = {});
    const std::vector<DeviceType>& all() const { return devices_; }
    // Exact name, then case-insensitive name or alias match ("v100" finds "V100-16GB" only if unique).
    const DeviceType* find(const std::string& name) const;
    void add(DeviceType d);

private:
    std::vector<DeviceType> devices_;
};

} // namespace hetplan
