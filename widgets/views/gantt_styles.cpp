#include "gantt_styles.h"

#include "widgets/common/palette.h"

namespace hetplan::ganttstyle {

std::vector<GanttStyle> styles()
{
    std::vector<GanttStyle> s(kStyleCount);
    for (int c = 0; c < kColours; ++c) {
        const QColor base = palette::microBatchColor(c);
        s[3 * c + 0] = {palette::tint(base, 0.55), Qt::NoBrush, {}, palette::shade(base, 0.25), QColor(30, 30, 30)};
        s[3 * c + 1] = {base, palette::backwardPattern(), palette::shade(base, 0.35), palette::shade(base, 0.55),
                        palette::textOn(base)};
        s[3 * c + 2] = {palette::tint(base, 0.7), palette::recomputePattern(), palette::shade(base, 0.3),
                        palette::shade(base, 0.3), QColor(30, 30, 30)};
    }
    const QColor comm = palette::communication(), coll = palette::collective();
    s[kOptimizer] = {palette::optimizer(), Qt::NoBrush, {}, QColor(20, 20, 20), Qt::white};
    s[kSend] = {palette::tint(comm, 0.6), palette::communicationPattern(), palette::shade(comm, 0.2),
                palette::shade(comm, 0.3), Qt::black};
    s[kCollective] = {palette::tint(coll, 0.55), palette::collectivePattern(), coll, palette::shade(coll, 0.3),
                      Qt::black};
    s[kForwardNoBatch] = {palette::tint(comm, 0.5), Qt::NoBrush, {}, palette::shade(comm, 0.3), Qt::black};
    s[kBackwardNoBatch] = {palette::shade(comm, 0.2), palette::backwardPattern(), palette::shade(comm, 0.5),
                           palette::shade(comm, 0.5), Qt::white};
    return s;
}

GanttStyle idleStyle()
{
    return {QColor(120, 120, 120, 28), Qt::FDiagPattern, QColor(150, 150, 150), {}, {}};
}

int styleOf(const TimelineEvent& e)
{
    const int c = e.microBatch >= 0 ? e.microBatch % kColours : -1;
    switch (e.kind) {
    case EventKind::Forward: return c >= 0 ? 3 * c : kForwardNoBatch;
    case EventKind::Backward: return c >= 0 ? 3 * c + 1 : kBackwardNoBatch;
    case EventKind::Recompute: return c >= 0 ? 3 * c + 2 : kForwardNoBatch;
    case EventKind::Optimizer: return kOptimizer;
    case EventKind::SendActivation:
    case EventKind::SendGradient: return kSend;
    default: return kCollective;
    }
}

} // namespace hetplan::ganttstyle
