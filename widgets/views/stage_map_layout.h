#pragma once
// What the stage map shows for a plan, apart from how it is drawn: a grid of nodes (rows) × local GPUs
// (columns) with one cell per GPU saying what the plan puts there (pipeline stage, or a ZeRO plan's batch),
// its peak memory against the device's capacity, and the legend. Plain data: no widget, no QCustomPlot;
// StageMapView draws it.
//
// From kNodeTilesFrom GPUs on, a grid of nodes × GPUs has cells too small to read; the map then
// aggregates by node: one tile per node (tiles in a near-square grid), the node's GPUs as a small grid of
// coloured squares inside, its name on top and the full names and roles in the tile's tooltip.
#include "core/model/plan.h"
#include "core/sim/simulator.h"

#include <QRectF>
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

struct StageMapNodeTile {
    int node = 0;
    int row = 0, column = 0; // position in the grid of tiles
    QString label;           // the node's name, drawn on the tile (elided when it does not fit)
    QString device;          // short device type ("A100"), drawn at the header's right in mixed clusters
    QString toolTip;         // HTML: full node name and device type, GPU count, what each role holds, memory
    std::vector<int> cells;  // indices into StageMapLayout::cells, in local GPU order
};

// Tile geometry in tile units (a tile is 1 × 1): a header strip for the label, then the GPU squares.
namespace tilegeom {
constexpr double inset = 0.05;  // gap around a tile
constexpr double header = 0.24; // label strip at the tile's top
constexpr double gap = 0.12;    // between GPU squares, as a fraction of a square's slot
} // namespace tilegeom

constexpr int kNodeTilesFrom = 256; // GPUs

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

    // Large clusters (byNode): tiles instead of rows × columns of cells.
    bool byNode = false;
    bool mixedDevices = false; // more than one device type: tiles name theirs
    int tileRows = 0, tileColumns = 0;
    int innerRows = 0, innerColumns = 0; // GPU squares inside each tile
    std::vector<StageMapNodeTile> tiles;
    // Where GPU square `slot` (local index) of tile `t` lies, and the tile's own rectangle, in plot units.
    QRectF tileRect(const StageMapNodeTile& t) const;
    QRectF gpuRect(const StageMapNodeTile& t, int slot) const;
};

// `nodeTilesFrom`: GPU count from which the map aggregates by node.
StageMapLayout layoutStageMap(const Plan& plan, const SimResult& result, int nodeTilesFrom = kNodeTilesFrom);

} // namespace hetplan
