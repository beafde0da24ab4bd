// hetplan-memcheck: the memory model (core/cost/memory.h) against the per-layer memory of Metis-format
// profiles (layer_memory_total_mb of mbs{B}_tmp{T}.json, e.g. ../shared/data/metis-opt350/<GPU>/).
//
//   hetplan-memcheck DIR [--model NAME] [--precision fp16|bf16|fp32] [--sequence N]
//                        [--framework megatron-core|megatron-legacy|deepspeed-pipe]
//
// DIR holds one folder per GPU (or the files themselves). Each layer is predicted as the memory model's
// per-layer terms (core/cost/memory.h): its model states (no ZeRO, one data-parallel rank), its share of
// the framework's gradient buffer (DeepSpeed's flattened bucket: 4 bytes per fp32 parameter; Megatron: none)
// and one micro-batch of activations, the quantity the files record. The allocator reserve is once per
// stage, communicators and context once per GPU: not per layer, so they are left out. Prints one markdown row per
// (micro-batch, tp) with the median relative error (predicted / measured - 1) of the transformer blocks
// and of all layers, then the medians over every (file, layer) point. Also splits each block's figure into
// its micro-batch-independent part (states) and its per-sample part (activations) by a least-squares line
// over the micro-batch sizes, and compares those parts with the model's.
#include "core/cost/memory.h"
#include "core/model/model.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace hetplan;

namespace {

struct Point {
    int mbs = 0, tp = 0;
    std::vector<double> measured; // bytes per layer
};

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<Point> readPoints(const QString& root)
{
    static const QRegularExpression re("^mbs([0-9]+)_tmp([0-9]+)\\.json$");
    std::vector<Point> out;
    QStringList dirs = QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    dirs.prepend(".");
    for (const QString& d : dirs) {
        const QDir dir(root + "/" + d);
        for (const QString& name : dir.entryList({"*.json"}, QDir::Files)) {
            const auto m = re.match(name);
            QFile f(dir.filePath(name));
            if (!m.hasMatch() || !f.open(QIODevice::ReadOnly))
                continue;
            const QJsonArray mem = QJsonDocument::fromJson(f.readAll())
                                       .object()["execution_memory"]
                                       .toObject()["layer_memory_total_mb"]
                                       .toArray();
            Point p{m.captured(1).toInt(), m.captured(2).toInt(), {}};
            for (const QJsonValue& v : mem)
                p.measured.push_back(v.toDouble() * 1024 * 1024);
            if (!p.measured.empty())
                out.push_back(p);
        }
    }
    return out;
}

double predicted(const ModelSpec& m, int l, int tp, int mbs, const Job& job)
{
    const GpuMemory g = stageMemory(m, l, l + 1, tp, 1, mbs, 1, job);
    return g.stagePart() - g.allocatorReserve; // the per-layer terms
}

// Least-squares line memory = a + b·mbs of one layer over the micro-batch sizes of one tp.
std::pair<double, double> line(const std::vector<std::pair<double, double>>& xy)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0;
    for (auto [x, y] : xy) {
        mx += x / xy.size();
        my += y / xy.size();
    }
    for (auto [x, y] : xy) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
    }
    const double b = sxx > 0 ? sxy / sxx : 0;
    return {my - b * mx, b};
}

void printSplit(const std::vector<Point>& points, const ModelSpec& m, int block, const Job& job)
{
    std::map<int, std::vector<std::pair<double, double>>> byTp;
    for (const Point& p : points)
        byTp[p.tp].push_back({double(p.mbs), p.measured[block]});
    std::printf(
        "\n| tp | measured states MiB | model states + gradient buffer MiB | measured activation MiB/sample | model MiB/sample |\n");
    std::printf("|---|---|---|---|---|\n");
    for (const auto& [tp, xy] : byTp) {
        const auto [a, b] = line(xy);
        const GpuMemory g = stageMemory(m, block, block + 1, tp, 1, 1, 1, job);
        const double states = g.weights + g.gradients + g.optimizer + g.gradientBuffer;
        const double act = stageActivations(m, block, block + 1, tp, 1, job).peak(1);
        std::printf("| %d | %.1f | %.1f | %.1f | %.1f |\n", tp, a / 1048576, states / 1048576, b / 1048576,
                    act / 1048576);
    }
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: hetplan-memcheck DIR [--model NAME] [--precision P] [--sequence N] "
                             "[--framework F]\n");
        return 2;
    }
    std::string modelName = "opt-350m";
    Job job;
    job.precision = Precision::FP32;
    job.sequenceLength = 2048;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--model")
            modelName = v;
        else if (k == "--sequence")
            job.sequenceLength = std::stoi(v);
        else if (k == "--framework") {
            if (!parseFramework(v, job.framework)) {
                std::fprintf(stderr, "unknown framework %s\n", v.c_str());
                return 2;
            }
        }
        else if (k != "--precision" || !parsePrecision(v, job.precision)) {
            std::fprintf(stderr, "unknown option %s %s\n", k.c_str(), v.c_str());
            return 2;
        }
    }
    const ModelSpec m = buildExampleModel(modelName, job.sequenceLength);
    std::vector<Point> points = readPoints(QString::fromStdString(argv[1]));
    std::erase_if(points, [&](const Point& p) { return int(p.measured.size()) != m.layerCount(); });
    std::printf("model %s, %s, %s, sequence %d, %zu files\n\n", modelName.c_str(), toString(job.precision).c_str(),
                toString(job.framework).c_str(), job.sequenceLength, points.size());
    std::printf("| mbs | tp | files | median error, blocks | median error, first layer | median error, last layer "
                "|\n|---|---|---|---|---|---|\n");
    struct Row {
        std::vector<double> blocks, first, last;
    };
    std::map<std::pair<int, int>, Row> rows;
    std::vector<double> blocks, all;
    int block = -1;
    const int L = m.layerCount();
    for (const Point& p : points)
        for (int l = 0; l < L; ++l) {
            const double e = predicted(m, l, p.tp, p.mbs, job) / p.measured[l] - 1;
            const bool isBlock = m.layers[l].kind == LayerKind::Transformer;
            block = isBlock && block < 0 ? l : block;
            Row& r = rows[{p.mbs, p.tp}];
            (isBlock ? r.blocks : l == 0 ? r.first : r.last).push_back(e);
            if (isBlock)
                blocks.push_back(e);
            all.push_back(e);
        }
    for (auto& [key, r] : rows)
        std::printf("| %d | %d | %zu | %+.1f %% | %+.1f %% | %+.1f %% |\n", key.first, key.second, r.first.size(),
                    100 * median(r.blocks), 100 * median(r.first), 100 * median(r.last));
    std::vector<double> absolute;
    for (double e : all)
        absolute.push_back(std::abs(e));
    std::printf("\nmedian error over %zu block points: %+.1f %%; over all %zu points: %+.1f %% (median |error| %.1f "
                "%%)\n",
                blocks.size(), 100 * median(blocks), all.size(), 100 * median(all), 100 * median(absolute));
    if (block >= 0)
        printSplit(points, m, block, job);
    return 0;
}
