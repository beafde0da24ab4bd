// The model/profile, import, job and run panels: what the user types reaches the data, and bad files give
// a readable error without closing the dialog.
#include "testutil.h"

#include "core/io/examples.h"
#include "core/planners/planner.h"
#include "widgets/models/profile_table.h"
#include "widgets/panels/import_dialog.h"
#include "widgets/panels/job_panel.h"
#include "widgets/panels/model_panel.h"
#include "widgets/panels/run_panel.h"

#include <QComboBox>
#include <QSortFilterProxyModel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>

using namespace hetplan;

class TestPanels : public QObject {
    Q_OBJECT
private slots:
    void importDialogReadsEveryFormat()
    {
        ImportDialog d;
        d.setInput("sailor", QString::fromStdString(test::fixture("profiles/sailor/valid.json")), "V100-16GB", 1);
        QVERIFY2(d.tryImport(), qPrintable(d.error()));
        QVERIFY(!d.profile().empty());
        QCOMPARE(d.profile().deviceTypes().front(), std::string("V100-16GB"));
        d.setInput("native", QString::fromStdString(test::fixture("profiles/native/valid.json")), "T4", 1);
        QVERIFY2(d.tryImport(), qPrintable(d.error()));
        d.setInput("csv", QString::fromStdString(test::fixture("profiles/csv/valid_ms.csv")), "T4", 1);
        QVERIFY2(d.tryImport(), qPrintable(d.error()));
    }

    void importDialogShowsFileFieldReason()
    {
        ImportDialog d;
        const QString bad = QString::fromStdString(test::fixture("profiles/csv/bad_number.csv"));
        d.setInput("csv", bad, "T4", 1);
        QVERIFY(!d.tryImport());
        QVERIFY2(d.error().startsWith(bad + ": "), qPrintable(d.error()));
        QVERIFY(d.error().count(": ") >= 2);
    }

    void profileTableSortsNumerically()
    {
        ProfileTableModel m;
        const ModelSpec model = buildExampleModel("gpt2-amp");
        Profile measured;
        std::vector<LayerTiming> t(model.layerCount(), LayerTiming{0.002, 0.004, 0, -1});
        t[3].forward = 0.010;  // the slowest layer on T4
        t[7].forward = 0.0005; // the fastest
        measured.set({"T4", 1, 1}, t);
        m.setData(model, Job{}, measured, {"T4", "V100-16GB"}, 1, 1);
        QCOMPARE(m.rowCount(), model.layerCount());
        QCOMPARE(m.columnCount(), 3 + 2 * 3);
        // Column 3 = T4 forward (ms), measured → bold; V100 columns are analytic.
        QCOMPARE(m.data(m.index(3, 3), Qt::EditRole).toDouble(), 10.0);
        QVERIFY(m.data(m.index(3, 3), Qt::FontRole).value<QFont>().bold());
        QVERIFY(!m.data(m.index(3, 6), Qt::FontRole).isValid());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&m);
        proxy.setSortRole(Qt::EditRole);
        proxy.sort(3, Qt::DescendingOrder);
        QCOMPARE(proxy.mapToSource(proxy.index(0, 0)).row(), 3);
        QCOMPARE(proxy.mapToSource(proxy.index(model.layerCount() - 1, 0)).row(), 7);
    }

    void modelPanelShowsTheClustersDevices()
    {
        ModelPanel panel;
        ProjectModel pm{buildExampleModel("bert-base"), {}};
        const Cluster c = exampleCluster("amp-het-cluster");
        panel.show(&pm, &c, Job{});
        // layer, kind, params + (V100, T4) × (forward, backward, activations)
        QCOMPARE(panel.table()->model()->columnCount(), 3 + 2 * 3);
        QCOMPARE(panel.table()->model()->rowCount(), pm.model.layerCount());
    }

    void jobPanelEmitsEdits()
    {
        JobPanel p;
        Job j;
        j.globalBatchSize = 64;
        j.zeroStage = 2;
        p.setJob(j);
        QCOMPARE(p.job(), j);
        QSignalSpy spy(&p, &JobPanel::jobEdited);
        p.findChildren<QSpinBox*>().front()->setValue(128); // global batch
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.front().front().value<Job>().globalBatchSize, 128);
        p.setJob(j); // programmatic changes do not count as edits
        QCOMPARE(spy.count(), 1);
    }

    void runPanelListsTheRegistryAndItsOptions()
    {
        RunPanel p;
        registerBuiltinPlanners();
        QTreeWidget* tree = nullptr;
        for (QTreeWidget* t : p.findChildren<QTreeWidget*>())
            if (t != p.results())
                tree = t;
        QVERIFY(tree);
        QCOMPARE(tree->topLevelItemCount(), int(PlannerRegistry::instance().names().size()));
        p.setChecked({"amp", "uniform"});
        QCOMPARE(p.checkedPlanners(), (std::vector<std::string>{"amp", "uniform"}));
        QVERIFY(p.options().empty()); // nothing changed from the defaults
        for (int i = 0; i < tree->topLevelItemCount(); ++i) {
            QTreeWidgetItem* it = tree->topLevelItem(i);
            if (it->text(0) == "amp")
                for (int c = 0; c < it->childCount(); ++c)
                    if (it->child(c)->text(0) == "top_k")
                        it->child(c)->setText(1, "3");
        }
        QCOMPARE(p.options()["amp"]["top_k"], std::string("3"));
    }
};

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"
