#pragma once
// What the stage map shows for a plan, apart from how it is drawn: a grid of nodes (rows) × local GPUs
// (columns) with one cell per GPU saying what the plan puts there (pipeline stage, or a ZeRO plan's batch),
// its peak memory against the device's capacity, and the legend. Plain data: no widget, no QCustomPlot;
// StageMapView draws it.
#include "core/model/plan.h"
#include "core/sim/simulator.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace hetplan {

struct StageMapCell {
    int gpu = 0;
    int row = 0, column = 0; // node index, local GPU index
    // Flattened stage index (pipelines) or the index of the micro-batch size among the plan's sizes
    // (ZeRO); -1 = the plan does not use this GPU.
    int colourKey = -1;
    QStringList lines;   // cell text, most important first; the device type last
    QString toolTip;     // HTML
    double used = -1;    // simulated peak memory in bytes (-1: none)
    double capacity = 0; // the device's memory in bytes (0: unknown)
    QString memoryText;  // "9.1/16 GiB"
    bool overCapacity() const { return capacity > 0 && used > capacity; }
};

struct StageMapLegendEntry {
    QString name; // "stage 1 [4,8)", "P1 stage 0 [0,6)", "micro-batch 4"
    int colourKey = 0;
};

struct StageMapLayout {
    bool zero = false;               // colour keys are ZeRO batch sizes, not stages
    int rows = 0, columns = 0;       // nodes, most GPUs on a node
    std::vector<StageMapCell> cells; // one per GPU, in dense order
    std::vector<StageMapLegendEntry> legend;
    std::vector<QString> rowLabels;    // per node: "name (type)"
    std::vector<QString> columnLabels; // "GPU 0", "GPU 1", ...
    int overCapacity = 0;              // cells whose peak exceeds the capacity
    bool anyUnused = false;
    QString colourMeaning; // "colour = pipeline stage", "ZeRO-2, colour = micro-batch size"
};

StageMapLayout layoutStageMap(const Plan& plan, const SimResult& result);

} // namespace hetplan
