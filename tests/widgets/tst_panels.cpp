// The model/profile, import, job and run panels: what the user types reaches the data, and bad files give
// a readable error without closing the dialog.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/model/job_fields.h"
#include "widgets/common/gui_errors.h"
#include "core/planners/planner.h"
#include "widgets/models/profile_table.h"
#include "widgets/panels/import_dialog.h"
#include "widgets/panels/job_panel.h"
#include "widgets/panels/model_panel.h"
#include "widgets/panels/run_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTreeWidget>
#include <QTest>

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
        // The framework and sequence parallelism survive the panel, and editing them is an edit.
        j.framework = Framework::MegatronLegacy;
        j.sequenceParallel = true;
        p.setJob(j);
        QCOMPARE(p.job(), j);
        p.findChild<QComboBox*>(QStringLiteral("framework"))->setCurrentIndex(int(Framework::DeepSpeedPipe));
        QCOMPARE(spy.count(), 2);
        QVERIFY(spy.back().front().value<Job>().framework == Framework::DeepSpeedPipe);
        p.findChild<QCheckBox*>(QStringLiteral("sequence_parallel"))->setChecked(false);
        QCOMPARE(spy.count(), 3);
        QVERIFY(!spy.back().front().value<Job>().sequenceParallel);
        // TF32 is on by default and unticking it is an edit. It only matters to fp32 jobs: greyed out for fp16.
        QCheckBox* tf32 = p.findChild<QCheckBox*>(QStringLiteral("tf32"));
        QVERIFY(p.job().tf32);
        tf32->setChecked(false);
        QCOMPARE(spy.count(), 4);
        QVERIFY(!spy.back().front().value<Job>().tf32);
        QVERIFY(!tf32->isEnabled());
        j.precision = Precision::FP32;
        p.setJob(j);
        QVERIFY(tf32->isEnabled());
        // Full and selective recomputation exclude each other: ticking one unticks the other.
        QCheckBox* full = p.findChild<QCheckBox*>(QStringLiteral("recompute"));
        QCheckBox* selective = p.findChild<QCheckBox*>(QStringLiteral("selective_recompute"));
        full->setChecked(true);
        selective->setChecked(true);
        QVERIFY(!full->isChecked());
        QVERIFY(spy.back().front().value<Job>().selectiveRecompute && !spy.back().front().value<Job>().recompute);
        full->setChecked(true);
        QVERIFY(!selective->isChecked());
        QVERIFY(spy.back().front().value<Job>().recompute && !spy.back().front().value<Job>().selectiveRecompute);
    }

    void jobPanelHasARowPerJobField()
    {
        // One editor per field of the table, named by its key and labelled as error messages name it; a job
        // with every field away from its default survives setJob → job (the memory margin is shown in per
        // cent: 7 %, stored as 0.07).
        JobPanel p;
        auto* form = qobject_cast<QFormLayout*>(p.layout());
        QVERIFY(form);
        QCOMPARE(form->rowCount(), int(jobFields().size()));
        for (int i = 0; i < form->rowCount(); ++i) {
            const FieldSpec<Job>& f = jobFields()[i];
            QWidget* editor = form->itemAt(i, QFormLayout::FieldRole)->widget();
            QCOMPARE(editor->objectName(), QString::fromStdString(f.decl.key));
            // A switch carries its label itself; other rows have it beside them.
            const QString shown = f.decl.type == OptionType::Bool
                                      ? qobject_cast<QCheckBox*>(editor)->text()
                                      : qobject_cast<QLabel*>(form->itemAt(i, QFormLayout::LabelRole)->widget())->text();
            QCOMPARE(shown, guiErrorText(InputError("job", f.decl.key, "x")).section(" (Job panel)", 0, 0));
        }
        Job j;
        j.globalBatchSize = 96;
        j.sequenceLength = 512;
        j.precision = Precision::FP32;
        j.optimizerStateBytesPerParam = 4.5;
        j.zeroStage = 3;
        j.schedule = Schedule::GPipe;
        j.recompute = true;
        j.tf32 = false;
        j.backwardFactor = 1.75;
        j.memoryMargin = 0.07;
        j.framework = Framework::MegatronLegacy;
        j.sequenceParallel = true;
        p.setJob(j);
        QCOMPARE(p.job(), j);
        QCOMPARE(p.findChild<QDoubleSpinBox*>(QStringLiteral("memory_margin"))->value(), 7.0);
        QCOMPARE(p.findChild<QComboBox*>(QStringLiteral("zero_stage"))->currentText(), QStringLiteral("3 — + parameters"));
    }

    void runPanelListsTheRegistryAndItsOptions()
    {
        RunPanel p;
        QTreeWidget* tree = nullptr;
        for (QTreeWidget* t : p.findChildren<QTreeWidget*>())
            if (t != p.results())
                tree = t;
        QVERIFY(tree);
        QCOMPARE(tree->topLevelItemCount(), int(PlannerRegistry::instance().names().size()));
        p.setChecked({"amp", "uniform"});
        QCOMPARE(p.checkedPlanners(), (std::vector<std::string>{"amp", "uniform"}));
        QVERIFY(p.options().empty()); // nothing changed from the defaults
        // Every declared option of every planner has a row, labelled and explained, with its editor.
        for (int i = 0; i < tree->topLevelItemCount(); ++i) {
            QTreeWidgetItem* it = tree->topLevelItem(i);
            const auto planner = PlannerRegistry::instance().create(it->text(0).toStdString());
            const std::vector<PlannerOption> declared = planner->options();
            QCOMPARE(it->childCount(), int(declared.size()));
            for (int c = 0; c < it->childCount(); ++c) {
                QCOMPARE(it->child(c)->text(0), QString::fromStdString(declared[c].label));
                QVERIFY(it->child(c)->toolTip(0).startsWith(QString::fromStdString(declared[c].help)));
                QWidget* editor = tree->itemWidget(it->child(c), 1);
                QVERIFY(editor);
                QCOMPARE(editor, p.optionEditor(planner->name(), declared[c].key));
            }
        }
    }

    void runPanelObjectiveAndGpuChoice()
    {
        RunPanel p;
        QCOMPARE(p.objective(), Objective{}); // fastest, no budget, no floor
        QVERIFY(!p.selectGpus());
        auto* select = p.findChild<QCheckBox*>("RunSelectGpus");
        QVERIFY(select && select->isEnabled());
        // A budget implies trying GPU subsets: the box is ticked and fixed while it is set.
        p.findChild<QDoubleSpinBox*>("RunBudget")->setValue(40);
        QVERIFY(p.selectGpus());
        QVERIFY(!select->isEnabled());
        auto* goal = p.findChild<QComboBox*>("RunGoal");
        goal->setCurrentIndex(goal->findData("cost"));
        p.findChild<QDoubleSpinBox*>("RunThroughputFloor")->setValue(5000);
        QCOMPARE(p.objective(), (Objective{Objective::Goal::Cost, 40, 5000}));
        p.setObjective({});
        QVERIFY(select->isEnabled()); // back to the plain goal: the choice is the user's again
        QVERIFY(!p.selectGpus());      // ... and it was not ticked
        select->setChecked(true);
        p.findChild<QDoubleSpinBox*>("RunBudget")->setValue(10);
        p.setObjective({});
        QVERIFY(p.selectGpus()); // the user's tick survives a budget set and cleared
        QCOMPARE(p.objective(), Objective{});
    }

    void runPanelEditorsFollowTheOptionTypes()
    {
        RunPanel p;
        // amp: top_k integer 1..100000 (default 10), keep_infeasible false, dp fast|paper.
        auto* topK = qobject_cast<QSpinBox*>(p.optionEditor("amp", "top_k"));
        QVERIFY(topK);
        QCOMPARE(topK->minimum(), 1);
        QCOMPARE(topK->maximum(), 100000);
        QCOMPARE(topK->value(), 10);
        auto* keep = qobject_cast<QCheckBox*>(p.optionEditor("amp", "keep_infeasible"));
        QVERIFY(keep);
        QVERIFY(!keep->isChecked());
        auto* dp = qobject_cast<QComboBox*>(p.optionEditor("amp", "dp"));
        QVERIFY(dp);
        QCOMPARE(dp->count(), 2);
        QCOMPARE(dp->currentText(), QStringLiteral("fast"));
        // annealing: temperature, a number 0..1000 with default 0.2.
        auto* temperature = qobject_cast<QDoubleSpinBox*>(p.optionEditor("annealing", "temperature"));
        QVERIFY(temperature);
        QCOMPARE(temperature->value(), 0.2);
        QCOMPARE(temperature->maximum(), 1000.0);
        QVERIFY(!temperature->toolTip().isEmpty());
        QVERIFY(!p.optionEditor("amp", "no-such-option"));
        QVERIFY(p.options().empty());

        // Changed values show up as canonical text; values back at the default do not.
        topK->setValue(3);
        QCOMPARE(p.options(), (std::map<std::string, std::map<std::string, std::string>>{{"amp", {{"top_k", "3"}}}}));
        keep->setChecked(true);
        dp->setCurrentText(QStringLiteral("paper"));
        temperature->setValue(0.5);
        QCOMPARE(p.options()["amp"]["keep_infeasible"], std::string("true"));
        QCOMPARE(p.options()["amp"]["dp"], std::string("paper"));
        QCOMPARE(p.options()["annealing"]["temperature"], std::string("0.5"));
        topK->setValue(10);
        keep->setChecked(false);
        dp->setCurrentText(QStringLiteral("fast"));
        temperature->setValue(0.2);
        QVERIFY(p.options().empty());
        // Whatever the editors hold is a value the planner accepts.
        topK->setValue(1000000); // beyond the range: the box keeps it inside
        const auto amp = PlannerRegistry::instance().create("amp");
        QCOMPARE(resolveOptions(*amp, p.options()["amp"]).at("top_k"), std::string("100000"));
    }

    void optionEditorDecimals()
    {
        QCOMPARE(decimalsFor(0.2), 2);
        QCOMPARE(decimalsFor(3), 2);
        QCOMPARE(decimalsFor(0.125), 3);
        QCOMPARE(decimalsFor(1e-6), 6);
    }
};

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"
