// hetplan, the desktop app. Besides the normal interactive start:
//   hetplan [project.hetplan]
//   hetplan --example CLUSTER:MODEL [--job FILE] [--profile FILE|example:NAME] [--run PLANNERS]
//           [--screenshots DIR] [--save-project FILE]
// With --screenshots the app opens the example, runs the planners, writes one PNG per main view into DIR
// and exits (works with QT_QPA_PLATFORM=offscreen). With --save-project it saves the project (the example,
// job, profile and the run's results) to FILE through the same atomic save as File > Save, then exits: a
// script's way to make a project file. A batch run that names a project opens it first; if the app refuses
// it (or the example), hetplan prints the reason on stderr and exits 2 without running, drawing or saving
// anything, so the refused file is left byte for byte as it was.
#include "main_window.h"

#include "core/base/quote.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QIcon>
#include <QTimer>
#include <cstdio>

using namespace hetplan;

namespace {

struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption example{"example", "Open the example CLUSTER:MODEL.", "cluster:model"};
    QCommandLineOption run{"run", "Run these planners (comma-separated) on it.", "planners"};
    QCommandLineOption shots{"screenshots", "Write a PNG per main view into DIR, then exit.", "dir"};
    QCommandLineOption saveProject{"save-project",
                                   "Save the project (after --run) to FILE, a .hetplan project, then exit.", "file"};
    QCommandLineOption timing{"startup-time", "Print the time until the window is shown, then exit."};
    QCommandLineOption job{"job", "Use this job JSON (batch, sequence, precision, ...) with --example.", "file"};
    QCommandLineOption profile{"profile", "Use this profile JSON or bundled example:NAME for the model.", "profile"};
};

void setApplicationNames()
{
    QApplication::setApplicationName("hetplan");
    QApplication::setOrganizationName("hetplan");
    QApplication::setApplicationVersion("0.1.0");
    // The id of the installed .desktop file and icon (packaging/desktop), so shells match window and entry.
    QApplication::setDesktopFileName("io.github.hetplan.Hetplan");
    QApplication::setWindowIcon(
        QIcon::fromTheme("io.github.hetplan.Hetplan", QIcon(":/icons/io.github.hetplan.Hetplan.svg")));
}

// Parses the arguments; --help, --version and errors exit here.
void parseCommandLine(CommandLine& cli, const QApplication& app)
{
    cli.parser.setApplicationDescription("Plans training on heterogeneous GPU clusters.");
    cli.parser.addHelpOption();
    cli.parser.addVersionOption();
    cli.parser.addOptions({cli.example, cli.run, cli.shots, cli.saveProject, cli.timing, cli.job, cli.profile});
    cli.parser.addPositionalArgument("project", "A .hetplan project to open.");
    cli.parser.process(app);
}

void showWindow(MainWindow& window, bool batch)
{
    if (batch)
        window.setInteractive(false);
    // Batch mode shows the window too (invisible under QT_QPA_PLATFORM=offscreen) so layouts are real.
    if (batch)
        window.resize(1400, 900);
    window.show();
    if (batch)
        window.resetLayout();
}

int reportStartupTime(QApplication& app, const QElapsedTimer& started)
{
    QTimer::singleShot(0, &app, [&app, &started] {
        std::printf("window shown after %.1f ms\n", started.nsecsElapsed() / 1e6);
        app.quit();
    });
    return app.exec();
}

// The positional project in batch mode, opened before any other step; false (with the reason on stderr) if
// the app refuses it, which leaves the file as it was.
bool openProjectArgument(MainWindow& window, const QString& path)
{
    if (window.openFile(path))
        return true;
    std::fprintf(stderr, "error: %s\n", escapeControls(window.lastMessage().toStdString()).c_str());
    return false;
}

// --example CLUSTER:MODEL; false (with the error on stderr) if it is malformed or cannot be opened.
bool openExampleArgument(MainWindow& window, const QString& argument)
{
    const QStringList parts = argument.split(':');
    if (parts.size() != 2) {
        std::fprintf(stderr, "error: --example: argument: expected CLUSTER:MODEL\n");
        return false;
    }
    window.openExample(parts[0].toStdString(), parts[1].toStdString());
    if (!window.document()->cluster()) {
        std::fprintf(stderr, "error: --example: example: %s\n", qPrintable(window.lastMessage()));
        return false;
    }
    return true;
}

// --job and --profile for the opened example: one undo step each, as if edited in the Job and Model tabs.
// False (with the error on stderr) if a file cannot be read.
bool applyJobAndProfile(MainWindow& window, const CommandLine& cli)
{
    ProjectDocument* doc = window.document();
    try {
        if (cli.parser.isSet(cli.job))
            doc->setJob({doc->job() ? doc->job()->name : "default", readJob(cli.parser.value(cli.job).toStdString())});
        if (cli.parser.isSet(cli.profile) && doc->model()) {
            const ModelSpec& model = doc->model()->model;
            const Job job = doc->job() ? doc->job()->job : Job{};
            doc->setProfile(model.name, loadProfile(cli.parser.value(cli.profile).toStdString(), model, job));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", escapeControls(e.what()).c_str());
        return false;
    }
    return true;
}

std::vector<std::string> plannerList(const QString& argument)
{
    std::vector<std::string> planners;
    for (const QString& p : argument.split(',', Qt::SkipEmptyParts))
        planners.push_back(p.trimmed().toStdString());
    return planners;
}

// Batch mode's last step: the screenshots into `dir` and/or the project into `projectPath` (either may be
// empty). False (with the error on stderr) if one failed.
bool finishBatch(MainWindow& window, const QString& dir, const QString& projectPath)
{
    bool ok = true;
    if (!dir.isEmpty()) {
        QString error;
        if (window.writeScreenshots(dir, &error)) {
            std::printf("screenshots written to %s\n", qPrintable(dir));
        } else {
            std::fprintf(stderr, "error: --screenshots: %s: %s\n", qPrintable(dir), qPrintable(error));
            ok = false;
        }
    }
    if (!projectPath.isEmpty()) {
        try {
            window.document()->saveAs(projectPath);
            std::printf("project saved to %s\n", qPrintable(projectPath));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: --save-project: %s\n", escapeControls(e.what()).c_str());
            ok = false;
        }
    }
    return ok;
}

// Batch mode: runs the planners (if any), then writes the screenshots and/or saves the project and exits
// with 0, or 1 if that failed, or 2 if the run cannot start.
void scheduleBatch(QApplication& app, MainWindow& window, const QString& dir, const QString& projectPath,
                   const std::vector<std::string>& planners)
{
    auto finish = [&app, &window, dir, projectPath] { app.exit(finishBatch(window, dir, projectPath) ? 0 : 1); };
    if (planners.empty()) {
        QTimer::singleShot(0, &app, finish);
        return;
    }
    QObject::connect(&window, &MainWindow::runFinished, &app, finish);
    QTimer::singleShot(0, &app, [&app, &window, planners] {
        if (!window.runPlanners(planners)) {
            std::fprintf(stderr, "error: --run: planners: %s\n", qPrintable(window.lastMessage()));
            app.exit(2);
        }
    });
}

} // namespace

int main(int argc, char** argv)
{
    QElapsedTimer started;
    started.start();
    QApplication app(argc, argv);
    setApplicationNames();
    CommandLine cli;
    parseCommandLine(cli, app);

    MainWindow window;
    const bool batch = cli.parser.isSet(cli.shots) || cli.parser.isSet(cli.saveProject);
    showWindow(window, batch);
    if (cli.parser.isSet(cli.timing))
        return reportStartupTime(app, started);

    const QString project = cli.parser.positionalArguments().value(0);
    const std::vector<std::string> planners = plannerList(cli.parser.value(cli.run));
    // Batch: every step runs only if the one before it worked, so a project the app refuses is never
    // followed by a save over it (or a run or screenshots of an empty project).
    if (batch && !project.isEmpty() && !openProjectArgument(window, project))
        return 2;
    if (cli.parser.isSet(cli.example) && !openExampleArgument(window, cli.parser.value(cli.example)))
        return 2;
    if (!applyJobAndProfile(window, cli))
        return 2;
    if (batch) {
        scheduleBatch(app, window, cli.parser.value(cli.shots), cli.parser.value(cli.saveProject), planners);
    } else {
        // Interactive: the window is on screen before a failed open's dialog, and a run follows only an open
        // that worked.
        QTimer::singleShot(0, &window, [&window, project, planners] {
            if ((project.isEmpty() || window.openFile(project)) && !planners.empty())
                window.runPlanners(planners);
        });
    }
    return app.exec();
}
