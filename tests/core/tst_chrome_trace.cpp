// The Chrome trace exporter (a viewer's reading of it: named tracks, no overlaps on a track, µs units) and
// exportPlan's dispatch to every format, on hand-built plans.
#include "exporter_fixtures.h"

#include "core/io/exporters.h"
#include "core/io/schema_validate.h"
#include "core/sim/simulator.h"

#include <QTest>

#include <algorithm>

using namespace hetplan;
using namespace hetplan::simtest;
using namespace hetplan::exporttest;

class TestChromeTrace : public QObject {
    Q_OBJECT
private slots:
    void chromeTraceOfFourStages();
    void chromeTraceSplitsOverlaps();
    void exportDispatch();
};

void TestChromeTrace::chromeTraceOfFourStages()
{
    // 4 stages × 2 replicas × tp 2 on the test devices with measured times and slow links, so sends and
    // all-reduces show up.
    Plan p = unevenPlan();
    for (Node& n : p.cluster.nodes)
        n.deviceType = "TestA";
    Profile prof;
    setTimes(prof, "TestA", 2, 4, std::vector<double>(34, 0.001), std::vector<double>(34, 0.002));
    p.profile = prof;
    CostModel costs(p.model, p.job, prof, testCatalog());
    const SimResult r = simulate(p, costs);
    const QJsonObject trace = chromeTrace(p, r);
    // Through text, as a viewer would read it.
    const QByteArray text = QJsonDocument(trace).toJson(QJsonDocument::Compact);
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QVERIFY(doc.isObject());
    int drawn = 0;
    bool sends = false;
    for (const TimelineEvent& e : r.events) {
        drawn += e.end > e.start;
        sends |= e.kind == EventKind::SendActivation;
    }
    QVERIFY(sends);
    QCOMPARE(checkTrace(doc.object()), drawn);
    // Compute of GPU 5 (node "a", pid 0) is on tid 10; its first event is a forward of micro-batch 0.
    bool found = false;
    for (const QJsonValue& v : doc.object().value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("ph") == "X" && e.value("tid").toInt() == 10) {
            QCOMPARE(e.value("pid").toInt(), 0);
            QCOMPARE(e.value("cat").toString(), QString("compute"));
            found = true;
        }
    }
    QVERIFY(found);
}

void TestChromeTrace::chromeTraceSplitsOverlaps()
{
    // Hand-made result: GPU 1 (of 3) has three communication events, the first two overlapping, and a compute
    // event. Expected tids: compute 2, comm 3, the overlapping one on lane 2: 2·3·1 + 1·2 + 1 = 9.
    Plan p = unevenPlan();
    p.cluster = testCluster({{"TestA", 3}}, 1e9, 1e9);
    SimResult r;
    r.events = {TimelineEvent{1, EventKind::SendActivation, 0, 0, 0, 0, 0.0, 2.0},
                TimelineEvent{1, EventKind::SendGradient, 0, 0, 0, 1, 1.0, 3.0},
                TimelineEvent{1, EventKind::AllReduce, 0, 0, 0, -1, 3.0, 4.0},
                TimelineEvent{1, EventKind::Forward, 0, 0, 0, 0, 0.0, 1.5}};
    const QJsonObject trace = chromeTrace(p, r);
    QCOMPARE(checkTrace(trace), 4);
    std::map<QString, int> tidOf;
    for (const QJsonValue& v : trace.value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("ph") == "X")
            tidOf[e.value("name").toString()] = e.value("tid").toInt();
    }
    QCOMPARE(tidOf["forward 0"], 2);
    QCOMPARE(tidOf["send-activation 0"], 3);
    QCOMPARE(tidOf["send-gradient 1"], 9);
    QCOMPARE(tidOf["all-reduce"], 3); // free again at 3.0 on lane 1
    // µs from 1 µs (Chrome's trace engine ignores a window that starts at 0): the send-gradient starts at
    // 1 s = 1e6 µs after the iteration's start, ts 1e6 + 1, and lasts 2e6 µs; the events at time 0 have ts 1.
    double first = 1e300;
    for (const QJsonValue& v : trace.value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("ph") == "X")
            first = std::min(first, e.value("ts").toDouble());
        if (e.value("name") == "send-gradient 1") {
            QCOMPARE(e.value("ts").toDouble(), 1e6 + 1);
            QCOMPARE(e.value("dur").toDouble(), 2e6);
        }
    }
    QCOMPARE(first, 1.0);
}

void TestChromeTrace::exportDispatch()
{
    Plan p = unevenPlan();
    CostModel costs(p.model, p.job, p.profile);
    scorePlan(p, costs);
    const QJsonObject planJson = parseObject(exportPlan(p, "plan"));
    QCOMPARE(planJson.value("schema").toString(), QString("hetplan.plan/1"));
    QVERIFY2(validatePlanJson(planJson).empty(), describe(validatePlanJson(planJson)).c_str());
    QCOMPARE(parseObject(exportPlan(p, "deepspeed")).value("train_batch_size").toInt(), 64);
    QVERIFY(exportPlan(p, "megatron").find("--pipeline-model-parallel-layout") != std::string::npos);
    QCOMPARE(exportPlan(p, "hostfile"), hostfile(p));
    QCOMPARE(exportPlan(p, "rank-table"), rankTable(p));
    const QJsonObject trace = parseObject(exportPlan(p, "chrome-trace"));
    QVERIFY(checkTrace(trace) > 0);
    QVERIFY(!refusal([&] { exportPlan(p, "pdf"); }).isEmpty());
}


QTEST_GUILESS_MAIN(TestChromeTrace)
#include "tst_chrome_trace.moc"
