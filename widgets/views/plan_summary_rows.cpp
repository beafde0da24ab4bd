#include "plan_summary_rows.h"

#include "plan_details_format.h"
#include "view_util.h"

#include "core/base/qstrings.h"
#include "core/sim/summary.h"

#include <QObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {

using details::percent; // "40.8 %", as the planner sections write shares
QString gigabytes(double bytes) { return viewutil::formatGiB(bytes) + QStringLiteral(" GiB"); } // as the stage map

// "[0,12) T4 · [12,24) A100 tp2" per pipeline; several pipelines one per line.
QString layerSplit(const PlanSummary& s)
{
    QStringList lines;
    for (const PipelineSummary& p : s.pipelines) {
        QStringList stages;
        for (const StageSummary& st : p.stages) {
            QString t = QStringLiteral("[%1,%2) %3").arg(st.firstLayer).arg(st.endLayer).arg(toQString(st.deviceType));
            if (st.tensorParallel > 1)
                t += QStringLiteral(" tp%1").arg(st.tensorParallel);
            if (st.dataParallel > 1)
                t += QStringLiteral(" dp%1").arg(st.dataParallel);
            stages << t;
        }
        lines << (p.replicas > 1 ? QStringLiteral("%1 × ").arg(p.replicas) : QString()) + stages.join(QStringLiteral(" · "));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

std::optional<PlanSummary> summaryOfPlan(const Plan& plan)
{
    if (plan.summary)
        return plan.summary;
    try {
        return summarize(plan, CostModel(plan.model, plan.job, plan.profile));
    } catch (const std::exception&) {
        return std::nullopt; // the view shows no summary; the plan itself stays shown
    }
}

std::vector<SummaryRow> summaryRows(const PlanSummary& s, const std::optional<PlanCost>& cost,
                                    const QString& costUnknownBecause)
{
    std::vector<SummaryRow> rows;
    rows.push_back({QObject::tr("Iteration time"), QString::number(s.iterationSeconds, 'g', 4) + QStringLiteral(" s"),
                    s.iterationSeconds, true});
    rows.push_back({QObject::tr("Tokens/s"), QString::number(s.tokensPerSecond, 'f', 0), s.tokensPerSecond, true});
    rows.push_back({QObject::tr("MFU"), percent(s.mfu), s.mfu, false});
    rows.push_back({QObject::tr("Degrees"), QStringLiteral("pp %1 · dp %2 · tp %3").arg(s.pp).arg(s.dp).arg(s.tp), 0,
                    false});
    if (s.microBatches > 0)
        rows.push_back({QObject::tr("Micro-batches"),
                        QObject::tr("%1 of size %2").arg(s.microBatches).arg(s.microBatchSize), 0, false});
    if (!s.pipelines.empty())
        rows.push_back({QObject::tr("Layer split"), layerSplit(s), 0, false});
    if (s.bubbleFraction)
        rows.push_back({QObject::tr("Pipeline bubble"), percent(*s.bubbleFraction), *s.bubbleFraction, false});
    for (const DeviceTypeSummary& d : s.deviceTypes) {
        const QString type = toQString(d.deviceType);
        rows.push_back({QObject::tr("%1 time (%2 GPUs)").arg(type).arg(d.gpus),
                        QObject::tr("compute %1 · communication %2 · idle %3")
                            .arg(percent(d.computeShare), percent(d.communicationShare), percent(d.idleShare)),
                        0, false});
        rows.push_back({QObject::tr("%1 memory headroom").arg(type),
                        QObject::tr("%1 (peak %2 of %3)")
                            .arg(gigabytes(d.headroomBytes), gigabytes(d.peakMemoryBytes),
                                 gigabytes(d.memoryCapacityBytes)),
                        d.headroomBytes, false});
    }
    rows.push_back({QObject::tr("Bottleneck"), toQString(s.bottleneck.text), 0, false});
    if (cost) {
        rows.push_back({QObject::tr("Cost per hour"), QStringLiteral("$%1").arg(cost->dollarsPerHour, 0, 'f', 2),
                        cost->dollarsPerHour, true});
        rows.push_back({QObject::tr("Cost per million tokens"),
                        QStringLiteral("$%1").arg(cost->dollarsPerMillionTokens, 0, 'f', 3),
                        cost->dollarsPerMillionTokens, true});
    } else if (!costUnknownBecause.isEmpty()) {
        rows.push_back({QObject::tr("Cost"), QObject::tr("unknown: %1").arg(costUnknownBecause), 0, false});
    }
    return rows;
}

bool differsNoticeably(const QString& left, const QString& right)
{
    // The same words around numbers that are within 5 % of each other read as the same quantity: two plans
    // almost always differ in the third digit, and marking every row hides the rows that matter.
    constexpr double kNoticeable = 0.05;
    static const QRegularExpression number(QStringLiteral("-?\\d+(?:\\.\\d+)?"));
    if (QString(left).replace(number, QStringLiteral("#")) != QString(right).replace(number, QStringLiteral("#")))
        return true;
    auto a = number.globalMatch(left), b = number.globalMatch(right);
    while (a.hasNext() && b.hasNext()) {
        const double x = a.next().captured().toDouble(), y = b.next().captured().toDouble();
        if (std::abs(x - y) > kNoticeable * std::max(std::abs(x), std::abs(y)))
            return true;
    }
    return false;
}

std::vector<ComparedRow> compareSummaries(const PlanSummary& left, const PlanSummary& right,
                                         const std::optional<PlanCost>& leftCost,
                                         const std::optional<PlanCost>& rightCost)
{
    const std::vector<SummaryRow> a = summaryRows(left, leftCost), b = summaryRows(right, rightCost);
    auto find = [](const std::vector<SummaryRow>& rows, const QString& label) {
        return std::find_if(rows.begin(), rows.end(), [&](const SummaryRow& r) { return r.label == label; });
    };
    const QString none = QStringLiteral("—");
    std::vector<ComparedRow> out;
    for (const SummaryRow& l : a) {
        auto r = find(b, l.label);
        ComparedRow c{l.label, l.value, r == b.end() ? none : r->value, {}, false};
        c.differs = differsNoticeably(c.left, c.right);
        if (r != b.end() && l.hasRatio && l.number > 0)
            c.ratio = QStringLiteral("×") + QString::number(r->number / l.number, 'f', 2);
        out.push_back(c);
    }
    for (const SummaryRow& r : b)
        if (find(a, r.label) == a.end())
            out.push_back({r.label, none, r.value, {}, true});
    return out;
}

} // namespace hetplan
