#pragma once
// What the Gantt chart shows for a plan, apart from how it is drawn: its rows (one per GPU, in groups with a
// background band each), their labels and geometry, the bars of the timeline events, the time axis and the
// hover text of an event. Plain data: no widget, no QCustomPlot; GanttView draws it.
//
// Row order: pipelines, their stages, each stage's GPUs (replica-major); then a ZeRO plan's GPUs in plan
// order; then GPUs with events that no part of the plan names (e.g. SPMD plans), in index order. Each row
// is a compute track with a thinner communication track below it.
//
// Large clusters: a group's replicas (a stage's data-parallel copies, a ZeRO plan's or an SPMD plan's
// GPUs) whose timelines are equal and whose devices match are drawn once, labelled "× N"; a group can show
// them one by one instead, or collapse to one summary row (its first row). Which groups do what is
// GanttLayoutOptions, keyed by GanttGroupLayout::key.
#include "core/model/plan.h"
#include "core/sim/simulator.h"

#include <QString>

#include <set>
#include <vector>

namespace hetplan {

// Row geometry in value-axis units (the value axis is reversed: rows run downwards).
namespace ganttgeom {
constexpr double computeHeight = 1.0;
constexpr double trackGap = 0.04; // between a compute track and its communication track
constexpr double commHeight = 0.42;
constexpr double gpuGap = 0.22;   // between the rows of one group
constexpr double groupGap = 0.34; // between groups
constexpr double bandPad = 0.12;  // a group's band reaches this far beyond its rows
} // namespace ganttgeom

struct GanttRowLayout {
    int gpu = 0;
    QString label;  // "s1 r0 · v100-0/2 (V100)", "P1 s0 · …", "t4-0/1 (T4) · mbs 4"
    double top = 0; // the compute track's top
    int copies = 1; // replicas this row stands for ("× N")
    double commTop() const { return top + ganttgeom::computeHeight + ganttgeom::trackGap; }
};

struct GanttGroupLayout { // a pipeline stage, the ZeRO GPUs, or the GPUs no part of the plan names
    QString key;   // "P0 s1", "zero", "other": the same for every layout of one plan
    QString title; // "stage 1 · 16 replicas, 2 distinct"
    int replicas = 0;         // replicas (single GPUs for ZeRO and SPMD) the group holds
    int distinctReplicas = 0; // of them, with timelines and devices that differ
    bool merged = false;      // identical replicas drawn once
    bool collapsed = false;   // drawn as one summary row
    int hiddenRows = 0;       // rows left out by merging and collapsing
    std::vector<GanttRowLayout> rows;
    double bandTop = 0, bandBottom = 0;
    bool canMerge() const { return distinctReplicas < replicas; }
};

struct GanttLayoutOptions {
    bool mergeIdentical = true;  // draw identical replicas once ("× N")
    std::set<QString> separated; // group keys whose identical replicas are drawn one by one anyway
    std::set<QString> collapsed; // group keys drawn as one summary row
    bool criticalPath = false;   // mark the events on the critical path (GanttBarLayout::critical)
};

struct GanttBarLayout {
    double start = 0, end = 0; // time-axis units
    int track = 0;             // 2k: compute track of row k; 2k+1: its communication track
    int event = 0;             // index into SimResult::events
    bool critical = false;     // on the critical path (only with GanttLayoutOptions::criticalPath)
};

// A stretch where a row's GPU runs nothing (core/sim/critical_path.h idleGaps); a merged row shows its
// representative's, a collapsed group its first row's.
// Where the critical path jumps from one row to another: from the end of one event to the start of the next
// (drawn as an elbow). Only between events that both have bars.
struct GanttLinkLayout {
    double from = 0, to = 0; // time-axis units
    int fromTrack = 0, toTrack = 0;
};

struct GanttGapLayout {
    double start = 0, end = 0; // time-axis units
    int track = 0;             // the row's compute track (2k)
};

// Which kinds of events occur, so the legend names only those.
struct GanttLegendNeeds {
    bool recompute = false, optimizer = false, send = false, collective = false;
    bool microBatches = false; // compute is per micro-batch (pipelines, ZeRO), not per op group (SPMD)
};

struct GanttLayout {
    std::vector<GanttGroupLayout> groups;
    std::vector<GanttBarLayout> bars;
    std::vector<GanttGapLayout> gaps;
    int criticalBars = 0; // bars marked critical
    std::vector<GanttLinkLayout> criticalLinks;
    double valueEnd = 0; // bottom of the last row
    QString timeUnit = QStringLiteral("ms");
    double timeScale = 1e3; // seconds → time-axis units
    double span = 0;        // end of the iteration (or of the last event) in axis units
    GanttLegendNeeds legend;
    QString kind; // "ZeRO-2", "3 stages", "SPMD, 273 instructions", "" (for the subtitle)
    int virtualStages = 1; // interleaved 1F1B: model chunks per stage (hover texts name the chunk)
    // For hover texts.
    std::vector<QString> gpuText;   // per GPU: "node/i (type)"
    std::vector<QString> stageText; // per flattened stage: "stage 2 · layers [7,14)"
    std::vector<int> stageBase;     // first flattened stage index per pipeline

    std::vector<const GanttRowLayout*> rows() const; // all rows, top to bottom
};

GanttLayout layoutGantt(const Plan& plan, const SimResult& result, const GanttLayoutOptions& options = {});

// The hover text of one event (HTML: a bold head line, then stage, GPU and times).
QString ganttEventText(const GanttLayout& layout, const TimelineEvent& e);

} // namespace hetplan
