#pragma once
// The one place planners and the simulator get layer times from: measured profile entries win, the analytic
// generator fills the rest. Thread-safe for concurrent readers.
#include "analytic.h"
#include "collectives.h"
#include "core/model/cluster.h"
#include "core/model/device.h"
#include "core/model/job.h"
#include "core/model/model.h"
#include "core/model/profile.h"

#include <string>
#include <vector>

namespace hetplan {

class CostModel {
public:
    CostModel(const ModelSpec& model, const Job& job, const Profile& measured,
              const DeviceCatalog& catalog = DeviceCatalog::builtin());

    const ModelSpec& model() const { return model_; }
    const Job& job() const { return job_; }
    const Profile& measured() const { return measured_; }
    const DeviceCatalog& catalog() const { return catalog_; }
    const DeviceType& device(const std::string& name) const; // throws InputError if unknown

    // Timing of one layer for one micro-batch on `device` with tensor-parallel degree tp.
    LayerTiming layer(int layer, const std::string& device, int tp, double microBatch) const;
    // Sums over layers [first, end).
    LayerTiming range(int first, int end, const std::string& device, int tp, double microBatch) const;
    // All layers at once (planners precompute these).
    std::vector<LayerTiming> layers(const std::string& device, int tp, double microBatch) const;
    bool isMeasured(const std::string& device, int tp) const { return measured_.has(device, tp); }

    // Tensor-parallel all-reduces in layer times assume the device's usual intra-node link (analytic) or
    // the profiling machine's (measured). When a tp group really talks over `link` (the cluster's own
    // intra-node bandwidth, or a NIC when the group spans nodes), forward and backward each change by
    // this many seconds. Analytic times are corrected both ways; measured ones only ever get slower.
    double tpLinkDelta(int first, int end, const std::string& device, int tp, double microBatch,
                       const LinkParams& link) const;
    // range() with the tp all-reduces over `link`.
    LayerTiming range(int first, int end, const std::string& device, int tp, double microBatch,
                      const LinkParams& link) const;

private:
    ModelSpec model_;
    Job job_;
    Profile measured_;
    const DeviceCatalog& catalog_;
};

} // namespace hetplan
