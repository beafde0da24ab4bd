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

struct ScaleModelShape {
    std::string base = "gpt2-xl";   // example model whose embedding, transformer block and head are used
    int blocks = 198;
    int sequence = 2048;             // 0 = the base model's own
    int layerCount() const { return blocks + 2; }
};

// The base model at `sequence` with its block repeated `blocks` times; named "gpt-<layers>". Throws
// InputError if the base is not an embedding, identical transformer blocks and a head.
ModelSpec makeScaleModel(const ScaleModelShape& shape = {});

// Writes DIR/<cluster>.cluster.json and DIR/<model>.model.json (creating DIR); returns the two paths.
std::pair<std::string, std::string> writeScaleInputs(const std::string& dir, const ScaleClusterShape& cluster = {},
                                                     const ScaleModelShape& model = {});

} // namespace hetplan::bench
