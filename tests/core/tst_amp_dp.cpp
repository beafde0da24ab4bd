// AMP's layer-assignment dynamic program (eq. 6-8) and the faster threshold walk, against brute force over
// all C(L−1, k−1) splits on random heterogeneous pipelines.
#include "core/planners/amp/layer_dp.h"

#include <QTest>

#include <cmath>
#include <functional>
#include <random>

using namespace hetplan;

class TestAmpDp : public QObject {
    Q_OBJECT

    static void checkBounds(const PipelineProblem& p, const std::vector<int>& b)
    {
        QCOMPARE(int(b.size()), p.stages + 1);
        QCOMPARE(b.front(), 0);
        QCOMPARE(b.back(), p.layers);
        for (int s = 0; s < p.stages; ++s)
            QVERIFY(b[s] < b[s + 1]); // every stage non-empty, layers assigned once
    }

private slots:
    void handComputed()
    {
        // Fast stage 0 (1 s per layer), slow stage 1 (2 s per layer), 0.5 s per cut, gas = 4, L = 4, k = 2.
        //   cut 1: t = (1, 6) → 3·6 + 0.5 + 7 = 25.5
        //   cut 2: t = (2, 4) → 3·4 + 0.5 + 6 = 18.5   (the uniform split)
        //   cut 3: t = (3, 2) → 3·3 + 0.5 + 5 = 14.5   (optimum)
        PipelineProblem p =
            PipelineProblem::fromLayerTimes({{1, 1, 1, 1}, {2, 2, 2, 2}}, {{0.5, 0.5, 0.5, 0.5, 0.5}}, 4);
        QCOMPARE(pipelineCost(p, {0, 1, 4}), 25.5);
        QCOMPARE(pipelineCost(p, {0, 2, 4}), 18.5);
        QCOMPARE(pipelineCost(p, {0, 3, 4}), 14.5);
        for (const LayerSplit& s : {solveLayerSplit(p), solveLayerSplitAmp(p), solveLayerSplitBruteForce(p)}) {
            QCOMPARE(s.bounds, (std::vector<int>{0, 3, 4}));
            QCOMPARE(s.cost, 14.5);
        }
    }

    void cutsPullBoundaries()
    {
        // Equal stages but a very expensive cut after layer 2: gas = 1 so cost = Σt + e.
        // Splits of 4 layers into 2 stages, all Σt = 4: e = 1 (cut 1), 10 (cut 2), 1 (cut 3) → cost 5.
        PipelineProblem p = PipelineProblem::fromLayerTimes({{1, 1, 1, 1}, {1, 1, 1, 1}}, {{0, 1, 10, 1, 0}}, 1);
        const LayerSplit s = solveLayerSplit(p);
        QCOMPARE(s.cost, 5.0);
        QVERIFY(s.bounds[1] != 2);
        QCOMPARE(solveLayerSplitAmp(p).cost, 5.0);
    }

    void tooManyStages()
    {
        PipelineProblem p = PipelineProblem::fromLayerTimes({{1, 1}, {1, 1}, {1, 1}}, {{0, 0, 0}, {0, 0, 0}}, 2);
        QVERIFY(solveLayerSplit(p).bounds.empty());
        QVERIFY(solveLayerSplitAmp(p).bounds.empty());
        QVERIFY(solveLayerSplitBruteForce(p).bounds.empty());
    }

    void randomAgainstBruteForce()
    {
        // ≥ 200 seeded instances, L ≤ 12, k ≤ 5. Stages differ (device speed factors, and half of them take
        // the max of two replica vectors); half use small integers so ties and equal stage times occur.
        std::mt19937_64 rng(20240607);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        int checked = 0, nonUniformWins = 0, noSplit = 0;
        for (int inst = 0; inst < 300; ++inst) {
            const int L = 1 + int(rng() % 12);
            const int k = 1 + int(rng() % std::min(5, L));
            const int gas = 1 + int(rng() % 8);
            const bool integers = inst % 2 == 0;
            auto draw = [&](double scale) { return integers ? double(rng() % 4) : scale * u(rng); };
            std::vector<double> base(L);
            for (double& x : base)
                x = draw(1.0);
            PipelineProblem p;
            p.layers = L;
            p.stages = k;
            p.gas = gas;
            for (int s = 0; s < k; ++s) {
                const double speed = integers ? double(1 + rng() % 3) : 0.3 + 2 * u(rng);
                const int replicas = 1 + int(rng() % 2);
                std::vector<std::shared_ptr<const std::vector<double>>> sigs;
                for (int r = 0; r < replicas; ++r) {
                    auto pre = std::make_shared<std::vector<double>>(L + 1, 0.0);
                    for (int l = 0; l < L; ++l)
                        (*pre)[l + 1] = (*pre)[l] + speed * base[l] + (r > 0 ? draw(0.5) : 0.0);
                    sigs.push_back(pre);
                }
                p.stagePrefix.push_back(sigs);
            }
            for (int s = 0; s + 1 < k; ++s) {
                std::vector<double> cut(L + 1);
                for (double& c : cut)
                    c = draw(0.4);
                p.cut.push_back(cut);
            }

            // A third of the instances forbid ~20 % of the (stage, first, end) triples (memory limits).
            if (inst % 3 == 1) {
                p.allowed.assign(size_t(k) * (L + 1) * (L + 1), 1);
                for (char& a : p.allowed)
                    a = u(rng) > 0.2;
            }

            const LayerSplit brute = solveLayerSplitBruteForce(p);
            if (brute.bounds.empty()) { // no allowed split at all: everyone must say so
                QVERIFY(!p.allowed.empty());
                QVERIFY(solveLayerSplit(p).bounds.empty());
                QVERIFY(solveLayerSplitAmp(p).bounds.empty());
                ++noSplit;
                continue;
            }
            const LayerSplit fast = solveLayerSplit(p);
            const LayerSplit paper = solveLayerSplitAmp(p);
            const double tol = 1e-9 * std::max(1.0, brute.cost);
            checkBounds(p, fast.bounds);
            checkBounds(p, paper.bounds);
            for (int st = 0; st < k; ++st) {
                QVERIFY(p.allows(st, fast.bounds[st], fast.bounds[st + 1]));
                QVERIFY(p.allows(st, paper.bounds[st], paper.bounds[st + 1]));
            }
            QVERIFY2(std::abs(fast.cost - brute.cost) <= tol,
                     qPrintable(QString("instance %1: fast %2 vs brute %3").arg(inst).arg(fast.cost).arg(brute.cost)));
            QVERIFY2(
                std::abs(paper.cost - brute.cost) <= tol,
                qPrintable(QString("instance %1: paper %2 vs brute %3").arg(inst).arg(paper.cost).arg(brute.cost)));
            // The reported cost is the eq. 5 cost of the returned split.
            QVERIFY(std::abs(pipelineCost(p, fast.bounds) - fast.cost) <= tol);
            QVERIFY(std::abs(pipelineCost(p, paper.bounds) - paper.cost) <= tol);
            ++checked;
            std::vector<int> even(k + 1);
            for (int s = 0; s <= k; ++s)
                even[s] = s * L / k;
            if (p.allowed.empty() && brute.cost + tol < pipelineCost(p, even))
                ++nonUniformWins;
        }
        QVERIFY(checked >= 200);
        QVERIFY(nonUniformWins > 50); // the instances really are heterogeneous
        qInfo("checked %d random instances (%d more without any allowed split); the optimum beat the even split "
              "in %d",
              checked, noSplit, nonUniformWins);
    }

    void forbiddenStages()
    {
        // The hand case above with stage 0 unable to hold 3 layers (say, memory): [0, 3) forbidden →
        // the best allowed split is cut 2 (18.5); forbidding [2, 4) on stage 1 as well leaves cut 1 (25.5).
        PipelineProblem p =
            PipelineProblem::fromLayerTimes({{1, 1, 1, 1}, {2, 2, 2, 2}}, {{0.5, 0.5, 0.5, 0.5, 0.5}}, 4);
        p.allowed.assign(2 * 5 * 5, 1);
        p.allowed[(0 * 5 + 0) * 5 + 3] = 0;
        for (const LayerSplit& s : {solveLayerSplit(p), solveLayerSplitAmp(p), solveLayerSplitBruteForce(p)}) {
            QCOMPARE(s.bounds, (std::vector<int>{0, 2, 4}));
            QCOMPARE(s.cost, 18.5);
        }
        p.allowed[(1 * 5 + 2) * 5 + 4] = 0;
        for (const LayerSplit& s : {solveLayerSplit(p), solveLayerSplitAmp(p), solveLayerSplitBruteForce(p)})
            QCOMPARE(s.cost, 25.5);
        p.allowed[(0 * 5 + 0) * 5 + 1] = 0; // nothing left
        QVERIFY(solveLayerSplit(p).bounds.empty());
        QVERIFY(solveLayerSplitAmp(p).bounds.empty());
    }

    void fastDoesLessWork()
    {
        // A GPT-sized problem (L = 30, k = 8, two device types): same optimum, far fewer inner steps.
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> u(0.5, 1.5);
        const int L = 30, k = 8;
        std::vector<std::vector<double>> times(k, std::vector<double>(L));
        for (int s = 0; s < k; ++s)
            for (int l = 0; l < L; ++l)
                times[s][l] = (s >= 6 ? 2.5 : 1.0) * u(rng);
        std::vector<std::vector<double>> cut(k - 1, std::vector<double>(L + 1));
        for (auto& c : cut)
            for (double& x : c)
                x = 0.1 * u(rng);
        const PipelineProblem p = PipelineProblem::fromLayerTimes(times, cut, 16);
        const LayerSplit fast = solveLayerSplit(p), paper = solveLayerSplitAmp(p);
        QVERIFY(std::abs(fast.cost - paper.cost) <= 1e-9 * paper.cost);
        QVERIFY(fast.evaluations * 100 < paper.evaluations);
        qInfo("L=30 k=8: fast DP %lld inner steps, paper DP %lld", fast.evaluations, paper.evaluations);
    }

    void goalStopsTheWalkEarly()
    {
        // The hand case (optimum 14.5 at cut 3). A goal above the optimum: the walk may return as soon as it
        // holds a split below the goal, and says so; a goal at or below the optimum changes nothing.
        PipelineProblem p =
            PipelineProblem::fromLayerTimes({{1, 1, 1, 1}, {2, 2, 2, 2}}, {{0.5, 0.5, 0.5, 0.5, 0.5}}, 4);
        p.goal = 20;
        const LayerSplit early = solveLayerSplit(p);
        QVERIFY(early.belowGoal);
        QVERIFY(early.cost < 20);
        QCOMPARE(pipelineCost(p, early.bounds), early.cost);
        for (double goal : {14.5, 10.0}) {
            p.goal = goal;
            const LayerSplit full = solveLayerSplit(p);
            QVERIFY(!full.belowGoal);
            QCOMPARE(full.bounds, (std::vector<int>{0, 3, 4}));
            QCOMPARE(full.cost, 14.5);
        }
    }

    void limitsAgainstBruteForce()
    {
        // hasSplitWithinLimits against every split of ≥ 300 random instances (L ≤ 10, k ≤ 4): stage s may
        // hold [a, b) iff b ≤ lastEnd[s][a]. Short limits make many instances infeasible.
        std::mt19937_64 rng(1609);
        int feasible = 0, infeasible = 0;
        for (int inst = 0; inst < 400; ++inst) {
            const int L = 1 + int(rng() % 10);
            const int k = 1 + int(rng() % std::min(4, L));
            std::vector<std::vector<int>> lastEnd(k, std::vector<int>(L + 1));
            for (auto& row : lastEnd)
                for (int a = 0; a <= L; ++a)
                    row[a] = a + int(rng() % (L / k + 3)) - 1; // a − 1 (none) .. a + L/k + 1, maybe past L
            bool any = false;
            std::vector<int> b(k + 1, 0);
            b[k] = L;
            std::function<void(int)> pick = [&](int s) { // b[s] for s = 1 .. k−1, then check every stage
                if (s == k) {
                    bool ok = true;
                    for (int j = 0; j < k; ++j)
                        ok = ok && b[j + 1] <= lastEnd[j][b[j]];
                    any = any || ok;
                    return;
                }
                for (int x = b[s - 1] + 1; x <= L - (k - s); ++x) {
                    b[s] = x;
                    pick(s + 1);
                }
            };
            pick(1);
            QVERIFY2(hasSplitWithinLimits(lastEnd, L) == any, qPrintable(QString("instance %1").arg(inst)));
            (any ? feasible : infeasible) += 1;
        }
        QVERIFY(feasible > 50);
        QVERIFY(infeasible > 50);
    }
};

QTEST_GUILESS_MAIN(TestAmpDp)
#include "tst_amp_dp.moc"
