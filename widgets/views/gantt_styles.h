#pragma once
// How the Gantt chart paints each kind of event: colour = micro-batch (Tableau 10, cycling); forward a light
// tint with a thin outline, backward the full colour hatched (so the two differ by pattern too, not only by
// lightness); recompute a paler tint hatched the other way; communication grey and hatched.
#include "gantt_plottable.h"

#include "core/sim/simulator.h"

#include <vector>

namespace hetplan::ganttstyle {

constexpr int kColours = 10; // micro-batch colours before they repeat
// Style table: 3 per micro-batch colour (forward, backward, recompute), then the neutrals.
enum Neutral { kOptimizer = 3 * kColours, kSend, kCollective, kForwardNoBatch, kBackwardNoBatch, kStyleCount };

std::vector<GanttStyle> styles(); // indexed by styleOf()
int styleOf(const TimelineEvent& e);
GanttStyle idleStyle(); // a GPU's idle gaps: a light grey hatch, no outline

} // namespace hetplan::ganttstyle
