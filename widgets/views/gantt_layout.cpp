#include "gantt_layout.h"

#include "view_util.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace hetplan {

namespace {

// The texts are the Gantt view's own (one translation context).
QString ganttText(const char* s) { return QCoreApplication::translate("GanttView", s); }

struct Group {
    std::vector<int> gpus;
    std::vector<QString> labels;
    void add(int gpu, const QString& label)
    {
        gpus.push_back(gpu);
        labels.push_back(label);
    }
};

// GPU indices a plan may name; `placed` keeps a GPU in the first group that names it.
struct Placement {
    std::vector<char> placed;
    bool take(int gpu)
    {
        if (gpu < 0 || gpu >= int(placed.size()) || placed[gpu])
            return false;
        placed[gpu] = 1;
        return true;
    }
};

std::vector<QString> gpuTexts(const Cluster& cluster)
{
    const auto types = viewutil::deviceTypes(cluster);
    std::vector<QString> out(size_t(cluster.gpuCount()));
    for (int g = 0; g < int(out.size()); ++g)
        out[g] = viewutil::withDevice(cluster.gpuName(g), cluster.nodeOf(g).deviceType, types);
    return out;
}

// One group per stage; fills the layout's stage texts on the way.
void addPipelineGroups(const Plan& plan, GanttLayout& layout, Placement& placement, std::vector<Group>& groups)
{
    const bool manyPipelines = plan.pipelines.size() > 1;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        layout.stageBase.push_back(int(layout.stageText.size()));
        for (size_t s = 0; s < pl.stages.size(); ++s) {
            const Stage& st = pl.stages[s];
            layout.stageText.push_back(
                ganttText("stage %1 · layers [%2,%3)").arg(s).arg(st.firstLayer).arg(st.endLayer));
            const int perReplica = std::max(1, st.tensorParallel * st.dataParallel);
            Group g;
            for (size_t i = 0; i < st.gpus.size(); ++i) {
                if (!placement.take(st.gpus[i]))
                    continue;
                QString label = QStringLiteral("s%1").arg(s);
                if (pl.replicas > 1)
                    label += QStringLiteral(" r%1").arg(int(i) / perReplica);
                if (manyPipelines)
                    label = QStringLiteral("P%1 ").arg(p) + label;
                g.add(st.gpus[i], label + QStringLiteral(" · ") + layout.gpuText[st.gpus[i]]);
            }
            if (!g.gpus.empty())
                groups.push_back(std::move(g));
        }
    }
}

void addZeroGroup(const Plan& plan, const GanttLayout& layout, Placement& placement, std::vector<Group>& groups)
{
    if (!plan.zero)
        return;
    Group g;
    for (const ZeroGpu& z : plan.zero->gpus)
        if (placement.take(z.gpu))
            g.add(z.gpu, layout.gpuText[z.gpu] + QStringLiteral(" · mbs %1").arg(z.microBatchSize));
    if (!g.gpus.empty())
        groups.push_back(std::move(g));
}

// GPUs with events that no part of the plan names (SPMD programs), in index order.
void addUnnamedGroup(const SimResult& result, const GanttLayout& layout, Placement& placement,
                     std::vector<Group>& groups)
{
    std::vector<char> hasEvents(placement.placed.size(), 0);
    for (const TimelineEvent& e : result.events)
        if (e.gpu >= 0 && e.gpu < int(hasEvents.size()))
            hasEvents[e.gpu] = 1;
    Group g;
    for (int gpu = 0; gpu < int(hasEvents.size()); ++gpu)
        if (hasEvents[gpu] && placement.take(gpu))
            g.add(gpu, layout.gpuText[gpu]);
    if (!g.gpus.empty())
        groups.push_back(std::move(g));
}

void placeRows(const std::vector<Group>& groups, GanttLayout& layout)
{
    using namespace ganttgeom;
    double y = 0;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        if (gi > 0)
            y += groupGap;
        GanttGroupLayout out;
        out.bandTop = y - bandPad;
        for (size_t k = 0; k < groups[gi].gpus.size(); ++k) {
            if (k > 0)
                y += gpuGap;
            out.rows.push_back({groups[gi].gpus[k], groups[gi].labels[k], y});
            y += computeHeight + trackGap + commHeight;
        }
        out.bandBottom = y + bandPad;
        layout.groups.push_back(std::move(out));
    }
    layout.valueEnd = y;
}

void placeBars(const SimResult& result, GanttLayout& layout)
{
    std::vector<int> computeTrack(layout.gpuText.size(), -1);
    int k = 0;
    for (const GanttRowLayout* row : layout.rows())
        computeTrack[row->gpu] = 2 * k++;
    double end = result.iterationSeconds;
    for (const TimelineEvent& e : result.events)
        end = std::max(end, e.end);
    const viewutil::TimeUnit unit = viewutil::timeUnitFor(end);
    layout.timeUnit = unit.name;
    layout.timeScale = unit.scale;
    layout.span = end * unit.scale;
    layout.bars.reserve(result.events.size());
    for (size_t i = 0; i < result.events.size(); ++i) {
        const TimelineEvent& e = result.events[i];
        if (e.gpu < 0 || e.gpu >= int(computeTrack.size()) || computeTrack[e.gpu] < 0)
            continue;
        const int track = computeTrack[e.gpu] + (isCommunication(e.kind) ? 1 : 0);
        layout.bars.push_back({e.start * unit.scale, e.end * unit.scale, track, int(i)});
    }
}

GanttLegendNeeds legendNeeds(const std::vector<TimelineEvent>& events)
{
    GanttLegendNeeds n;
    for (const TimelineEvent& e : events) {
        const bool send = e.kind == EventKind::SendActivation || e.kind == EventKind::SendGradient;
        n.recompute |= e.kind == EventKind::Recompute;
        n.optimizer |= e.kind == EventKind::Optimizer;
        n.send |= send;
        n.collective |= isCommunication(e.kind) && !send;
        n.microBatches |= !isCommunication(e.kind) && e.microBatch >= 0;
    }
    return n;
}

QString kindText(const Plan& plan)
{
    if (plan.zero)
        return ganttText("ZeRO-%1").arg(plan.zero->stage);
    if (plan.spmd)
        return ganttText("SPMD, %1 instructions").arg(plan.spmd->program.size());
    if (plan.pipelines.empty())
        return {};
    const size_t stages = plan.pipelines[0].stages.size();
    return stages == 1 ? ganttText("1 stage") : ganttText("%1 stages").arg(stages);
}

} // namespace

std::vector<const GanttRowLayout*> GanttLayout::rows() const
{
    std::vector<const GanttRowLayout*> out;
    for (const GanttGroupLayout& g : groups)
        for (const GanttRowLayout& r : g.rows)
            out.push_back(&r);
    return out;
}

GanttLayout layoutGantt(const Plan& plan, const SimResult& result)
{
    GanttLayout layout;
    layout.gpuText = gpuTexts(plan.cluster);
    Placement placement{std::vector<char>(layout.gpuText.size(), 0)};
    std::vector<Group> groups;
    addPipelineGroups(plan, layout, placement, groups);
    addZeroGroup(plan, layout, placement, groups);
    addUnnamedGroup(result, layout, placement, groups);
    placeRows(groups, layout);
    placeBars(result, layout);
    layout.legend = legendNeeds(result.events);
    layout.kind = kindText(plan);
    return layout;
}

QString ganttEventText(const GanttLayout& layout, const TimelineEvent& e)
{
    QString head = QString::fromStdString(toString(e.kind));
    if (e.microBatch >= 0)
        head += ganttText(" · micro-batch %1").arg(e.microBatch);
    QStringList lines{QStringLiteral("<b>%1</b>").arg(head)};
    const auto& base = layout.stageBase;
    const int flat = e.pipeline >= 0 && e.pipeline < int(base.size()) ? base[e.pipeline] + e.stage : -1;
    if (flat >= 0 && flat < int(layout.stageText.size())) {
        QString where = layout.stageText[flat];
        if (base.size() > 1)
            where = ganttText("pipeline %1 · ").arg(e.pipeline) + where;
        where += ganttText(" · replica %1").arg(e.replica);
        lines << where;
    }
    if (e.gpu >= 0 && e.gpu < int(layout.gpuText.size()))
        lines << ganttText("GPU %1").arg(layout.gpuText[e.gpu]);
    lines << ganttText("start %1 · duration %2")
                 .arg(viewutil::formatDuration(e.start), viewutil::formatDuration(e.end - e.start));
    return lines.join(QStringLiteral("<br>"));
}

} // namespace hetplan
