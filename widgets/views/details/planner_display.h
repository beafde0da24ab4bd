#pragma once
// What the plan views draw of a planner's own section of a plan (Plan::details[section]). A planner whose
// section deserves more than the generic tree of values gets a PlannerDisplay: one file in this folder
// and one entry in planner_display.cpp. The generic views (Plan details, Comparison, Batch → speed) look
// the section up here and never test planner names.
#include "widgets/views/plan_details_layout.h"

#include "core/model/plan.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// Marks the comparison view adds for one plan: a throughput bound (dashed) and a baseline (dotted), both
// as cluster tokens/s with their legend texts, and the MFU (HetHub's eq. 3 bound, uniform split, eq. 4).
struct ComparisonMarks {
    std::optional<double> upperBoundTokens, uniformSplitTokens, mfu;
    QString upperBoundLegend, uniformSplitLegend;
};

// A curve a planner measured and fitted itself, drawn instead of the cost model's (Poplar's splines through
// the sizes it profiled).
struct PlannerCurve {
    std::string device;
    bool measured = false; // the plan's profile has measured tables for this device
    std::vector<double> sizes, samplesPerSecond;         // the profiled points, sizes ascending
    std::vector<double> lineSizes, lineSamplesPerSecond; // the planner's fitted line
    std::vector<double> outOfMemory;                     // sizes found not to fit
    int largestFitting = 0;                              // the largest size that fits (0: not known)
    struct Chosen {
        int microBatch = 0;
        double samplesPerSecond = 0;
        int gpus = 0;
    };
    std::vector<Chosen> chosen; // the plan's micro-batch sizes on this device
};

struct PlannerCurves {
    QString title, subtitle;
    std::vector<PlannerCurve> curves;
};

struct PlannerDisplay {
    std::string section; // the key of Plan::details (the planner's name)
    // Each may be empty: the generic tree, no marks, the cost model's curves.
    std::function<DetailsSection(const QJsonObject&, const Plan&)> details;
    std::function<ComparisonMarks(const QJsonObject&, const Plan&)> comparison;
    std::function<std::optional<PlannerCurves>(const QJsonObject&, const Plan&)> curves; // nullopt: malformed
};

// The display registered for `section`, or nullptr.
const PlannerDisplay* plannerDisplay(const std::string& section);
std::vector<std::string> plannerDisplaySections(); // registration order

namespace details {
// One per file in this folder.
PlannerDisplay dittoDisplay();
PlannerDisplay oobleckDisplay();
PlannerDisplay hethubDisplay();
PlannerDisplay hapDisplay();
PlannerDisplay poplarDisplay();
PlannerDisplay metisDisplay();
PlannerDisplay selectionDisplay(); // not a planner's: the GPU selection any plan may carry
PlannerDisplay megatronSpaceDisplay(); // not a planner's: Megatron's options a pipeline plan may carry
} // namespace details

} // namespace hetplan
