#include "scale_inputs.h"

#include "core/base/errors.h"
#include "core/io/json_io.h"

#include <QDir>

#include <algorithm>
#include <cctype>

namespace hetplan::bench {

namespace {

constexpr double kFastNic = 25e9;   // 200 Gb/s: A100 and H100 servers
constexpr double kSlowNic = 12.5e9; // 100 Gb/s
constexpr int kCanvasColumns = 16;
constexpr double kCanvasSpacing = 220; // what the bundled example clusters use

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

} // namespace

const std::vector<ScaleNodeType>& scaleNodeTypes()
{
    static const std::vector<ScaleNodeType> types{
        {"H100-SXM", kFastNic},  {"A100-80GB", kFastNic}, {"A100-40GB", kFastNic}, {"V100-32GB", kSlowNic},
        {"V100-16GB", kSlowNic}, {"RTX-A6000", kSlowNic}, {"RTX-3090", kSlowNic},  {"T4", kSlowNic}};
    return types;
}

ScaleClusterShape scaleClusterShape(int gpus)
{
    ScaleClusterShape shape;
    const int perType = shape.gpusPerNode * int(shape.types.size());
    if (gpus <= 0 || gpus % perType != 0)
        throw InputError("scale inputs", "gpus",
                         "must be a positive multiple of " + std::to_string(perType) + " (got " + std::to_string(gpus) +
                             ")");
    shape.nodesPerType = gpus / perType;
    return shape;
}

Cluster makeScaleCluster(const ScaleClusterShape& shape)
{
    Cluster c;
    c.name = "scale-" + std::to_string(shape.gpuCount());
    c.description = "Generated scale benchmark: " + std::to_string(shape.nodesPerType) + " nodes of " +
                    std::to_string(shape.gpusPerNode) + " GPUs for each of " + std::to_string(shape.types.size()) +
                    " device types.";
    for (const ScaleNodeType& t : shape.types)
        for (int i = 0; i < shape.nodesPerType; ++i) {
            const int index = int(c.nodes.size());
            Node n;
            n.name = lower(t.device) + "-" + std::to_string(i);
            n.deviceType = t.device;
            n.gpus = shape.gpusPerNode;
            n.nicBandwidth = t.nicBandwidth;
            n.x = kCanvasSpacing * (index % kCanvasColumns);
            n.y = kCanvasSpacing * (index / kCanvasColumns);
            c.nodes.push_back(n);
        }
    return c;
}

ModelSpec makeScaleModel(const ScaleModelShape& shape)
{
    return buildGptModel("gpt-" + std::to_string(shape.layerCount()), shape.blocks, shape.hidden, shape.heads,
                         shape.sequence);
}

std::pair<std::string, std::string> writeScaleInputs(const std::string& dir, const ScaleClusterShape& cluster,
                                                     const ScaleModelShape& model)
{
    if (!QDir().mkpath(QString::fromStdString(dir)))
        throw InputError(dir, "", "cannot create the directory");
    const Cluster c = makeScaleCluster(cluster);
    const ModelSpec m = makeScaleModel(model);
    const std::string clusterPath = dir + "/" + c.name + ".cluster.json";
    const std::string modelPath = dir + "/" + m.name + ".model.json";
    writeJsonFile(clusterPath, toJson(c));
    writeJsonFile(modelPath, toJson(m));
    return {clusterPath, modelPath};
}

} // namespace hetplan::bench
