// The cross-planner consistency suite (bench/consistency.h) on a small seeded grid: no planner returns a
// plan that does not fit, and no planner fails or loses where a planner whose space it contains succeeds.
// `hetplan-consistency` runs the same checks on a larger grid (make bench).
#include "consistency.h"

#include <QTest>

#include <set>

using namespace hetplan;

class TestPlannerConsistency : public QObject {
    Q_OBJECT
private slots:
    void gridIsSeededAndVaried()
    {
        bench::GridShape shape;
        shape.scenarios = 12;
        const auto a = bench::consistencyGrid(shape), b = bench::consistencyGrid(shape);
        QCOMPARE(a.size(), b.size());
        int maxTypes = 0, overrides = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].name, b[i].name); // the same seed, the same grid
            QVERIFY(a[i].request.cluster.gpuCount() >= 2);
            std::set<std::string> types;
            for (const Node& n : a[i].request.cluster.nodes) {
                types.insert(n.deviceType);
                overrides += n.runtimeOverhead >= 0;
            }
            maxTypes = std::max(maxTypes, int(types.size()));
            QVERIFY(types.size() >= 2);
        }
        QVERIFY(maxTypes >= 3);
        QVERIFY(overrides >= 1);
    }

    void plannersAreConsistent()
    {
        bench::GridShape shape;
        shape.seed = 3;
        shape.scenarios = 10;
        shape.maxGpus = 48;
        const auto runs = bench::runGrid(bench::consistencyGrid(shape), PlannerRegistry::instance().names(), 1.0);
        qInfo("\n%s", bench::consistencyTable(runs).c_str());
        int plans = 0;
        for (const auto& run : runs)
            for (const auto& o : run.outcomes)
                plans += o.kind == bench::Outcome::Kind::Plan;
        QVERIFY(plans > 30);
        const auto violations = bench::checkConsistency(runs);
        for (const auto& v : violations)
            qWarning("%s: %s vs %s on %s: %s", v.kind.c_str(), v.planner.c_str(), v.containing.c_str(),
                     v.scenario.c_str(), v.detail.c_str());
        QVERIFY(violations.empty());
    }
};

QTEST_GUILESS_MAIN(TestPlannerConsistency)
#include "tst_planner_consistency.moc"
