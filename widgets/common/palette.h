#pragma once
// Colours shared by every view, chosen to stay distinguishable for colour-blind readers: Okabe–Ito for
// pipeline stages (few, must be told apart at a glance) and Tableau 10 for micro-batches and series
// (a longer cycle). Neutral greys for communication, unused GPUs and backgrounds.
#include <QBrush>
#include <QColor>
#include <QIcon>

#include <string>

namespace hetplan::palette {

// Okabe & Ito (2008) without black: orange, sky blue, bluish green, yellow, blue, vermillion,
// reddish purple, grey. Cycles.
QColor okabeIto(int i);
// Tableau 10 (Tableau's 2016 default). Cycles.
QColor tableau10(int i);

QColor stageColor(int stage);           // Okabe–Ito, then darker, then lighter (24 before a repeat)
QColor microBatchColor(int microBatch); // Tableau 10
QColor seriesColor(int series);         // Tableau 10 (device types, series that are not planners)
// One colour per planner wherever planners are drawn (What-if lines and bars, the Run tab's lists, the
// project tree's swatches): fixed per planner name, so a planner keeps its colour whatever else ran
// beside it.
QColor plannerColor(const std::string& planner);
// A small square of plannerColor() for item views' decoration role.
QIcon plannerIcon(const std::string& planner);

// Mixes `c` towards white by `amount` (0 = unchanged, 1 = white).
QColor tint(const QColor& c, double amount);
// Mixes `c` towards black by `amount`.
QColor shade(const QColor& c, double amount);
// Black or white, whichever reads better on `background`.
QColor textOn(const QColor& background);

QColor unusedGpu();     // cells of GPUs a plan leaves idle
QColor overCapacity();  // memory above the device's capacity
QColor memoryOk();      // memory bar within capacity
QColor communication(); // p2p sends
QColor collective();    // all-reduce, all-gather, ...
QColor optimizer();     // optimizer step
QColor bandA();         // alternating row-group background (the other band is the view's own)
QColor gridLine();
QColor placeholderText();

// The hatch used for communication boxes (drawn over their fill).
Qt::BrushStyle communicationPattern();
Qt::BrushStyle collectivePattern();
Qt::BrushStyle recomputePattern();
// Backward compute boxes: a hatch over the full colour, so forward and backward of one micro-batch differ
// by pattern as well as lightness (and the hatch runs the other way from recompute's).
Qt::BrushStyle backwardPattern();

} // namespace hetplan::palette
