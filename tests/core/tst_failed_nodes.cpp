// Nodes marked failed (`"failed": true`, the GUI's "Mark failed"): the cluster file keeps the flag, and
// planning leaves those nodes out exactly as `--without` does, in runPlanner (so the CLI, the GUI and the
// benchmarks agree) and in the CLI's plan/compare.
#include "testutil.h"
#include "example_request.h"

#include "app/cli/cli.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/planners/planner.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <sstream>

using namespace hetplan;

namespace {
// Ditto's experiment: ditto-ex3 (11 nodes, 22 GPUs of four types), gpt2-xl at batch 128, its example profile.
PlanRequest dittoRequest()
{
    PlanRequest req = test::exampleRequest("ditto-ex3", "gpt2-xl", 128);
    req.profile = exampleProfile("gpt2-xl-ditto", req.model, req.job);
    return req;
}

Cluster withFailed(Cluster c, const std::vector<std::string>& names)
{
    for (Node& n : c.nodes)
        if (std::find(names.begin(), names.end(), n.name) != names.end())
            n.failed = true;
    return c;
}
} // namespace

class TestFailedNodes : public QObject {
    Q_OBJECT
private slots:
    void clusterJsonRoundTripsTheFlag()
    {
        const Cluster c = withFailed(exampleCluster("ditto-ex3"), {"rtx4090-0", "v100-2"});
        const QJsonObject o = toJson(c);
        const Cluster back = clusterFromJson(o, "c.json");
        QCOMPARE(back, c);
        QCOMPARE(failedNodeNames(back), (std::vector<std::string>{"v100-2", "rtx4090-0"})); // node order
        // Healthy nodes carry no key, so files written before the flag existed read back unchanged.
        const QJsonArray nodes = o.value("nodes").toArray();
        QCOMPARE(nodes[0].toObject().contains("failed"), false);
        QCOMPARE(nodes[2].toObject().value("failed").toBool(), true);
    }

    void badFailedValueIsRefused()
    {
        QJsonObject o = toJson(exampleCluster("ditto-ex3"));
        QJsonArray nodes = o.value("nodes").toArray();
        QJsonObject n = nodes[1].toObject();
        n["failed"] = "yes";
        nodes[1] = n;
        o["nodes"] = nodes;
        const auto e = test::errorOf([&] { clusterFromJson(o, "c.json"); });
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(e->file()), QString("c.json"));
        QVERIFY2(QString::fromStdString(e->field()).contains("nodes[1].failed"), e->what());
    }

    void withoutFailedNodesDropsNodesAndLinks()
    {
        // triangle-like: a-b, b-c, a-c links; b fails -> only a-c remains.
        Cluster c = test::twoNodeCluster("V100-16GB", 2, "T4", 2);
        c.nodes.push_back(Node{"c", "T4", 2, 0, 1.25e9});
        c.links = {Link{"a", "b", 1e9, 1e-5}, Link{"b", "c", 1e9, 1e-5}, Link{"a", "c", 1e9, 1e-5}};
        c.nodes[1].failed = true;
        const Cluster rest = withoutFailedNodes(c);
        QCOMPARE(int(rest.nodes.size()), 2);
        QCOMPARE(rest.nodes[0].name, std::string("a"));
        QCOMPARE(rest.nodes[1].name, std::string("c"));
        QCOMPARE(int(rest.links.size()), 1);
        QCOMPARE(rest.links[0].a + rest.links[0].b, std::string("ac"));
        QCOMPARE(rest, withoutNodes(c, {"b"}, "x"));
    }

    void runPlannerLeavesFailedNodesOutLikeWithout()
    {
        // The same request once with rtx4090-0 marked failed and once --without it: the same plan, made on
        // the 20 remaining GPUs, none of them on the failed node.
        PlanRequest marked = dittoRequest();
        marked.cluster = withFailed(marked.cluster, {"rtx4090-0"});
        PlanRequest removed = dittoRequest();
        removed.cluster = withoutNodes(removed.cluster, {"rtx4090-0"}, "--without");
        Progress p1, p2;
        const Plan a = runPlanner("ditto", marked, p1);
        const Plan b = runPlanner("ditto", removed, p2);
        QCOMPARE(a.cluster, removed.cluster);
        QCOMPARE(a.pipelines, b.pipelines);
        QCOMPARE(a.estimate.iterationSeconds, b.estimate.iterationSeconds);
        QCOMPARE(a.cluster.gpuCount(), 20);
        QVERIFY(!a.cluster.findNode("rtx4090-0"));
        test::checkPipelineInvariants(a);
    }

    void everyNodeFailedIsInfeasible()
    {
        PlanRequest req = dittoRequest();
        for (Node& n : req.cluster.nodes)
            n.failed = true;
        Progress p;
        QVERIFY_THROWS_EXCEPTION(InfeasibleError, runPlanner("ditto", req, p));
    }

    void cliHonoursTheFlagLikeWithout()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("ex3.json").toStdString();
        writeJsonFile(path, toJson(withFailed(exampleCluster("ditto-ex3"), {"rtx4090-0"})));
        const std::vector<std::string> common = {"--model",   "example:gpt2-xl",       "--gbs",     "128",
                                                 "--profile", "example:gpt2-xl-ditto", "--planner", "ditto"};
        const auto plan = [&](std::vector<std::string> args, const std::string& out, std::string* errText) {
            args.insert(args.begin(), "plan");
            args.insert(args.end(), common.begin(), common.end());
            args.insert(args.end(), {"--quiet", "--out", dir.filePath(QString::fromStdString(out)).toStdString()});
            std::ostringstream o, e;
            const int rc = cli::run(args, o, e);
            *errText = e.str();
            return rc;
        };
        std::string err1, err2;
        QCOMPARE(plan({"--cluster", path}, "marked.json", &err1), 0);
        QCOMPARE(plan({"--cluster", "example:ditto-ex3", "--without", "rtx4090-0"}, "without.json", &err2), 0);
        QVERIFY2(err1.find("note: leaving out the node(s) the cluster marks failed: rtx4090-0") != std::string::npos,
                 err1.c_str());
        const Plan a = readPlan(dir.filePath("marked.json").toStdString());
        const Plan b = readPlan(dir.filePath("without.json").toStdString());
        QCOMPARE(a.pipelines, b.pipelines);
        QCOMPARE(a.cluster.gpuCount(), 20);
    }

    void cliEveryNodeFailedExitsThree()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("dead.json").toStdString();
        Cluster c = test::twoNodeCluster("V100-16GB", 2, "T4", 2);
        c.nodes[0].failed = c.nodes[1].failed = true;
        writeJsonFile(path, toJson(c));
        std::ostringstream o, e;
        const int rc = cli::run({"plan", "--cluster", path, "--model", "example:gpt2-xl", "--planner", "ditto"}, o, e);
        QCOMPARE(rc, 3);
        QVERIFY2(e.str().find("marked failed") != std::string::npos, e.str().c_str());
    }
};

QTEST_GUILESS_MAIN(TestFailedNodes)
#include "tst_failed_nodes.moc"
