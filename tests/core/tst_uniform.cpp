// The uniform reference planner end to end: structural invariants, the even split, infeasibility.
#include "testutil.h"
#include "example_request.h"

#include "core/base/errors.h"
#include "core/io/examples.h"
#include "core/planners/planner.h"

#include <QTest>

using namespace hetplan;

class TestUniform : public QObject {
    Q_OBJECT
private slots:
    void evenSplitAndPlacement()
    {
        PlanRequest req = test::exampleRequest("amp-het-cluster", "gpt2-amp", 32);
        req.options = {{"pp", "4"}, {"tp", "2"}};
        Progress progress;
        Plan p = runPlanner("uniform", req, progress);
        test::checkPipelineInvariants(p);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(p.pipelines.size(), size_t(1));
        const Pipeline& pl = p.pipelines[0];
        QCOMPARE(pl.replicas, 2);      // 16 GPUs / (tp 2 · pp 4)
        QCOMPARE(pl.microBatches, 16); // 32 / (dp 2 · mbs 1)
        QCOMPARE(int(pl.stages.size()), 4);
        // 26 layers over 4 stages: 6, 6, 7, 7 (the extra layers go to the last stages, which hold the fewest
        // 1F1B activations in flight)
        QCOMPARE(pl.stages[0].layerCount(), 6);
        QCOMPARE(pl.stages[3].layerCount(), 7);
        // Megatron order: tp pairs are adjacent GPUs, stage 0 holds ranks 0..3.
        QCOMPARE(pl.stages[0].gpus, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(pl.stages[3].gpus, (std::vector<int>{12, 13, 14, 15}));
        QVERIFY(p.estimate.iterationSeconds > 0);
        QVERIFY(p.estimate.tokensPerSecond > 0);
    }

    void smallestDepthThatFits()
    {
        PlanRequest req = test::exampleRequest("amp-het-cluster", "gpt2-xl", 32);
        Progress progress;
        Plan p = runPlanner("uniform", req, progress);
        test::checkPipelineInvariants(p);
        if (QTest::currentTestFailed())
            return;
        // 1.56 B params × 16 bytes of model state = 25 GB: one stage cannot fit a 16 GB V100.
        QVERIFY(p.pipelines[0].stages.size() >= 2);
    }

    void infeasible()
    {
        PlanRequest req;
        req.cluster = exampleCluster("poplar-b"); // 4 GPUs of 16 GB
        req.model = buildExampleModel("llama2-13b");
        req.job.globalBatchSize = 4;
        Progress progress;
        // 13 B params × 16 bytes = 208 GB of model state > 64 GB in total.
        QVERIFY_THROWS_EXCEPTION(InfeasibleError, runPlanner("uniform", req, progress));
    }

    void cancelled()
    {
        PlanRequest req;
        req.cluster = exampleCluster("amp-het-cluster");
        req.model = buildExampleModel("gpt2-amp");
        Progress progress;
        progress.cancel();
        QVERIFY_THROWS_EXCEPTION(CancelledError, runPlanner("uniform", req, progress));
    }
};

QTEST_GUILESS_MAIN(TestUniform)
#include "tst_uniform.moc"
