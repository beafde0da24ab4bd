// The What-if tab in the main window: a gbs sweep of amp and megatron on amp-het-cluster
// draws a line per planner with a point per value and a table row per (value, planner) whose times are
// those of the core sweep the CLI runs (runSweep) on the same input; bad values are refused under the field
// and start nothing; Cancel stops a sweep. The worst event-loop gap while a sweep runs is printed (a figure
// for the report, not asserted).
#include "testutil.h"

#include "app/gui/main_window.h"
#include "core/planners/sweep.h"
#include "widgets/common/palette.h"
#include "widgets/controller/live_controller.h"
#include "widgets/controller/sweep_controller.h"
#include "widgets/panels/run_panel.h"
#include "widgets/panels/whatif_panel.h"
#include "widgets/views/whatif_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QCompleter>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

#include <algorithm>

using namespace hetplan;

namespace {

// The longest time the GUI thread's event loop went without serving a 5 ms timer.
class GapProbe {
public:
    GapProbe()
    {
        timer_.setInterval(5);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            worst_ = std::max(worst_, clock_.restart());
        });
        clock_.start();
        timer_.start();
    }
    qint64 worstMs() const { return worst_; }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 worst_ = 0;
};

void openAmp(MainWindow& w, const std::vector<std::string>& planners)
{
    w.setInteractive(false);
    w.openExample("amp-het-cluster", "gpt2-amp");
    w.runPanel()->setChecked(planners);
    w.tabs()->setCurrentWidget(w.whatIf());
}

bool runSweepIn(WhatIfPanel& panel, const std::string& axis, const QString& values)
{
    panel.setParameter(axis);
    panel.valuesEdit()->setText(values);
    QSignalSpy done(&panel, &WhatIfPanel::sweepFinished);
    panel.runButton()->click();
    return panel.isRunning() && done.wait(test::kHangGuardMs);
}

} // namespace

class TestWhatIfWindow : public QObject {
    Q_OBJECT

private slots:
    void gbsSweepDrawsALinePerPlannerAndTheCoreSweepsRows()
    {
        MainWindow w;
        w.resize(1280, 800);
        openAmp(w, {"amp", "megatron"});
        WhatIfPanel& panel = *w.whatIf();
        QVERIFY(panel.plannersLabel()->text().contains("amp, megatron"));
        GapProbe probe;
        QVERIFY(runSweepIn(panel, "gbs", "16,32,64"));
        qInfo("worst event-loop gap while the sweep ran: %lld ms", probe.worstMs());
        QVERIFY(!panel.progressBar()->isVisible() && panel.runButton()->isEnabled());

        // The same input through the core sweep, as `hetplan-cli sweep --vary gbs=16,32,64` plans it.
        const PlanRequest base = *currentPlanRequest(*w.document());
        std::vector<std::pair<SweepPoint, PlanRequest>> requests;
        for (int gbs : {16, 32, 64}) {
            const SweepPoint point{{"gbs", std::to_string(gbs)}};
            requests.emplace_back(point, applySweepPoint(base, point, {}));
        }
        const std::vector<SweepRow> expected = runSweep(requests, {"amp", "megatron"}, 1);
        QCOMPARE(expected.size(), size_t(6));

        // Two lines (amp, megatron) of three points at x = 16, 32, 64.
        const QCustomPlot* plot = panel.view()->plot();
        QVERIFY(!panel.view()->isEmpty());
        QCOMPARE(plot->graphCount(), 2);
        for (int g = 0; g < 2; ++g) {
            QCOMPARE(plot->graph(g)->name(), g == 0 ? QString("amp") : QString("megatron"));
            QCOMPARE(plot->graph(g)->dataCount(), 3);
            for (int i = 0; i < 3; ++i) {
                QCOMPARE(plot->graph(g)->data()->at(i)->key, double(16 << i));
                const SweepRow& row = expected[size_t(i * 2 + g)];
                if (row.status == RunStatus::Ok && row.feasible)
                    QCOMPARE(plot->graph(g)->data()->at(i)->value, row.iterationSeconds * 1e3); // ms
                else
                    QVERIFY(std::isnan(plot->graph(g)->data()->at(i)->value));
            }
        }
        // Six table rows, value by value, planners in order, with the core sweep's times.
        const QTableWidget* table = panel.table();
        QCOMPARE(table->rowCount(), 6);
        int withPlan = 0;
        for (int r = 0; r < 6; ++r) {
            const SweepRow& row = expected[size_t(r)];
            QCOMPARE(table->item(r, 0)->text(), QString::number(16 << (r / 2)));
            QCOMPARE(table->item(r, 1)->text(), QString::fromStdString(row.planner));
            QCOMPARE(panel.controller()->rows()[size_t(r)].iterationSeconds, row.iterationSeconds);
            if (row.status == RunStatus::Ok && row.feasible) {
                ++withPlan;
                QCOMPARE(table->item(r, 2)->text(), QString::number(row.iterationSeconds * 1e3, 'f', 1));
                QVERIFY(table->item(r, 5)->toolTip().isEmpty());
            } else {
                QVERIFY(!row.error.empty());
                QVERIFY(!table->item(r, 5)->toolTip().isEmpty()); // why there is no plan
            }
        }
        QVERIFY(withPlan > 0);

        // tokens/s: the same points, another metric; the selector in the view's tool bar switches it.
        panel.view()->metricBox()->setCurrentIndex(1);
        QCOMPARE(panel.view()->metric(), WhatIfView::Metric::TokensPerSecond);
        QCOMPARE(panel.view()->plot()->graph(0)->dataCount(), 3);
        if (expected[0].status == RunStatus::Ok && expected[0].feasible)
            QCOMPARE(panel.view()->plot()->graph(0)->data()->at(0)->value, expected[0].tokensPerSecond);
        panel.view()->metricBox()->setCurrentIndex(0);

        // With HETPLAN_SCREENSHOTS set: docs/screenshots/whatif.png, the window on the What-if tab.
        if (const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOTS"); !dir.isEmpty()) {
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.grab().save(QDir(dir).filePath("whatif.png")));
        }
    }

    // The sweep plans with the Run tab's options, as a run does: uniform with pp = 4 set there.
    void sweepUsesTheRunTabsOptions()
    {
        MainWindow w;
        openAmp(w, {"uniform"});
        auto* pp = qobject_cast<QSpinBox*>(w.runPanel()->optionEditor("uniform", "pp"));
        QVERIFY(pp);
        pp->setValue(4);
        WhatIfPanel& panel = *w.whatIf();
        QVERIFY(runSweepIn(panel, "gbs", "32"));
        QCOMPARE(panel.controller()->rows().size(), size_t(1));

        const PlanRequest base = *currentPlanRequest(*w.document());
        const SweepPoint point{{"gbs", "32"}};
        const std::vector<std::pair<SweepPoint, PlanRequest>> requests{{point, applySweepPoint(base, point, {})}};
        const SweepRow withPp4 = runSweep(requests, {"uniform"}, 1, {}, {}, {{"uniform", {{"pp", "4"}}}})[0];
        const SweepRow byDefault = runSweep(requests, {"uniform"}, 1)[0];
        QCOMPARE(toString(withPp4.status), std::string("ok"));
        QVERIFY(withPp4.iterationSeconds != byDefault.iterationSeconds); // the option changes the plan ...
        QCOMPARE(panel.controller()->rows()[0].iterationSeconds, withPp4.iterationSeconds); // ... and it got there
    }

    void badValuesAreRefusedUnderTheFieldAndStartNothing()
    {
        MainWindow w;
        openAmp(w, {"amp"});
        WhatIfPanel& panel = *w.whatIf();
        struct Case {
            std::string axis;
            QString values, says;
        };
        const Case cases[] = {
            {"gbs", "16,abc", "Global batch size: expected whole numbers from 1 to"},
            {"gbs", "16,", "got ''"},
            {"gbs", "16,16", "value '16' given twice"},
            {"gbs", "", "Global batch size: enter one or more values"},
            {"zero", "0,5", "ZeRO stage: expected whole numbers from 0 to 3, got '5'"},
            {"without", "no-such-node", "no-such-node"}, // known only against the cluster: checked on Run
        };
        for (const Case& c : cases) {
            panel.setParameter(c.axis);
            panel.valuesEdit()->setText(c.values);
            QVERIFY2(!panel.startSweep(), qPrintable(c.values));
            QVERIFY(!panel.isRunning());
            QVERIFY2(panel.errorLabel()->isVisibleTo(&panel), qPrintable(c.values));
            QVERIFY2(panel.errorLabel()->text().contains(c.says), qPrintable(panel.errorLabel()->text()));
            QVERIFY(!panel.errorLabel()->text().contains("--vary")); // GUI words, not the CLI's flag
            QCOMPARE(panel.table()->rowCount(), 0);
            QVERIFY(panel.view()->isEmpty());
        }
        // A good value clears the message as it is typed.
        panel.setParameter("gbs");
        panel.valuesEdit()->setText("16, 32");
        QVERIFY(!panel.errorLabel()->isVisibleTo(&panel));
        // No ticked planner: refused too.
        w.runPanel()->setChecked({});
        QVERIFY(!panel.startSweep());
        QVERIFY(panel.errorLabel()->text().contains("Tick at least one planner"));
    }

    void runSweepOnlyForValuesThatRun()
    {
        MainWindow w;
        openAmp(w, {"amp"});
        WhatIfPanel& panel = *w.whatIf();
        panel.refreshPlanners();
        panel.setParameter("gbs");
        panel.valuesEdit()->setText("16,abc");
        QVERIFY(!panel.runButton()->isEnabled()); // not a click that silently does nothing
        QVERIFY(panel.runButton()->toolTip().contains("Correct the values"));
        panel.valuesEdit()->setText("16,32");
        QVERIFY(panel.runButton()->isEnabled());

        // Another parameter starts from values that suit it, and the batch sizes come back with gbs.
        panel.setParameter("zero");
        QCOMPARE(panel.valuesEdit()->text(), QString("0,1,2,3"));
        QVERIFY(!panel.errorLabel()->isVisibleTo(&panel) && panel.runButton()->isEnabled());
        panel.setParameter("without");
        QCOMPARE(panel.valuesEdit()->text(), QString("none,p3-0")); // the cluster's first node
        QVERIFY(panel.runButton()->isEnabled());
        panel.setParameter("gbs");
        QCOMPARE(panel.valuesEdit()->text(), QString("16,32"));

        // A node name is checked as typed, in this tab's words, with the names to choose from.
        panel.setParameter("without");
        panel.valuesEdit()->setText("none,16");
        QVERIFY(!panel.runButton()->isEnabled());
        const QString error = panel.errorLabel()->text();
        QVERIFY2(error.startsWith("Without node: ") && error.contains("'16'"), qPrintable(error));
        QVERIFY2(!error.contains("What-if without") && error.contains("(nodes: p3-0, p3-1, p3-2, g4dn-0)"),
                 qPrintable(error));
        // ... and the field completes node names after the last comma.
        QCompleter* completer = panel.valuesEdit()->completer();
        QVERIFY(completer);
        completer->setCompletionPrefix("g4");
        QCOMPARE(completer->currentCompletion(), QString("none,g4dn-0")); // the earlier values kept
        QCOMPARE(completer->splitPath("none,g4"), QStringList{"g4"});

        w.runPanel()->setChecked({});
        panel.refreshPlanners();
        panel.valuesEdit()->setText("none");
        QVERIFY(!panel.runButton()->isEnabled());
        QVERIFY(panel.runButton()->toolTip().contains("Tick at least one planner"));
    }

    void withoutSweepDrawsBarsInEachPlannersOwnColour()
    {
        MainWindow w;
        openAmp(w, {"amp", "megatron"});
        WhatIfPanel& panel = *w.whatIf();
        QVERIFY(runSweepIn(panel, "without", "none,g4dn-0"));
        QCustomPlot* plot = panel.view()->plot();
        QCOMPARE(plot->plottableCount(), 2);
        QCOMPARE(plot->graphCount(), 0); // categories: no lines across them
        const auto* amp = qobject_cast<QCPBars*>(plot->plottable(0));
        QVERIFY(amp && amp->name() == "amp");
        QCOMPARE(amp->brush().color(), palette::plannerColor("amp"));
        QCOMPARE(amp->dataCount(), 2);
        QCOMPARE(amp->data()->at(0)->value, panel.controller()->rows()[0].iterationSeconds * 1e3);

        // A sweep of megatron alone: megatron keeps its colour (it is the first series now).
        w.runPanel()->setChecked({"megatron"});
        QVERIFY(runSweepIn(panel, "without", "none"));
        const auto* megatron = qobject_cast<QCPBars*>(panel.view()->plot()->plottable(0));
        QVERIFY(megatron && megatron->name() == "megatron");
        QCOMPARE(megatron->brush().color(), palette::plannerColor("megatron"));
        QVERIFY(palette::plannerColor("megatron") != palette::plannerColor("amp"));
    }

    void cancelStopsTheSweep()
    {
        MainWindow w;
        openAmp(w, {"amp", "megatron"});
        WhatIfPanel& panel = *w.whatIf();
        panel.setParameter("gbs");
        panel.valuesEdit()->setText("8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128");
        QSignalSpy done(&panel, &WhatIfPanel::sweepFinished);
        QVERIFY(panel.startSweep());
        QVERIFY(panel.cancelButton()->isEnabled() && !panel.runButton()->isEnabled());
        panel.cancelButton()->click();
        QVERIFY(done.wait(test::kHangGuardMs));
        QVERIFY(panel.controller()->wasCancelled());
        const auto& rows = panel.controller()->rows();
        QCOMPARE(rows.size(), size_t(32)); // every row accounted for...
        const auto cancelled =
            std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return r.status == RunStatus::Cancelled; });
        QVERIFY(cancelled > 0); // ...the ones not planned yet as cancelled
        QVERIFY(w.lastMessage().contains("cancelled"));
        QVERIFY(panel.runButton()->isEnabled() && !panel.cancelButton()->isEnabled());
    }
};

QTEST_MAIN(TestWhatIfWindow)
#include "tst_whatif_window.moc"
