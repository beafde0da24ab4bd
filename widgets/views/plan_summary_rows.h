#pragma once
// The plan summary as rows of text for the Plan details tab and the two-plan comparison (plain data, no
// widget): one row per quantity, and two summaries side by side with their differences marked.
#include "core/model/plan.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace hetplan {

struct SummaryRow {
    QString label, value;
    double number = 0;    // the value as a number where it has one (for ratios)
    bool hasRatio = false; // a time or rate: two plans' rows show their ratio
};

// The plan's summary, or, for a plan written before summaries existed, one computed from the inputs it
// carries; nothing when those cannot be simulated.
std::optional<PlanSummary> summaryOfPlan(const Plan& plan);

// Iteration time, tokens/s, MFU, degrees, micro-batches, layer split, bubble, each GPU type's time and
// memory, and the bottleneck, in that order; then the cost per hour and per million tokens when the plan has
// one (every GPU it uses has a price).
// `costUnknownBecause` (core/model/pricing.h's costUnknownReason) fills a "Cost: unknown" row when `cost` is empty.
std::vector<SummaryRow> summaryRows(const PlanSummary& s, const std::optional<PlanCost>& cost = std::nullopt,
                                    const QString& costUnknownBecause = {});

struct ComparedRow {
    QString label, left, right; // "—" where one plan has no such row (a GPU type it does not use)
    QString ratio;              // "×1.50" (right / left) for times and rates, else empty
    bool differs = false;
};

// Whether two values of one row differ enough to mark: other words, or a number more than 5 % apart.
bool differsNoticeably(const QString& left, const QString& right);

// Rows of both summaries matched by label: the left plan's order, then rows only the right one has.
std::vector<ComparedRow> compareSummaries(const PlanSummary& left, const PlanSummary& right,
                                         const std::optional<PlanCost>& leftCost = std::nullopt,
                                         const std::optional<PlanCost>& rightCost = std::nullopt);

} // namespace hetplan
