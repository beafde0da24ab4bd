#include "project_tree.h"

#include "widgets/common/palette.h"
#include "widgets/controller/replan_controller.h"

namespace hetplan {

namespace {
QStandardItem* makeItem(const QString& text, TreeKind kind, const QString& name = {})
{
    auto* it = new QStandardItem(text);
    it->setEditable(false);
    it->setData(int(kind), kRoleKind);
    it->setData(name, kRoleName);
    return it;
}
} // namespace

QString resultSummary(const RunResult& r)
{
    if (!r.plan)
        return QString::fromStdString(toString(r.status));
    QString s = QString::number(r.plan->estimate.iterationSeconds, 'f', 3) + " s/iter";
    if (r.plan->search.stopped != StopReason::None)
        s += r.plan->search.stopped == StopReason::Cancelled ? ", cancelled — best so far" : ", time limit — best so far";
    if (!r.plan->estimate.feasible)
        s += ", over memory";
    return s;
}

QStringList resultNames(const Run& run)
{
    // Results of one planner on different node sets (a re-plan after a node failure) are told apart by
    // their node set, as the Comparison tab labels them: "amp, 12 GPUs without g4dn-0".
    std::vector<Plan> plans;
    for (const RunResult& r : run.results)
        if (r.plan)
            plans.push_back(*r.plan);
    const QStringList sets = nodeSetLabels(plans);
    QStringList names;
    int planIndex = 0;
    for (const RunResult& r : run.results) {
        QString name = QString::fromStdString(r.planner);
        if (r.plan && !sets.isEmpty())
            name = QString(sets[planIndex]).replace(QLatin1Char('\n'), QStringLiteral(", "));
        planIndex += r.plan ? 1 : 0;
        names << name;
    }
    return names;
}

namespace {
// The dock keeps its width and long rows are elided: each row's tooltip starts with its whole text.
void addWholeTextTips(QStandardItem* parent)
{
    for (int r = 0; r < parent->rowCount(); ++r) {
        QStandardItem* it = parent->child(r);
        const QString tip = it->toolTip();
        if (!tip.startsWith(it->text()))
            it->setToolTip(tip.isEmpty() ? it->text() : it->text() + QLatin1Char('\n') + tip);
        addWholeTextTips(it);
    }
}
} // namespace

ProjectTreeModel::ProjectTreeModel(QObject* parent) : QStandardItemModel(parent)
{
    setHorizontalHeaderLabels({tr("Project")});
}

void ProjectTreeModel::rebuild(const Project& p)
{
    clear();
    setHorizontalHeaderLabels({tr("Project")});
    auto* clusters = makeItem(tr("Clusters"), TreeKind::Group);
    for (const Cluster& c : p.clusters) {
        auto* it = makeItem(QString::fromStdString(c.name) + tr(" — %1 GPUs").arg(c.gpuCount()), TreeKind::Cluster,
                            QString::fromStdString(c.name));
        it->setToolTip(QString::fromStdString(c.description));
        clusters->appendRow(it);
    }
    auto* models = makeItem(tr("Models"), TreeKind::Group);
    for (const ProjectModel& m : p.models) {
        QString text =
            QString::fromStdString(m.model.name) + tr(" — %1 M params").arg(m.model.totalParams() / 1e6, 0, 'f', 0);
        if (!m.profile.empty())
            text += tr(", measured profile");
        models->appendRow(makeItem(text, TreeKind::Model, QString::fromStdString(m.model.name)));
    }
    auto* jobs = makeItem(tr("Jobs"), TreeKind::Group);
    for (const NamedJob& j : p.jobs)
        jobs->appendRow(makeItem(QString::fromStdString(j.name) +
                                     tr(" — batch %1, seq %2").arg(j.job.globalBatchSize).arg(j.job.sequenceLength),
                                 TreeKind::Job, QString::fromStdString(j.name)));
    auto* runs = makeItem(tr("Runs"), TreeKind::Group);
    for (const Run& r : p.runs) {
        auto* run = makeItem(
            tr("Run %1 — %2 · %3").arg(r.id).arg(QString::fromStdString(r.cluster), QString::fromStdString(r.model)),
            TreeKind::Run);
        run->setData(r.id, kRoleRun);
        run->setToolTip(QString::fromStdString(r.started));
        const QStringList names = resultNames(r);
        for (size_t i = 0; i < r.results.size(); ++i) {
            const RunResult& res = r.results[i];
            auto* it = makeItem(names[int(i)] + " — " + resultSummary(res), TreeKind::Result);
            it->setIcon(palette::plannerIcon(res.planner));
            it->setData(r.id, kRoleRun);
            it->setData(int(i), kRoleResult);
            if (!res.message.empty())
                it->setToolTip(QString::fromStdString(res.message));
            if (!res.plan)
                it->setForeground(QColor(150, 150, 150));
            run->appendRow(it);
        }
        runs->appendRow(run);
    }
    for (QStandardItem* group : {clusters, models, jobs, runs})
        appendRow(group);
    addWholeTextTips(invisibleRootItem());
}

QModelIndex ProjectTreeModel::resultIndex(int runId, int result) const
{
    const QModelIndexList hits = match(index(0, 0), kRoleResult, result, -1, Qt::MatchExactly | Qt::MatchRecursive);
    for (const QModelIndex& i : hits)
        if (i.data(kRoleRun).toInt() == runId && i.data(kRoleKind).toInt() == int(TreeKind::Result))
            return i;
    return {};
}

} // namespace hetplan
