// parallelFor (core/base/parallel_for.h): every index exactly once, on several threads, and the first
// exception back on the caller after all threads have finished.
#include "core/base/parallel_for.h"

#include <QTest>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace hetplan;

class TestParallelFor : public QObject {
    Q_OBJECT
private slots:
    void everyIndexOnce_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<unsigned>("threads");
        QTest::newRow("none") << 0 << 4u;
        QTest::newRow("one") << 1 << 4u;
        QTest::newRow("fewer than threads") << 3 << 8u;
        QTest::newRow("many") << 1000 << 4u;
        QTest::newRow("single thread") << 50 << 1u;
        QTest::newRow("hardware default") << 200 << 0u;
    }
    void everyIndexOnce()
    {
        QFETCH(int, count);
        QFETCH(unsigned, threads);
        std::vector<std::atomic<int>> hits(size_t(std::max(count, 1)));
        parallelFor(count, [&](int i) { ++hits[size_t(i)]; }, threads);
        for (int i = 0; i < count; ++i)
            QCOMPARE(hits[size_t(i)].load(), 1);
    }

    // With 4 threads and calls that wait until 4 are running at once, the loop must use 4 threads
    // (a serial loop would never get past the first call, so a bound on the wait catches it).
    void usesTheThreadsItIsGiven()
    {
        std::atomic<int> running{0};
        std::atomic<bool> allMet{false};
        std::mutex m;
        std::set<std::thread::id> ids;
        parallelFor(
            4,
            [&](int) {
                {
                    std::lock_guard<std::mutex> lock(m);
                    ids.insert(std::this_thread::get_id());
                }
                ++running;
                for (int spin = 0; spin < 2000000 && running.load() < 4; ++spin)
                    std::this_thread::yield();
                if (running.load() == 4)
                    allMet = true;
            },
            4);
        QVERIFY(allMet.load());
        QCOMPARE(int(ids.size()), 4);
        QVERIFY(ids.count(std::this_thread::get_id())); // the caller works too
    }

    void firstExceptionReachesTheCaller()
    {
        std::atomic<int> calls{0};
        bool threw = false;
        try {
            parallelFor(
                100,
                [&](int i) {
                    ++calls;
                    if (i == 10)
                        throw std::runtime_error("ten");
                },
                2);
        } catch (const std::runtime_error& e) {
            threw = std::string(e.what()) == "ten";
        }
        QVERIFY(threw);
        QVERIFY(calls.load() >= 11 && calls.load() <= 100);
    }
};

QTEST_GUILESS_MAIN(TestParallelFor)
#include "tst_parallel_for.moc"
