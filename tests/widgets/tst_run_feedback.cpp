// What a run tells the user in the widgets: engine errors in the GUI's words (the Job panel's labels, the
// Run tab's option labels, no CLI flags), the running planner's row with its progress and elapsed time,
// whole messages in a tooltip and the details pane, and the comparison's list of planners without a plan.
#include "testutil.h"

#include "core/planners/planner.h"
#include "widgets/common/gui_errors.h"
#include "widgets/controller/run_controller.h"
#include "widgets/panels/job_panel.h"
#include "widgets/panels/run_panel.h"
#include "widgets/views/comparison_view.h"

#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>

using namespace hetplan;

namespace {
// Two nodes of four GPUs each and a toy model: small enough for any planner to finish at once.
PlanRequest smallRequest(int globalBatch)
{
    PlanRequest req;
    req.cluster = test::twoNodeCluster("A100-40GB", 4, "RTX-3090", 4);
    req.model = test::toyModel(8);
    req.job.globalBatchSize = globalBatch;
    return req;
}

RunResult resultWithMessage(const std::string& planner, RunStatus status, const std::string& message)
{
    RunResult r;
    r.planner = planner;
    r.status = status;
    r.message = message;
    return r;
}

// The label the Job panel shows next to the spin box holding `value`.
QString jobLabelOfSpinBoxWith(JobPanel& panel, int value)
{
    auto* form = panel.findChild<QFormLayout*>();
    for (QSpinBox* box : panel.findChildren<QSpinBox*>())
        if (box->value() == value)
            if (auto* label = qobject_cast<QLabel*>(form->labelForField(box)))
                return label->text();
    return {};
}
} // namespace

class TestRunFeedback : public QObject {
    Q_OBJECT
private slots:
    void jobFieldsHaveTheJobPanelsLabels()
    {
        // The CLI flag, its dashes, and the JSON name all name the same field.
        for (const char* name : {"gbs", "--gbs", "global_batch_size"})
            QCOMPARE(jobFieldLabel(name), QStringLiteral("Global batch size"));
        QCOMPARE(jobFieldLabel("seq"), QStringLiteral("Sequence length"));
        QCOMPARE(jobFieldLabel("zero_stage"), QStringLiteral("ZeRO stage"));
        QVERIFY(jobFieldLabel("hidden").isEmpty());
        // ... and that is what the Job panel calls them.
        JobPanel panel;
        Job job;
        job.globalBatchSize = 96;
        job.sequenceLength = 2048;
        panel.setJob(job);
        QCOMPARE(jobLabelOfSpinBoxWith(panel, 96), jobFieldLabel("gbs"));
        QCOMPARE(jobLabelOfSpinBoxWith(panel, 2048), jobFieldLabel("seq"));
    }

    void inputErrorsSpeakTheGuisWords()
    {
        QCOMPARE(guiErrorText(InputError("job", "gbs", "must be between 1 and 1048576")),
                 QStringLiteral("Global batch size (Job panel): must be between 1 and 1048576"));
        QCOMPARE(guiErrorText(InputError("--gbs", "global_batch_size", "global batch 12 is not divisible by 8")),
                 QStringLiteral("Global batch size (Job panel): global batch 12 is not divisible by 8"));
        // Options: the Run tab's label of the option and the planner, not the key.
        QCOMPARE(guiErrorText(InputError("options", "mbs", "must divide the per-GPU batch 4"), "data-parallel"),
                 QStringLiteral("Option “Micro-batch” of data-parallel (Run tab): must divide the per-GPU batch 4"));
        QCOMPARE(guiErrorText(InputError("cluster", "nodes[1].gpus", "must be at least 1 (got 0)")),
                 QStringLiteral("Cluster, nodes[1].gpus: must be at least 1 (got 0)"));
        // Flags inside a reason are replaced too; other text stays.
        QCOMPARE(withoutCliFlags("use --gbs 64, --option mbs=2 or --time-limit"),
                 QStringLiteral("use Global batch size 64, the planner's options on the Run tab or the time limit"));
        QCOMPARE(withoutCliFlags("no flags here - just a dash"), QStringLiteral("no flags here - just a dash"));
    }

    void engineErrorsReachTheRunInTheGuisWords()
    {
        // data-parallel gives every GPU the same batch: 12 samples do not split over 8 GPUs (an input error
        // the engine raises as "job: global_batch_size: ...").
        RunController runner;
        Run run;
        QSignalSpy results(&runner, &RunController::resultReady);
        QSignalSpy finished(&runner, &RunController::finished);
        QVERIFY(runner.start({"data-parallel"}, smallRequest(12), run));
        QVERIFY(finished.wait(test::kHangGuardMs));
        QCOMPARE(results.size(), 1);
        const auto r = results.front().front().value<RunResult>();
        QCOMPARE(toString(r.status), std::string("error"));
        QCOMPARE(QString::fromStdString(r.message),
                 QStringLiteral("Global batch size (Job panel): global batch 12 is not divisible by the 8 GPUs "
                                "(data-parallel gives every GPU the same batch)"));
        QVERIFY(!runner.wasCancelled());
    }

    void runningPlannerHasARowWithProgressAndElapsedTime()
    {
        QCOMPARE(RunPanel::elapsedText(0), QStringLiteral("0.0 s"));
        QCOMPARE(RunPanel::elapsedText(2.46), QStringLiteral("2.5 s"));
        QCOMPARE(RunPanel::elapsedText(75.2), QStringLiteral("1 min 15 s"));
        QCOMPARE(RunPanel::elapsedText(3605), QStringLiteral("60 min 05 s"));

        RunPanel panel;
        Run run;
        run.id = 3;
        panel.showRun(run);
        panel.setRunning(true); // run 3 is the one running
        panel.startPlanner(0, "amp");
        QTreeWidgetItem* row = panel.runningRow();
        QVERIFY(row);
        QCOMPARE(panel.results()->topLevelItemCount(), 1);
        QCOMPARE(row->text(0), QStringLiteral("amp"));
        QCOMPARE(row->text(1), QStringLiteral("running…"));
        QVERIFY2(row->text(5).endsWith(" s"), qPrintable(row->text(5))); // the elapsed time
        panel.setPlannerProgress("amp: 12 of 40 strategies");
        QCOMPARE(panel.runningRow()->text(6), QStringLiteral("12 of 40 strategies")); // without the name prefix
        // amp's result arrives: its row replaces the running one.
        run.results.push_back(resultWithMessage("amp", RunStatus::Infeasible, "nothing fits"));
        panel.showRun(run);
        QVERIFY(!panel.runningRow());
        QCOMPARE(panel.results()->topLevelItemCount(), 1);
        // The next planner runs below the finished one.
        panel.startPlanner(1, "megatron");
        QCOMPARE(panel.results()->topLevelItemCount(), 2);
        QCOMPARE(panel.results()->topLevelItem(1), panel.runningRow());
        QCOMPARE(panel.runningRow()->text(0), QStringLiteral("megatron"));
        panel.showRun(run); // a repaint of the same results keeps it
        QCOMPARE(panel.results()->topLevelItemCount(), 2);
        Run older; // another run, picked in the project tree meanwhile: not its row
        older.id = 2;
        panel.showRun(older);
        QVERIFY(!panel.runningRow());
        panel.showRun(run);
        QVERIFY(panel.runningRow());
        panel.setRunning(false); // the run ends: no planner is running
        QVERIFY(!panel.runningRow());
        QCOMPARE(panel.results()->topLevelItemCount(), 1);
    }

    void longMessagesAreNeverCutOff()
    {
        const std::string longReason = "Global batch size (Job panel): " + std::string(400, 'x') + " end";
        RunPanel panel;
        Run run;
        run.id = 1;
        run.results.push_back(resultWithMessage("data-parallel", RunStatus::Error, longReason));
        panel.showRun(run);
        QTreeWidgetItem* row = panel.results()->topLevelItem(0);
        QCOMPARE(row->toolTip(6), QString::fromStdString(longReason));
        panel.results()->setCurrentItem(row);
        QCOMPARE(panel.details()->toPlainText(), QStringLiteral("data-parallel — error\n") + toQString(longReason));
    }

    void comparisonListsPlannersWithoutAPlan()
    {
        ComparisonView view;
        view.resize(900, 600);
        view.show();
        QVERIFY(!view.failureList()->isVisibleTo(&view));
        Progress progress;
        const Plan plan = runPlanner("uniform", smallRequest(32), progress);
        view.setPlans({plan});
        view.setFailures({{"data-parallel", "error", "Global batch size (Job panel): not divisible"},
                          {"oobleck", "infeasible", "oobleck plans homogeneous clusters"}});
        QCOMPARE(view.names(), QStringList{"uniform"});
        QCOMPARE(view.failureLines(),
                 (QStringList{"data-parallel (error): Global batch size (Job panel): not divisible",
                              "oobleck (infeasible): oobleck plans homogeneous clusters"}));
        QVERIFY(view.failureList()->isVisibleTo(&view));
        QVERIFY(view.failureList()->wordWrap());
        QVERIFY(view.failureList()->text().contains("oobleck plans homogeneous clusters"));
        // With no plan at all the list still shows, under the placeholder.
        view.clear();
        QVERIFY(view.failureLines().isEmpty());
        QVERIFY(!view.failureList()->isVisibleTo(&view));
        view.setFailures({{"data-parallel", "error", "why"}});
        QVERIFY(view.isEmpty());
        QVERIFY(view.failureList()->isVisibleTo(&view));
    }

private:
    static QString toQString(const std::string& s) { return QString::fromStdString(s); }
};

QTEST_MAIN(TestRunFeedback)
#include "tst_run_feedback.moc"
