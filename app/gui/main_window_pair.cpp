// Two plans side by side: Ctrl-click two results in the project tree, then "Compare the Two Selected
// Plans" in its context menu opens a PlanPairView in a window.
#include "main_window.h"

#include "widgets/models/project_tree.h"
#include "widgets/views/plan_pair_view.h"

#include <QAction>
#include <QDialog>
#include <QItemSelectionModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace hetplan {

namespace {
QString planName(const ProjectDocument& doc, const PlanRef& ref)
{
    const Plan* plan = doc.plan(ref);
    return QStringLiteral("%1 · run %2").arg(QString::fromStdString(plan ? plan->planner : "?")).arg(ref.runId);
}
} // namespace

std::vector<PlanRef> MainWindow::selectedPlans() const
{
    std::vector<PlanRef> refs;
    for (const QModelIndex& i : tree_->selectionModel()->selectedIndexes())
        if (TreeKind(i.data(kRoleKind).toInt()) == TreeKind::Result) {
            const PlanRef ref{i.data(kRoleRun).toInt(), i.data(kRoleResult).toInt()};
            if (doc_->plan(ref))
                refs.push_back(ref);
        }
    return refs;
}

bool MainWindow::comparePlans(const PlanRef& left, const PlanRef& right)
{
    const Plan* a = doc_->plan(left);
    const Plan* b = doc_->plan(right);
    if (!a || !b) {
        showMessage(tr("Select two plans (Ctrl-click two results in the project tree) to compare them."), true);
        return false;
    }
    auto* view = new PlanPairView;
    QString error;
    if (!view->setPlans(*a, *b, planName(*doc_, left), planName(*doc_, right), &error)) {
        delete view;
        showMessage(tr("Cannot compare these plans: %1").arg(error), true);
        return false;
    }
    if (pairDialog_)
        pairDialog_->close(); // one comparison window at a time: the newest pair
    pairDialog_ = new QDialog(this);
    pairDialog_->setAttribute(Qt::WA_DeleteOnClose);
    pairDialog_->setWindowTitle(tr("Two plans side by side"));
    auto* layout = new QVBoxLayout(pairDialog_);
    layout->addWidget(view);
    pairDialog_->resize(1200, 860);
    pairDialog_->show();
    return true;
}

QAction* MainWindow::compareSelectedAction(QObject* owner)
{
    auto* compare = new QAction(tr("Compare the Two Selected Plans"), owner);
    compare->setObjectName("comparePlans");
    const std::vector<PlanRef> refs = selectedPlans();
    compare->setEnabled(refs.size() == 2);
    connect(compare, &QAction::triggered, this, [this, refs] {
        if (refs.size() == 2)
            comparePlans(refs[0], refs[1]);
    });
    return compare;
}

PlanPairView* MainWindow::planPair() const { return pairDialog_ ? pairDialog_->findChild<PlanPairView*>() : nullptr; }

} // namespace hetplan
