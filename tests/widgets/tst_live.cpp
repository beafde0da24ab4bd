// Live re-planning, the LiveController against a real document: one re-plan per edit
// after the debounce, quick edits coalesced into one, a stale run cancelled, nothing while off, one live
// run in the project however many edits, and no re-plan when the inputs did not change.
#include "testutil.h"

#include "widgets/controller/live_controller.h"
#include "widgets/controller/project_document.h"
#include "widgets/controller/run_controller.h"

#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace hetplan;

namespace {
// Sets the current job's global batch size through the undo stack, as the Job panel does.
void setBatch(ProjectDocument& doc, int gbs)
{
    NamedJob j = *doc.job();
    j.job.globalBatchSize = gbs;
    doc.setJob(j);
}

// The global batch size the current plan was made for (0 without a current plan).
int planBatch(const ProjectDocument& doc)
{
    const auto ref = doc.currentPlan();
    const Plan* p = ref ? doc.plan(*ref) : nullptr;
    return p ? p->job.globalBatchSize : 0;
}

PlannerSelection amp() { return {{"amp"}, {}}; }
} // namespace

class TestLive : public QObject {
    Q_OBJECT

    // amp-het-cluster + gpt2-amp, Live on with amp, and the first live plan (for the inputs as loaded) made.
    static void startLive(ProjectDocument& doc, LiveController& live, PlannerSelection sel = amp())
    {
        doc.loadExample("amp-het-cluster", "gpt2-amp");
        live.setSelection([sel] { return sel; });
        QSignalSpy updated(&live, &LiveController::updated);
        QSignalSpy failed(&live, &LiveController::failed);
        live.setEnabled(true);
        QVERIFY(live.isScheduled()); // switching on plans what is there, after the debounce
        QVERIFY2(updated.wait(test::kHangGuardMs), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    }

private slots:
    void offDoesNothing()
    {
        ProjectDocument doc;
        doc.loadExample("amp-het-cluster", "gpt2-amp");
        LiveController live(&doc);
        live.setSelection(amp);
        QSignalSpy started(&live, &LiveController::started);
        setBatch(doc, 64);
        QVERIFY(!live.isScheduled());
        QTest::qWait(3 * LiveController::kDebounceMs);
        QCOMPARE(started.count(), 0);
        QVERIFY(doc.project().runs.empty());
        QVERIFY(!doc.currentPlan());
    }

    void oneEditGivesOneReplanAfterTheDebounce()
    {
        ProjectDocument doc;
        LiveController live(&doc);
        startLive(doc, live);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(planBatch(doc), 32); // the example job
        QSignalSpy started(&live, &LiveController::started);
        QSignalSpy updated(&live, &LiveController::updated);
        setBatch(doc, 64);
        // Nothing starts at the edit itself: the debounce runs first.
        QVERIFY(live.isScheduled());
        QCOMPARE(started.count(), 0);
        QVERIFY(updated.wait(test::kHangGuardMs));
        QCOMPARE(started.count(), 1);
        QCOMPARE(updated.count(), 1);
        QCOMPARE(planBatch(doc), 64);
        QVERIFY(!live.isScheduled() && !live.isRunning());
    }

    void quickEditsCoalesceIntoOne()
    {
        ProjectDocument doc;
        LiveController live(&doc);
        startLive(doc, live);
        if (QTest::currentTestFailed())
            return;
        QSignalSpy started(&live, &LiveController::started);
        QSignalSpy updated(&live, &LiveController::updated);
        setBatch(doc, 48);
        setBatch(doc, 64);
        Cluster c = *doc.cluster(); // an edit of another kind: a node's NIC bandwidth
        c.nodes.front().nicBandwidth *= 2;
        doc.setCluster(c);
        QVERIFY(updated.wait(test::kHangGuardMs));
        QTest::qWait(3 * LiveController::kDebounceMs); // nothing else follows
        QCOMPARE(started.count(), 1);
        QCOMPARE(updated.count(), 1);
        // The one run planned the inputs after the last edit.
        const Plan* p = doc.plan(*doc.currentPlan());
        QCOMPARE(p->job.globalBatchSize, 64);
        QCOMPARE(p->cluster.nodes.front().nicBandwidth, c.nodes.front().nicBandwidth);
    }

    void editDuringARunCancelsIt()
    {
        ProjectDocument doc;
        LiveController live(&doc);
        // Annealing with a huge budget searches until the live time limit (1 s) unless cancelled.
        startLive(doc, live, {{"annealing"}, {{"annealing", {{"iterations", "10000000"}}}}});
        if (QTest::currentTestFailed())
            return;
        QSignalSpy started(&live, &LiveController::started);
        QSignalSpy updated(&live, &LiveController::updated);
        setBatch(doc, 64);
        QVERIFY(started.wait(test::kHangGuardMs));
        QVERIFY(live.isRunning());
        QVERIFY(!live.runner()->wasCancelled());
        setBatch(doc, 128); // the run for 64 is stale now
        QVERIFY(live.runner()->wasCancelled());
        QVERIFY(updated.wait(test::kHangGuardMs));
        QCOMPARE(started.count(), 2);
        QCOMPARE(updated.count(), 1); // the stale run's plans were dropped
        QCOMPARE(planBatch(doc), 128);
        const Run* run = doc.run(live.liveRunId());
        QCOMPARE(run->results.size(), size_t(1));
        QCOMPARE(toString(run->results.front().status), std::string("ok")); // stopped by the time limit, not a cancel
    }

    void theProjectKeepsOneLiveRun()
    {
        ProjectDocument doc;
        LiveController live(&doc);
        startLive(doc, live);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(doc.project().runs.size(), size_t(1));
        const int id = live.liveRunId();
        QCOMPARE(doc.project().runs.front().id, id);
        // A run of the user's stays beside it.
        Run mine{0, doc.cluster()->name, doc.model()->model.name, doc.job()->name, "2026-11-26T00:00:00Z", {}};
        const int mineId = doc.addRun(mine);
        for (int gbs : {64, 128, 16}) {
            QSignalSpy updated(&live, &LiveController::updated);
            setBatch(doc, gbs);
            QVERIFY(updated.wait(test::kHangGuardMs));
            QCOMPARE(doc.project().runs.size(), size_t(2));
            QCOMPARE(live.liveRunId(), id);
            QCOMPARE(doc.currentPlan()->runId, id);
            QCOMPARE(planBatch(doc), gbs);
        }
        QVERIFY(doc.run(mineId));
        // Live runs are results, not edits: the history holds the job edits only.
        for (int i = 0; i < doc.undoStack()->count(); ++i)
            QVERIFY2(doc.undoStack()->text(i).startsWith("Edit job"), qPrintable(doc.undoStack()->text(i)));
        // Undo is an edit too: it re-plans the batch from before.
        QSignalSpy updated(&live, &LiveController::updated);
        doc.undoStack()->undo();
        QVERIFY(updated.wait(test::kHangGuardMs));
        QCOMPARE(planBatch(doc), doc.job()->job.globalBatchSize);
        QCOMPARE(doc.project().runs.size(), size_t(2));
    }

    void unchangedInputsDoNotReplan()
    {
        ProjectDocument doc;
        LiveController live(&doc);
        startLive(doc, live);
        if (QTest::currentTestFailed())
            return;
        QSignalSpy started(&live, &LiveController::started);
        doc.setCurrentPlan(std::nullopt); // navigation
        QVERIFY(!live.isScheduled());
        doc.addRun(Run{0, doc.cluster()->name, doc.model()->model.name, doc.job()->name, "", {}}); // a result
        QVERIFY(!live.isScheduled());
        Cluster moved = *doc.cluster(); // a node dragged on the canvas: where it is drawn does not plan
        moved.nodes.front().x += 40;
        doc.setCluster(moved);
        QVERIFY(!live.isScheduled());
        QTest::qWait(3 * LiveController::kDebounceMs);
        QCOMPARE(started.count(), 0);
        // Off and on again plans the inputs as they are, once.
        live.setEnabled(false);
        live.setEnabled(true);
        QVERIFY(live.isScheduled());
        QVERIFY(started.wait(test::kHangGuardMs));
        QVERIFY(QTest::qWaitFor([&] { return !live.isRunning(); }, test::kHangGuardMs));
        QCOMPARE(started.count(), 1);
    }

    void aProjectReplacedDropsTheLiveRun()
    {
        ProjectDocument doc;
        LiveController live(&doc);
        startLive(doc, live);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(live.liveRunId() > 0);
        QSignalSpy updated(&live, &LiveController::updated);
        doc.loadExample("ditto-ex3", "gpt2-xl");
        QCOMPARE(live.liveRunId(), 0);
        // Opening is not an edit: Live waits for the user's next change (no run, so no failure the user
        // did not cause), then plans the new project.
        QVERIFY(!live.isScheduled());
        QTest::qWait(3 * LiveController::kDebounceMs);
        QVERIFY(!live.isRunning() && updated.isEmpty() && doc.project().runs.empty());
        Job job = doc.job()->job;
        job.globalBatchSize *= 2;
        doc.setJob({doc.job()->name, job});
        QVERIFY(updated.wait(test::kHangGuardMs)); // Live stays on
        QCOMPARE(doc.project().runs.size(), size_t(1));
        QCOMPARE(doc.run(live.liveRunId())->cluster, std::string("ditto-ex3"));
    }
};

QTEST_MAIN(TestLive)
#include "tst_live.moc"
