// Objectives, constraints and the GPU selection layer (core/planners/objective.h, selection.h): the rules
// on hand-made estimates, the subsets tried on a hand-built cluster, and the chosen plan against a
// brute-force oracle that runs the planner on every subset itself.
#include "example_request.h"
#include "testutil.h"

#include "core/base/errors.h"
#include "core/planners/selection.h"

#include <QJsonArray>
#include <QTest>

#include <limits>

using namespace hetplan;

namespace {
Estimate priced(double seconds, double tokens, double dollarsPerHour)
{
    Estimate e;
    e.iterationSeconds = seconds;
    e.tokensPerSecond = tokens;
    e.cost = PlanCost{dollarsPerHour, dollarsPerHour / (tokens * 3600) * 1e6};
    return e;
}

Node node(const std::string& name, const std::string& type, int gpus, double nic = 0)
{
    Node n;
    n.name = name;
    n.deviceType = type;
    n.gpus = gpus;
    n.nicBandwidth = nic;
    return n;
}

// ditto-ex5 with a price on the RTX 3090s (the catalog has none): every subset can be priced.
PlanRequest pricedEx5()
{
    PlanRequest req = test::exampleRequest("ditto-ex5", "gpt2-xl", 32);
    for (Node& n : req.cluster.nodes)
        if (n.deviceType == "RTX-3090")
            n.pricePerGpuHour = 0.40;
    return req;
}

// The oracle: the planner on every candidate subset, without the selection layer.
std::vector<Plan> everySubset(const std::string& planner, PlanRequest req)
{
    std::vector<Plan> out;
    req.objective = {};
    req.selectGpus = false;
    const Cluster full = req.cluster;
    for (const NodeSubset& s : candidateSubsets(full)) {
        req.cluster = s.leftOut.empty() ? full : withoutNodes(full, s.leftOut, "test");
        Progress progress;
        try {
            out.push_back(runPlanner(planner, req, progress));
        } catch (const InfeasibleError&) {
        }
    }
    return out;
}
// The InfeasibleError text `planner` refuses `req` with; "no refusal" when it plans (the caller's check fails).
QString infeasibleMessage(const std::string& planner, const PlanRequest& req)
{
    Progress progress;
    try {
        runPlanner(planner, req, progress);
    } catch (const InfeasibleError& e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("no refusal: a plan was returned");
}
} // namespace

class TestSelection : public QObject {
    Q_OBJECT
private slots:
    void constraintsAndGoals()
    {
        const Estimate e = priced(2.0, 1000, 10.0);
        QVERIFY(!objectiveMiss(Objective{}, e));
        QVERIFY(!objectiveMiss(Objective{Objective::Goal::Time, 10.0, 0}, e)); // exactly the budget
        const auto over = objectiveMiss(Objective{Objective::Goal::Time, 9.0, 0}, e);
        QVERIFY(over && over->find("over the $9/h budget") != std::string::npos);
        QVERIFY(!objectiveMiss(Objective{Objective::Goal::Cost, 0, 1000}, e));
        const auto under = objectiveMiss(Objective{Objective::Goal::Cost, 0, 1001}, e);
        QVERIFY(under && under->find("under the 1001 tokens/s floor") != std::string::npos);
        Estimate unpriced = e;
        unpriced.cost.reset();
        unpriced.unpricedDeviceTypes = {"RTX-3090"};
        QVERIFY(!objectiveMiss(Objective{}, unpriced)); // time needs no price
        const auto noPrice = objectiveMiss(Objective{Objective::Goal::Cost, 0, 0}, unpriced);
        QVERIFY(noPrice && noPrice->find("RTX-3090") != std::string::npos);

        // Time: the shorter iteration. Cost: fewer $ per M tokens ($10/h at 1000 tokens/s is $2.78/M,
        // $5/h at 600 tokens/s $2.31/M); equal cost per token goes to the faster plan.
        const Objective time{}, cost{Objective::Goal::Cost, 0, 0};
        const Estimate fast = priced(2.0, 1000, 10.0), cheap = priced(3.3, 600, 5.0);
        QVERIFY(betterUnder(time, fast, cheap) && !betterUnder(time, cheap, fast));
        QVERIFY(betterUnder(cost, cheap, fast) && !betterUnder(cost, fast, cheap));
        const Estimate twiceAsBig = priced(1.0, 2000, 20.0); // the same $/M tokens, faster
        QVERIFY(betterUnder(cost, twiceAsBig, fast) && !betterUnder(cost, fast, twiceAsBig));
        QCOMPARE(describe(Objective{Objective::Goal::Cost, 0, 5000}), std::string("cheapest per token at 5000 tokens/s or more"));
    }

    void frontierKeepsTheUndominated()
    {
        const std::vector<FrontierPoint> points{
            {1, 100, "a"}, {2, 90, "b"}, {2, 150, "c"}, {3, 150, "d"}, {0.5, 50, "e"}, {4, 160, "f"}};
        // b is dearer and slower than a; d costs more than c for the same speed.
        const std::vector<FrontierPoint> f = costFrontier(points);
        QCOMPARE(int(f.size()), 4);
        QCOMPARE(f[0].label, std::string("e"));
        QCOMPARE(f[1].label, std::string("a"));
        QCOMPARE(f[2].label, std::string("c"));
        QCOMPARE(f[3].label, std::string("f"));
    }

    void subsetsOfAHandBuiltCluster()
    {
        // A: 2 nodes, B: 4 nodes (b2 and b3 with the faster NIC), C: 1 node.
        Cluster c;
        c.name = "three";
        c.nodes = {node("a0", "A100-40GB", 4), node("a1", "A100-40GB", 4), node("b0", "V100-16GB", 4, 1e9),
                   node("b1", "V100-16GB", 4, 1e9), node("b2", "V100-16GB", 4, 5e9), node("b3", "V100-16GB", 4, 5e9),
                   node("c0", "T4", 4)};
        const std::vector<NodeSubset> s = candidateSubsets(c);
        // every node; 6 proper type subsets; 1 of 2 A; 2 and 3 of 4 B; a quarter and a half of every type
        // (three quarters of every type is "3 of 4 B" again and is dropped).
        QCOMPARE(int(s.size()), 12);
        QVERIFY(s[0].leftOut.empty());
        QCOMPARE(s[0].why, std::string("every node"));
        const auto find = [&](const std::string& why) -> const NodeSubset* {
            for (const NodeSubset& x : s)
                if (x.why == why)
                    return &x;
            return nullptr;
        };
        const NodeSubset* noT4 = find("without T4");
        QVERIFY(noT4);
        QCOMPARE(noT4->leftOut, (std::vector<std::string>{"c0"}));
        QVERIFY(find("without A100-40GB, V100-16GB"));
        const NodeSubset* halfB = find("2 of 4 V100-16GB nodes");
        QVERIFY(halfB);
        QCOMPARE(halfB->leftOut, (std::vector<std::string>{"b0", "b1"})); // the faster NICs stay
        QVERIFY(find("25 % of every type's nodes"));
        for (const NodeSubset& x : s)
            QVERIFY(x.leftOut.size() < c.nodes.size());

        // Beyond four types only one type at a time is left out: six types give six such subsets, not 62.
        Cluster six;
        for (const char* type : {"A100-40GB", "V100-16GB", "T4", "L4", "RTX-3090", "H100-SXM"})
            six.nodes.push_back(node(std::string(type) + "-0", type, 4));
        int withoutOne = 0;
        for (const NodeSubset& x : candidateSubsets(six))
            withoutOne += x.why.rfind("without ", 0) == 0;
        QCOMPARE(withoutOne, 6);
    }

    void poplarBDropsTheT4sAtZero2And3()
    {
        for (int stage : {2, 3}) {
            PlanRequest req = test::exampleRequest("poplar-b", "gpt2-amp", 16);
            req.job.zeroStage = stage;
            Progress p1, p2, p3;
            const Plan full = runPlanner("poplar", req, p1);
            PlanRequest v100s = req;
            v100s.cluster = withoutNodes(req.cluster, {"t4-0"}, "test");
            const Plan alone = runPlanner("poplar", v100s, p2);
            QVERIFY2(alone.estimate.iterationSeconds < full.estimate.iterationSeconds,
                     "the premise: the V100s alone are faster than all four GPUs");
            req.selectGpus = true;
            const Plan chosen = runPlanner("poplar", req, p3);
            const QJsonObject s = chosen.details.at("selection");
            QCOMPARE(s.value("left_out").toArray().size(), 1);
            QCOMPARE(s.value("left_out").toArray()[0].toObject().value("node").toString(), QString("t4-0"));
            QVERIFY(s.value("why").toString().contains("faster than the plan on every node"));
            QCOMPARE(chosen.estimate.iterationSeconds, alone.estimate.iterationSeconds);
            QCOMPARE(chosen.cluster.gpuCount(), 2);
        }
    }

    void budgetPicksTheFastestPlanWithinIt()
    {
        PlanRequest req = pricedEx5();
        req.objective.budgetDollarsPerHour = 20;
        double oracle = std::numeric_limits<double>::infinity();
        for (const Plan& p : everySubset("amp", req))
            if (p.estimate.cost && p.estimate.cost->dollarsPerHour <= 20)
                oracle = std::min(oracle, p.estimate.iterationSeconds);
        QVERIFY(std::isfinite(oracle));
        Progress progress;
        const Plan chosen = runPlanner("amp", req, progress);
        QVERIFY(chosen.estimate.cost && chosen.estimate.cost->dollarsPerHour <= 20);
        QCOMPARE(chosen.estimate.iterationSeconds, oracle);
        QVERIFY(!selectionPoints(chosen).empty());
    }

    void cheapestPerTokenAboveAFloor()
    {
        PlanRequest req = pricedEx5();
        req.objective = Objective{Objective::Goal::Cost, 0, 20000};
        double oracle = std::numeric_limits<double>::infinity();
        for (const Plan& p : everySubset("amp", req))
            if (p.estimate.cost && p.estimate.tokensPerSecond >= 20000)
                oracle = std::min(oracle, p.estimate.cost->dollarsPerMillionTokens);
        QVERIFY(std::isfinite(oracle));
        Progress progress;
        const Plan chosen = runPlanner("amp", req, progress);
        QVERIFY(chosen.estimate.cost && chosen.estimate.tokensPerSecond >= 20000);
        QCOMPARE(chosen.estimate.cost->dollarsPerMillionTokens, oracle);
    }

    void anImpossibleBudgetIsRefusedWithTheClosestMiss()
    {
        PlanRequest req = pricedEx5();
        req.objective.budgetDollarsPerHour = 0.01;
        const QString refusal = infeasibleMessage("amp", req);
        QVERIFY2(refusal.contains("over the $0.01/h budget"), qPrintable(refusal));
        Progress progress;
        req.objective = {};
        req.selectGpus = true;
        QVERIFY_THROWS_EXCEPTION(InputError, runPlanner("no-such-planner", req, progress));
        // An option no subset can satisfy is the user's input error (exit 2), not "no plan": uniform's tp 3
        // does not divide gpt2-xl's 25 heads, whichever GPUs are used.
        req.options["tp"] = "3";
        const std::optional<InputError> e = test::errorOf([&] { runPlanner("uniform", req, progress); });
        QVERIFY(e);
        QVERIFY2(QString(e->what()).contains("tp"), e->what());
    }

    void closestMissIsNamed()
    {
        // Every subset of poplar-b costs more than $0.5/h; the cheapest (the two T4s, $1.05/h) is the
        // closest miss (the catalog: $0.526 per T4-hour), whichever subset was tried first.
        PlanRequest req = test::exampleRequest("poplar-b", "gpt2-amp", 16);
        req.objective.budgetDollarsPerHour = 0.5;
        const QString refusal = infeasibleMessage("poplar", req);
        QVERIFY2(refusal.contains("the plan without V100-16GB costs $1.052/h"), qPrintable(refusal));
    }
};

QTEST_GUILESS_MAIN(TestSelection)
#include "tst_selection.moc"
