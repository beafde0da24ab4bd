#include "gantt_layout.h"

#include "view_util.h"

#include "core/sim/critical_path.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {

// The texts are the Gantt view's own (one translation context).
QString ganttText(const char* s) { return QCoreApplication::translate("GanttView", s); }

// One replica of a group: its GPUs and, per GPU, the label around the "× N" mark ("s1 r0", " · gpu").
struct Replica {
    std::vector<int> gpus;
    std::vector<QString> heads, tails;
    QString signature; // devices and role; replicas are identical only if these match
};

struct Group {
    QString key, name; // name: "stage 1", "ZeRO GPUs", "GPUs"
    std::vector<Replica> replicas;
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

// One group per stage, one replica per data-parallel copy; fills the layout's stage texts on the way.
void addPipelineGroups(const Plan& plan, GanttLayout& layout, Placement& placement, std::vector<Group>& groups)
{
    const bool manyPipelines = plan.pipelines.size() > 1;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline& pl = plan.pipelines[p];
        layout.stageBase.push_back(int(layout.stageText.size()));
        for (size_t s = 0; s < pl.stages.size(); ++s) {
            const Stage& st = pl.stages[s];
            layout.stageText.push_back(ganttText("stage %1 · layers %2")
                                           .arg(s)
                                           .arg(QString::fromStdString(pl.stageLayersText(plan.model, int(s)))));
            const int perReplica = std::max(1, st.tensorParallel * st.dataParallel);
            const QString pipelinePrefix = manyPipelines ? QStringLiteral("P%1 ").arg(p) : QString();
            Group g{pipelinePrefix + QStringLiteral("s%1").arg(s), pipelinePrefix + ganttText("stage %1").arg(s), {}};
            for (size_t i = 0; i < st.gpus.size(); ++i) {
                const int replica = int(i) / perReplica;
                if (int(i) % perReplica == 0 || g.replicas.empty())
                    g.replicas.emplace_back();
                if (!placement.take(st.gpus[i]))
                    continue;
                QString head = pipelinePrefix + QStringLiteral("s%1").arg(s);
                if (pl.replicas > 1)
                    head += QStringLiteral(" r%1").arg(replica);
                Replica& r = g.replicas.back();
                r.gpus.push_back(st.gpus[i]);
                r.heads.push_back(head);
                r.tails.push_back(QStringLiteral(" · ") + layout.gpuText[st.gpus[i]]);
                r.signature += QString::fromStdString(plan.cluster.nodeOf(st.gpus[i]).deviceType) + QLatin1Char(';');
            }
            groups.push_back(std::move(g));
        }
    }
}

void addZeroGroup(const Plan& plan, const GanttLayout& layout, Placement& placement, std::vector<Group>& groups)
{
    if (!plan.zero)
        return;
    Group g{QStringLiteral("zero"), ganttText("ZeRO GPUs"), {}};
    for (const ZeroGpu& z : plan.zero->gpus) {
        if (!placement.take(z.gpu))
            continue;
        const QString role = QStringLiteral("%1;%2;%3;%4")
                                 .arg(QString::fromStdString(plan.cluster.nodeOf(z.gpu).deviceType))
                                 .arg(z.microBatchSize)
                                 .arg(z.accumulationSteps)
                                 .arg(z.lastMicroBatchSize);
        g.replicas.push_back({{z.gpu}, {layout.gpuText[z.gpu] + QStringLiteral(" · mbs %1").arg(z.microBatchSize)},
                              {QString()}, role});
    }
    groups.push_back(std::move(g));
}

// GPUs with events that no part of the plan names (SPMD programs), in index order.
void addUnnamedGroup(const Plan& plan, const SimResult& result, const GanttLayout& layout, Placement& placement,
                     std::vector<Group>& groups)
{
    std::vector<char> hasEvents(placement.placed.size(), 0);
    for (const TimelineEvent& e : result.events)
        if (e.gpu >= 0 && e.gpu < int(hasEvents.size()))
            hasEvents[e.gpu] = 1;
    Group g{QStringLiteral("other"), ganttText("GPUs"), {}};
    for (int gpu = 0; gpu < int(hasEvents.size()); ++gpu)
        if (hasEvents[gpu] && placement.take(gpu))
            g.replicas.push_back({{gpu},
                                  {layout.gpuText[gpu]},
                                  {QString()},
                                  QString::fromStdString(plan.cluster.nodeOf(gpu).deviceType)});
    groups.push_back(std::move(g));
}

// Timelines per GPU, to tell identical replicas apart from merely similar ones.
struct Timelines {
    std::vector<std::vector<const TimelineEvent*>> ofGpu;
    double tolerance = 0; // seconds: a millionth of the iteration is rounding, not a different schedule

    Timelines(const SimResult& result, int gpus) : ofGpu(size_t(std::max(gpus, 0)))
    {
        double end = result.iterationSeconds;
        for (const TimelineEvent& e : result.events) {
            if (e.gpu >= 0 && e.gpu < gpus)
                ofGpu[e.gpu].push_back(&e);
            end = std::max(end, e.end);
        }
        tolerance = 1e-6 * end;
    }
    bool equal(int a, int b) const
    {
        const auto &x = ofGpu[a], &y = ofGpu[b];
        if (x.size() != y.size())
            return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (x[i]->kind != y[i]->kind || x[i]->microBatch != y[i]->microBatch ||
                std::abs(x[i]->start - y[i]->start) > tolerance || std::abs(x[i]->end - y[i]->end) > tolerance)
                return false;
        return true;
    }
    bool equal(const Replica& a, const Replica& b) const
    {
        if (a.signature != b.signature || a.gpus.size() != b.gpus.size())
            return false;
        for (size_t k = 0; k < a.gpus.size(); ++k)
            if (!equal(a.gpus[k], b.gpus[k]))
                return false;
        return true;
    }
};

// The group's replicas as classes of identical ones (each class: indices into replicas, first = drawn).
std::vector<std::vector<int>> identicalClasses(const Group& g, const Timelines& timelines)
{
    std::vector<std::vector<int>> classes;
    for (int i = 0; i < int(g.replicas.size()); ++i) {
        if (g.replicas[i].gpus.empty())
            continue;
        auto same = std::find_if(classes.begin(), classes.end(), [&](const std::vector<int>& c) {
            return timelines.equal(g.replicas[c.front()], g.replicas[i]);
        });
        if (same == classes.end())
            classes.push_back({i});
        else
            same->push_back(i);
    }
    return classes;
}

struct LabelledRow {
    int gpu;
    QString label;
    int copies;
};

// The rows a group shows: every replica's, or one replica per class with "× N"; a collapsed group keeps
// only its first row.
std::vector<LabelledRow> groupRows(const Group& g, const std::vector<std::vector<int>>& classes, bool merge,
                                   bool collapse)
{
    std::vector<LabelledRow> rows;
    const auto add = [&](const Replica& r, int copies) {
        const QString times = copies > 1 ? QStringLiteral(" × %1").arg(copies) : QString();
        for (size_t k = 0; k < r.gpus.size(); ++k)
            rows.push_back({r.gpus[k], r.heads[k] + times + r.tails[k], copies});
    };
    if (merge) {
        for (const std::vector<int>& c : classes)
            add(g.replicas[size_t(c.front())], int(c.size()));
    } else {
        for (const Replica& r : g.replicas) // in plan order
            add(r, 1);
    }
    if (collapse && rows.size() > 1) {
        rows.front().label += ganttText(" (+%1 rows)").arg(rows.size() - 1);
        rows.resize(1);
    }
    return rows;
}

QString groupTitle(const Group& g, int replicas, int distinct)
{
    if (replicas <= 1)
        return g.name;
    return ganttText("%1 · %2 replicas, %3 distinct").arg(g.name).arg(replicas).arg(distinct);
}

void placeRows(const std::vector<Group>& groups, const SimResult& result, const GanttLayoutOptions& options,
               GanttLayout& layout)
{
    using namespace ganttgeom;
    const Timelines timelines(result, int(layout.gpuText.size()));
    double y = 0;
    for (const Group& group : groups) {
        const auto classes = identicalClasses(group, timelines);
        if (classes.empty())
            continue;
        GanttGroupLayout out;
        out.key = group.key;
        for (const auto& c : classes)
            out.replicas += int(c.size());
        out.distinctReplicas = int(classes.size());
        out.title = groupTitle(group, out.replicas, out.distinctReplicas);
        out.merged = options.mergeIdentical && out.canMerge() && !options.separated.count(group.key);
        const auto all = groupRows(group, classes, false, false);
        const auto rows = groupRows(group, classes, out.merged, options.collapsed.count(group.key) > 0);
        out.collapsed = options.collapsed.count(group.key) > 0 && rows.size() < all.size() && rows.size() == 1;
        out.hiddenRows = int(all.size() - rows.size());
        if (!layout.groups.empty())
            y += groupGap;
        out.bandTop = y - bandPad;
        for (size_t k = 0; k < rows.size(); ++k) {
            if (k > 0)
                y += gpuGap;
            out.rows.push_back({rows[k].gpu, rows[k].label, y, rows[k].copies});
            y += computeHeight + trackGap + commHeight;
        }
        out.bandBottom = y + bandPad;
        layout.groups.push_back(std::move(out));
    }
    layout.valueEnd = y;
}

// Each shown row's idle gaps on its compute track.
void placeGaps(const SimResult& result, GanttLayout& layout)
{
    const auto gaps = idleGaps(result);
    int k = 0;
    for (const GanttRowLayout* row : layout.rows()) {
        const auto it = gaps.find(row->gpu);
        if (it != gaps.end())
            for (const IdleGap& g : it->second)
                layout.gaps.push_back({g.start * layout.timeScale, g.end * layout.timeScale, 2 * k});
        ++k;
    }
}

void markCriticalBars(const SimResult& result, GanttLayout& layout)
{
    const CriticalPath path = criticalPath(result);
    std::vector<int> barOf(result.events.size(), -1);
    for (size_t i = 0; i < layout.bars.size(); ++i) {
        GanttBarLayout& bar = layout.bars[i];
        bar.critical = path.onPath[size_t(bar.event)] != 0;
        layout.criticalBars += bar.critical ? 1 : 0;
        barOf[size_t(bar.event)] = int(i);
    }
    for (size_t k = 1; k < path.chain.size(); ++k) {
        const int a = barOf[size_t(path.chain[k - 1])], b = barOf[size_t(path.chain[k])];
        if (a >= 0 && b >= 0 && layout.bars[a].track / 2 != layout.bars[b].track / 2) // between rows
            layout.criticalLinks.push_back(
                {layout.bars[a].end, layout.bars[b].start, layout.bars[a].track, layout.bars[b].track});
    }
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
    const Pipeline& pl = plan.pipelines[0];
    const size_t stages = pl.stages.size();
    QString text = stages == 1 ? ganttText("1 stage") : ganttText("%1 stages").arg(stages);
    if (pl.virtualStages > 1)
        text += ganttText(", %1 chunks each (interleaved 1F1B)").arg(pl.virtualStages);
    if (pl.contextParallel > 1)
        text += ganttText(", context parallel %1").arg(pl.contextParallel);
    if (pl.expertParallel > 1)
        text += ganttText(", expert parallel %1").arg(pl.expertParallel);
    return text;
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

GanttLayout layoutGantt(const Plan& plan, const SimResult& result, const GanttLayoutOptions& options)
{
    GanttLayout layout;
    layout.gpuText = gpuTexts(plan.cluster);
    Placement placement{std::vector<char>(layout.gpuText.size(), 0)};
    std::vector<Group> groups;
    addPipelineGroups(plan, layout, placement, groups);
    addZeroGroup(plan, layout, placement, groups);
    addUnnamedGroup(plan, result, layout, placement, groups);
    placeRows(groups, result, options, layout);
    placeBars(result, layout);
    placeGaps(result, layout);
    if (options.criticalPath)
        markCriticalBars(result, layout);
    layout.legend = legendNeeds(result.events);
    layout.kind = kindText(plan);
    for (const Pipeline& pl : plan.pipelines)
        layout.virtualStages = std::max(layout.virtualStages, pl.virtualStages);
    return layout;
}

QString ganttEventText(const GanttLayout& layout, const TimelineEvent& e)
{
    QString head = QString::fromStdString(toString(e.kind));
    if (e.microBatch >= 0)
        head += ganttText(" · micro-batch %1").arg(e.microBatch);
    if (layout.virtualStages > 1 && e.microBatch >= 0)
        head += ganttText(" · chunk %1 of %2").arg(e.chunk).arg(layout.virtualStages);
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
