#pragma once
// Generated inputs for the scale benchmarks: a large cluster of eight device types and a deep GPT. The
// default shapes are the 1024-GPU / 200-layer case; other sizes are the same calls with other numbers.
#include "core/model/cluster.h"
#include "core/model/model.h"

#include <string>
#include <utility>
#include <vector>

namespace hetplan::bench {

// A node kind of the scale cluster: catalog device type and the node's NIC bandwidth (bytes/s).
struct ScaleNodeType {
    std::string device;
    double nicBandwidth = 0;
};

// Eight built-in device types, datacenter then consumer cards: A100/H100 servers with 200 Gb/s NICs,
// the rest with 100 Gb/s.
const std::vector<ScaleNodeType>& scaleNodeTypes();

struct ScaleClusterShape {
    int nodesPerType = 16;
    int gpusPerNode = 8;
    std::vector<ScaleNodeType> types = scaleNodeTypes();
    int gpuCount() const { return nodesPerType * gpusPerNode * int(types.size()); }
};

// The default types and GPUs per node with enough nodes for `gpus` GPUs (1024 → 16 nodes per type).
// Throws InputError unless `gpus` is a positive multiple of types × GPUs per node (64).
ScaleClusterShape scaleClusterShape(int gpus);

// nodesPerType nodes of each type in turn, named "<device>-<i>" in lower case, laid out on a grid for
// the cluster canvas; named "scale-<gpus>".
Cluster makeScaleCluster(const ScaleClusterShape& shape = {});

// A GPT-style model (core/model buildGptModel). The default, 198 blocks of hidden 4096 with 32 heads at
// sequence 1024, is a 40 B-parameter GPT-3-like model whose heads split over every tp a node allows and
// whose activations fit the 16 GB GPUs of the scale cluster without recomputation.
struct ScaleModelShape {
    int blocks = 198;
    int hidden = 4096;
    int heads = 32;
    int sequence = 1024;
    int layerCount() const { return blocks + 2; }
};

// Named "gpt-<layers>". Throws InputError for sizes buildGptModel refuses.
ModelSpec makeScaleModel(const ScaleModelShape& shape = {});

// Writes DIR/<cluster>.cluster.json and DIR/<model>.model.json (creating DIR); returns the two paths.
std::pair<std::string, std::string> writeScaleInputs(const std::string& dir, const ScaleClusterShape& cluster = {},
                                                     const ScaleModelShape& model = {});

} // namespace hetplan::bench
