// hetplan, the desktop app. Besides the normal interactive start:
//   hetplan [project.hetplan]
//   hetplan --example CLUSTER:MODEL [--run PLANNERS] [--screenshots DIR]
// With --screenshots the app opens the example, runs the planners, writes one PNG per main view into DIR
// and exits (works with QT_QPA_PLATFORM=offscreen).
#include "main_window.h"

#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>

using namespace hetplan;

int main(int argc, char** argv)
{
    QElapsedTimer started;
    started.start();
    QApplication app(argc, argv);
    QApplication::setApplicationName("hetplan");
    QApplication::setOrganizationName("hetplan");
    QApplication::setApplicationVersion("0.1.0");

    QCommandLineParser cli;
    cli.setApplicationDescription("Plans training on heterogeneous GPU clusters.");
    cli.addHelpOption();
    cli.addVersionOption();
    QCommandLineOption example("example", "Open the example CLUSTER:MODEL.", "cluster:model");
    QCommandLineOption run("run", "Run these planners (comma-separated) on it.", "planners");
    QCommandLineOption shots("screenshots", "Write a PNG per main view into DIR, then exit.", "dir");
    QCommandLineOption timing("startup-time", "Print the time until the window is shown, then exit.");
    cli.addOptions({example, run, shots, timing});
    cli.addPositionalArgument("project", "A .hetplan project to open.");
    cli.process(app);

    MainWindow window;
    const bool batch = cli.isSet(shots);
    if (batch)
        window.setInteractive(false);
    // Batch mode shows the window too (invisible under QT_QPA_PLATFORM=offscreen) so layouts are real.
    if (batch)
        window.resize(1400, 900);
    window.show();
    if (batch)
        window.resetLayout();
    if (cli.isSet(timing)) {
        QTimer::singleShot(0, &app, [&] {
            std::printf("window shown after %.1f ms\n", started.nsecsElapsed() / 1e6);
            app.quit();
        });
        return app.exec();
    }

    if (!cli.positionalArguments().isEmpty()) {
        const QString path = cli.positionalArguments().first();
        QTimer::singleShot(0, &window, [&window, path] { window.openFile(path); });
    }
    if (cli.isSet(example)) {
        const QStringList parts = cli.value(example).split(':');
        if (parts.size() != 2) {
            std::fprintf(stderr, "error: --example: argument: expected CLUSTER:MODEL\n");
            return 2;
        }
        window.openExample(parts[0].toStdString(), parts[1].toStdString());
        if (!window.document()->cluster()) {
            std::fprintf(stderr, "error: --example: example: %s\n", qPrintable(window.lastMessage()));
            return 2;
        }
    }
    std::vector<std::string> planners;
    for (const QString& p : cli.value(run).split(',', Qt::SkipEmptyParts))
        planners.push_back(p.trimmed().toStdString());

    if (batch) {
        const QString dir = cli.value(shots);
        auto finish = [&] {
            QString error;
            const bool ok = window.writeScreenshots(dir, &error);
            if (!ok)
                std::fprintf(stderr, "error: --screenshots: %s: %s\n", qPrintable(dir), qPrintable(error));
            else
                std::printf("screenshots written to %s\n", qPrintable(dir));
            app.exit(ok ? 0 : 1);
        };
        if (planners.empty()) {
            QTimer::singleShot(0, &app, finish);
        } else {
            QObject::connect(&window, &MainWindow::runFinished, &app, finish);
            QTimer::singleShot(0, &app, [&] {
                if (!window.runPlanners(planners)) {
                    std::fprintf(stderr, "error: --run: planners: %s\n", qPrintable(window.lastMessage()));
                    app.exit(2);
                }
            });
        }
    } else if (!planners.empty()) {
        QTimer::singleShot(0, &app, [&] { window.runPlanners(planners); });
    }
    return app.exec();
}
