// The CLI end to end: plan → simulate → export in every format, compare, list, import; outputs parse and
// agree with each other. Help and version; the formats the help names are the registries'.
#include "testutil.h"

#include "core/io/exporters.h"
#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/model/job_fields.h"
#include "core/model/model.h"
#include "core/planners/planner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;
using namespace hetplan::test;

class TestCliCommands : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    QString path(const char* n) { return dir.filePath(n); }
    static QJsonObject readJson(const QString& p)
    {
        QFile f(p);
        f.open(QIODevice::ReadOnly);
        return QJsonDocument::fromJson(f.readAll()).object();
    }

private slots:
    void listExamplesNamesEveryDesignExample()
    {
        CliResult r = runCli({"list", "examples"});
        QCOMPARE(r.exitCode, 0);
        for (const char* n : {"ditto-ex1",       "ditto-ex2",       "ditto-ex3",     "ditto-ex4",     "ditto-ex5",
                              "amp-homogeneous", "amp-het-cluster", "poplar-a",      "poplar-b",      "poplar-c",
                              "hap-testbed",     "hethub-pair",     "hethub-3types", "amp-scale-2x2", "amp-scale-4x4",
                              "amp-scale-8x8",   "amp-scale-16x16", "gpt2-amp",      "gpt2-xl",       "transgan-amp",
                              "llama2-7b",       "llama2-13b",      "bert-base",     "bert-hap",      "vit-base",
                              "vgg19",           "vgg19-cifar",     "bert-moe",      "llama-0.5b",    "llama-1.1b",
                              "opt-350m",        "gpt-neo-2.7b",    "llama3-8b",     "opt-30b",
                              "mixtral-8x7b"})
            QVERIFY2(r.out.contains(QString(" ") + n + " "), n);
        const auto planners = runCli({"list", "planners"});
        QCOMPARE(planners.exitCode, 0);
        // One line per planner, its name then at least two spaces: the long names (deepspeed-zero,
        // dp-proportional) once ran into their descriptions.
        const QStringList lines = planners.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), int(PlannerRegistry::instance().names().size()));
        for (const QString& line : lines)
            QVERIFY2(QRegularExpression("^[a-z-]+  +\\S").match(line).hasMatch(), qPrintable(line));
        QVERIFY(planners.out.contains(QRegularExpression("^deepspeed-zero  +Baseline", QRegularExpression::MultilineOption)));
        QVERIFY(runCli({"list", "devices"}).out.contains("MI300X"));
    }

    void jobFlagsComeFromTheFieldTable()
    {
        // Every job field with a flag is in plan's help, and the flags set the job the plan carries: each
        // expected value below is the flag's argument (or a switch's opposite of Job{}).
        const CliResult help = runCli({"plan", "--help"});
        QCOMPARE(help.exitCode, 0);
        for (const FieldSpec<Job>& f : jobFields())
            if (!f.flag.empty())
                QVERIFY2(help.out.contains(QString::fromStdString("--" + f.flag)), f.flag.c_str());
        const QString plan = path("flags-plan.json");
        CliResult r = runCli({"plan", "--cluster", "example:amp-homogeneous", "--model", "example:gpt2-amp",
                              "--gbs", "16", "--precision", "bf16", "--schedule", "gpipe", "--recompute",
                              "--backward-factor", "2.5", "--optimizer-state-bytes", "4", "--memory-margin", "0.05",
                              "--zero", "1", "--framework", "megatron-legacy", "--sequence-parallel",
                              "--planner", "uniform", "--quiet", "--out", plan});
        QCOMPARE(r.exitCode, 0);
        const Job j = readPlan(plan.toStdString()).job;
        QCOMPARE(j.globalBatchSize, 16);
        QVERIFY(j.precision == Precision::BF16 && j.schedule == Schedule::GPipe && j.recompute);
        QCOMPARE(j.backwardFactor, 2.5);
        QCOMPARE(j.optimizerStateBytesPerParam, 4.0);
        QCOMPARE(j.memoryMargin, 0.05);
        QCOMPARE(j.zeroStage, 1);
        QVERIFY(j.framework == Framework::MegatronLegacy && j.sequenceParallel);
        // A value outside the field's range is refused at the flag, with the field's range.
        r = runCli({"plan", "--cluster", "example:amp-homogeneous", "--model", "example:gpt2-amp", "--backward-factor",
                    "0", "--planner", "uniform", "--out", path("never.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--backward-factor: backward_factor: must be between 0.01 and 100"), qPrintable(r.err));
        r = runCli({"plan", "--cluster", "example:amp-homogeneous", "--model", "example:gpt2-amp", "--schedule",
                    "zb", "--planner", "uniform", "--out", path("never.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--schedule: schedule: expected 1f1b or gpipe, got \"zb\""), qPrintable(r.err));
    }

    void planSaysWhichMegatronOptionsItChose()
    {
        // HetHub's plan for gpt2-amp on AMP's cluster runs interleaved 1F1B with 2 chunks per stage: the text
        // says so, lists each stage's chunks, and names the options as searched; in the paper's space none.
        CliResult r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs",
                              "32", "--planner", "hethub"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Megatron options (searched): interleaved 1F1B"), qPrintable(r.out));
        QVERIFY(r.out.contains("2 chunks per stage (interleaved 1F1B)"));
        QVERIFY(r.out.contains(") + ["));
        r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs", "32",
                    "--planner", "hethub", "--option", "search_vpp=false", "--option", "search_sp=false", "--option",
                    "search_dist_opt=false", "--option", "search_recompute=false", "--option", "search_cp=false",
                    "--option", "search_ep=false"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.out.contains("Megatron options"));
        QVERIFY(!r.out.contains("chunks per stage"));
    }

    void selectGpusLeavesTheT4sOutOnPoplarB()
    {
        const QString plan = path("selected.json");
        CliResult r = runCli({"plan", "--cluster", "example:poplar-b", "--model", "example:gpt2-amp", "--gbs", "16",
                              "--zero", "2", "--planner", "poplar", "--select-gpus", "--out", plan});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("GPU selection (fastest): without T4"));
        QVERIFY(r.out.contains("left out t4-0 (2 × T4)"));
        const QJsonObject o = readJson(plan);
        QVERIFY(validatePlanJson(o).empty());
        const QJsonObject s = o["selection"].toObject();
        QCOMPARE(s["left_out"].toArray()[0].toObject()["node"].toString(), QString("t4-0"));
        QVERIFY(s["tried"].toArray().size() >= 3); // every node, without T4, without V100
        // The plan file stands on its own: it re-simulates to the same time on the two V100s.
        r = runCli({"simulate", "--plan", plan, "--out", path("reselected.json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readJson(path("reselected.json"))["estimate"].toObject()["iteration_seconds"].toDouble(),
                 o["estimate"].toObject()["iteration_seconds"].toDouble());
        // A budget no subset meets is no plan (exit 3), with the closest miss named.
        r = runCli({"plan", "--cluster", "example:poplar-b", "--model", "example:gpt2-amp", "--gbs", "16", "--planner",
                    "poplar", "--budget", "0.5"});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("over the $0.5/h budget"), qPrintable(r.err));
    }

    void planSimulateExport()
    {
        const QString plan = path("plan.json");
        CliResult r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs",
                              "32", "--planner", "amp", "--out", plan});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("iteration"));
        const QJsonObject o = readJson(plan);
        QCOMPARE(o["schema"].toString(), QString("hetplan.plan/1"));
        QVERIFY(validatePlanJson(o).empty());
        // AMP keeps its top-k with planner and simulated costs.
        const QJsonArray cands = o["candidates"].toArray();
        QVERIFY(cands.size() >= 2 && cands.size() <= 10);
        QVERIFY(cands[0].toObject().contains("simulated_cost"));
        const double iter = o["estimate"].toObject()["iteration_seconds"].toDouble();
        // The summary comes from the same simulation as the estimate.
        QCOMPARE(o["summary"].toObject()["iteration_seconds"].toDouble(), iter);

        // simulate re-scores from the plan's own inputs: the same number.
        const QString rescored = path("rescored.json");
        r = runCli({"simulate", "--plan", plan, "--trace", path("trace.json"), "--out", rescored});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(qAbs(readJson(rescored)["estimate"].toObject()["iteration_seconds"].toDouble() - iter) < 1e-12);
        QVERIFY(readJson(rescored).contains("summary"));
        const QJsonObject trace = readJson(path("trace.json"));
        QVERIFY(trace["traceEvents"].toArray().size() > 100);

        for (const char* fmt :
             {"plan", "deepspeed", "deepspeed-launcher", "megatron", "hostfile", "ranks", "chrome-trace"}) {
            const QString out = path("export.out");
            QFile::remove(out);
            r = runCli({"export", "--plan", plan, "--format", fmt, "--out", out});
            QVERIFY2(r.exitCode == 0, qPrintable(QString(fmt) + ": " + r.err));
            QVERIFY2(QFileInfo(out).size() > 10, fmt);
        }
        r = runCli({"export", "--plan", plan, "--format", "hostfile"});
        QCOMPARE(r.out, QString("p3-0 slots=4\np3-1 slots=4\np3-2 slots=4\ng4dn-0 slots=4\n"));
        r = runCli({"export", "--plan", plan, "--format", "deepspeed"});
        const QJsonObject ds = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(ds["train_batch_size"].toInt(), 32);
    }

    void simulateUnderAnotherFramework()
    {
        // simulate --framework / --sequence-parallel re-score the plan under another framework's boundary
        // sends and store the setting in the job; sequence parallelism without tensor parallelism warns.
        const QString plan = path("fw-plan.json"), rescored = path("fw-rescored.json");
        CliResult r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs",
                              "16", "--planner", "uniform", "--option", "tp=1", "--option", "pp=2", "--out", plan});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.err.contains("sequence_parallel"));
        QCOMPARE(readJson(plan)["job"].toObject()["framework"].toString(), QString("megatron-core"));
        r = runCli({"simulate", "--plan", plan, "--framework", "deepspeed-pipe", "--out", rescored});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readJson(rescored)["job"].toObject()["framework"].toString(), QString("deepspeed-pipe"));
        r = runCli({"simulate", "--plan", plan, "--sequence-parallel", "--out", rescored});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("warning: job.sequence_parallel: the plan has no tensor parallelism"), qPrintable(r.err));
        QVERIFY(readJson(rescored)["job"].toObject()["sequence_parallel"].toBool());
    }

    void hapPlanShowsItsProgramAndRatios()
    {
        // poplar-b (2 V100 + 2 T4) with bert-hap: the text names the program's size by instruction kind, its
        // first lines, and one row of sharding ratios per segment (embedding, block0..7, head), each adding
        // up to 100 % over the 4 GPUs.
        const QString plan = path("hap.json");
        const CliResult r = runCli({"plan", "--cluster", "example:poplar-b", "--model", "example:bert-hap", "--gbs", "32",
                                    "--planner", "hap", "--time-limit", "20", "--out", plan},
                                   test::kHangGuardMs);
        QCOMPARE(r.exitCode, 0);
        const QJsonObject spmd = readJson(plan)["spmd"].toObject();
        const int instructions = spmd["program"].toArray().size();
        QVERIFY(r.out.contains(QString("SPMD program: %1 instructions (").arg(instructions)));
        QVERIFY(r.out.contains("compute"));
        QVERIFY(r.out.contains("sharding ratios (% of each segment per GPU):"));
        const QStringList lines = r.out.split('\n');
        const int header = int(lines.indexOf(QRegularExpression("^sharding ratios.*")));
        QVERIFY(header > 0);
        QVERIFY(lines[header + 1].contains("v100-0/0") && lines[header + 1].contains("t4-0/1"));
        for (int row = 0; row < 10; ++row) {
            const QStringList cells = lines[header + 2 + row].split(' ', Qt::SkipEmptyParts);
            QCOMPARE(cells.size(), 5);
            double sum = 0;
            for (int g = 1; g <= 4; ++g)
                sum += cells[g].toDouble();
            QVERIFY2(qAbs(sum - 100) < 0.25, qPrintable(lines[header + 2 + row]));
        }
        QVERIFY(lines[header + 2].startsWith("  embedding"));
        QVERIFY(lines[header + 11].startsWith("  head"));
    }

    void compareAll()
    {
        const QString report = path("report.json");
        CliResult r = runCli({"compare", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs",
                              "32", "--planners", "uniform,amp,megatron,data-parallel", "--out", report});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = readJson(report);
        QCOMPARE(o["schema"].toString(), QString("hetplan.compare/1"));
        const QJsonArray plans = o["plans"].toArray();
        QCOMPARE(plans.size() + o["failures"].toArray().size(), 4);
        QVERIFY(plans.size() >= 3);
        for (const QJsonValue& p : plans) {
            QVERIFY(validatePlanJson(p.toObject()).empty());
            QVERIFY(p.toObject().contains("summary"));
        }
        QVERIFY(r.out.contains("amp") && r.out.contains("megatron"));
        QCOMPARE(runCli({"compare", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--planners",
                         "amp,nope"})
                     .exitCode,
                 2);
    }

    void infeasibleExitsThree()
    {
        const QString out = path("none.json");
        CliResult r = runCli({"plan", "--cluster", "example:poplar-b", "--model", "example:llama2-13b", "--gbs", "4",
                              "--planner", "uniform", "--out", out});
        QCOMPARE(r.exitCode, 3);
        QVERIFY(r.err.startsWith("error: "));
        QVERIFY(!QFile::exists(out));
    }

    void timeLimitExitsFour()
    {
        // A time limit of 1 ns expires before amp evaluates its first strategy: nothing to keep.
        CliResult r = runCli({"plan", "--cluster", "example:amp-scale-16x16", "--model", "example:gpt2-amp",
                              "--planner", "amp", "--time-limit", "0.000000001", "--out", path("t.json")});
        QCOMPARE(r.exitCode, 4);
        QVERIFY(!QFile::exists(path("t.json")));
    }

    void timeLimitKeepsBestSoFar()
    {
        // Annealing evaluates its start state before the loop, so a limit that expires during the walk
        // leaves a feasible plan: exit 0, a note on stderr, and search.stopped in the plan. 2 s: the search
        // gets 1.5 s of it from the command's start, far more than reading the inputs takes on a busy
        // machine, and 10,000,000 iterations take far longer.
        const QString out = path("stopped.json");
        CliResult r =
            runCli({"plan", "--cluster", "example:amp-scale-16x16", "--model", "example:gpt2-amp", "--planner",
                    "annealing", "--option", "iterations=10000000", "--time-limit", "2", "--out", out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("time limit"), qPrintable(r.err));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject plan = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(plan["search"].toObject()["stopped"].toString(), QString("time-limit"));
    }

    void analyticProfileCommand()
    {
        const QString out = path("analytic.json");
        CliResult r = runCli({"profile", "--model", "example:gpt2-amp", "--device", "T4", "--device", "V100-16GB",
                              "--tp", "1,2", "--mbs", "1,4", "--out", out});
        QCOMPARE(r.exitCode, 0);
        const Profile p = readProfile(out.toStdString());
        // 2 devices × 2 tp × 2 micro-batch sizes, every layer of the model.
        QCOMPARE(p.tables().size(), size_t(8));
        QCOMPARE(p.layerCount(), buildExampleModel("gpt2-amp").layerCount());
        QCOMPARE(p.source, std::string("analytic"));
        // A slower tp link (1 GB/s instead of NVLink) only slows the tp = 2 tables.
        const QString slow = path("analytic-slow.json");
        QCOMPARE(runCli({"profile", "--model", "example:gpt2-amp", "--device", "V100-16GB", "--tp", "1,2",
                         "--tp-bandwidth", "default,1GB/s", "--out", slow})
                     .exitCode,
                 0);
        const Profile q = readProfile(slow.toStdString());
        QCOMPARE(q.lookup(1, "V100-16GB", 1, 1)->forward, p.lookup(1, "V100-16GB", 1, 1)->forward);
        QVERIFY(q.lookup(1, "V100-16GB", 2, 1)->forward > p.lookup(1, "V100-16GB", 2, 1)->forward);
        // Bad input exits 2 and writes nothing.
        const QString bad = path("bad.json");
        for (const QStringList& args :
             {QStringList{"--device", "NoSuchGPU"}, QStringList{}, QStringList{"--device", "T4", "--tp", "0"},
              QStringList{"--device", "T4", "--tp", "1,2", "--tp-bandwidth", "1GB/s,2GB/s,3GB/s"},
              QStringList{"--device", "T4", "--precision", "fp8"}}) {
            CliResult e = runCli(QStringList{"profile", "--model", "example:gpt2-amp", "--out", bad} + args);
            QCOMPARE(e.exitCode, 2);
            QVERIFY(e.err.startsWith("error: "));
            QVERIFY(!QFile::exists(bad));
        }
    }

    void importThenPlanWithProfile()
    {
        const QString prof = path("prof.json");
        CliResult r = runCli({"import", "--format", "sailor", "--in",
                              QString::fromStdString(fixture("profiles/sailor/valid.json")), "--device", "V100-16",
                              "--out", prof});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(readJson(prof)["tables"].toArray().size() > 0);
        // Without --format the file's signature says it is Sailor's; the same profile comes out.
        const QString detected = path("prof-detected.json");
        r = runCli({"import", "--in", QString::fromStdString(fixture("profiles/sailor/valid.json")), "--device",
                    "V100-16", "--out", detected});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(readJson(detected)["tables"], readJson(prof)["tables"]);
        // A file no format recognises: exit 2, asking for --format.
        r = runCli({"import", "--in", QString::fromStdString(fixture("profiles/README.md")), "--out", detected});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("give --format"), qPrintable(r.err));
    }

    // Metis import records what the measurements ran at (--sequence, --precision) in the profile.
    void importMetisWithConditions()
    {
        const QString prof = path("metis.json");
        CliResult r =
            runCli({"import", "--format", "metis", "--in", QString::fromStdString(fixture("profiles/metis/valid")),
                    "--device", "V100-16", "--sequence", "2048", "--precision", "fp32", "--out", prof});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = readJson(prof);
        QCOMPARE(o["sequence_length"].toInt(), 2048);
        QCOMPARE(o["precision"].toString(), QString("fp32"));
        QCOMPARE(o["tables"].toArray().size(), 3);
    }

    // Repeated --in merges several GPU types' profiles (hetplan-profile writes one per machine) into one file;
    // profiles of another model are refused.
    void importMergesSeveralInputs()
    {
        const QString h100 = QString::fromStdString(fixture("profiles/native/hetplan-profile.json"));
        QJsonObject other = readJson(h100);
        QJsonArray tables = other["tables"].toArray();
        for (int i = 0; i < tables.size(); ++i) {
            QJsonObject t = tables[i].toObject();
            t["device"] = "V100-32GB";
            tables[i] = t;
        }
        other["tables"] = tables;
        other["measured_on"] = QJsonArray{QJsonObject{{"device", "V100-32GB"}, {"hardware", "Tesla V100-SXM2-32GB"}}};
        const QString v100 = path("v100.json");
        writeJsonFile(v100.toStdString(), other);
        const QString merged = path("merged.json");
        CliResult r = runCli({"import", "--format", "native", "--in", h100, "--in", v100, "--out", merged});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("imported 6 table(s), 4 layers, devices: H100-SXM V100-32GB"), qPrintable(r.out));
        const QJsonObject o = readJson(merged);
        QCOMPARE(o["tables"].toArray().size(), 6);
        QCOMPARE(o["measured_on"].toArray().size(), 2);
        QCOMPARE(o["sequence_length"].toInt(), 32);

        r = runCli({"import", "--format", "native", "--in", h100, "--in",
                    QString::fromStdString(fixture("profiles/native/valid.json")), "--out", path("mixed.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("is a profile of 'toy-3', an earlier input of 'tiny-gpt'"), qPrintable(r.err));
        QVERIFY(!QFile::exists(path("mixed.json")));
    }

    void everyCommandAnswersHelp_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("mentions"); // options (and words) only this command's help has
        QTest::newRow("plan") << "plan"
                              << QStringList{"--planner", "--time-limit", "--quiet", "top_k=", "(default: 1)"};
        QTest::newRow("compare") << "compare" << QStringList{"--planners", "--cluster", "(default: all)"};
        QTest::newRow("simulate") << "simulate" << QStringList{"--plan", "--trace"};
        QTest::newRow("export") << "export" << QStringList{"--plan", "--format", "chrome-trace"};
        QTest::newRow("import") << "import"
                                << QStringList{"--in",       "--device",    "--compact-gpt2", "--backward-factor",
                                               "--sequence", "--precision", "metis"};
        QTest::newRow("list") << "list" << QStringList{"planners|examples|devices"};
    }

    void everyCommandAnswersHelp()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, mentions);
        for (const QStringList& args :
             {QStringList{command, "--help"}, QStringList{command, "-h"}, QStringList{"help", command}}) {
            const CliResult r = runCli(args);
            QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.out.startsWith("Usage: hetplan-cli " + command + " "), qPrintable(r.out));
            QVERIFY(r.out.contains("-h, --help"));
            for (const QString& m : mentions)
                QVERIFY2(r.out.contains(m), qPrintable(command + " --help should mention " + m));
        }
        // Another command's options are not listed.
        const CliResult r = runCli({command, "--help"});
        QCOMPARE(r.out.contains("--compact-gpt2"), command == "import");
        QCOMPARE(r.out.contains("--trace"), command == "simulate");
    }

    void topLevelHelpAndVersion()
    {
        CliResult r = runCli({"--help"});
        QCOMPARE(r.exitCode, 0);
        for (const char* c : {"list", "plan", "compare", "simulate", "export", "import"})
            QVERIFY2(r.out.contains(QString("\n  ") + c + " "), c);
        r = runCli({"--version"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QString("hetplan " HETPLAN_VERSION "\n"));
        QVERIFY(QRegularExpression("^hetplan \\d+\\.\\d+\\.\\d+\n$").match(r.out).hasMatch());
        r = runCli({});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.startsWith("Usage: hetplan-cli <command>"));
    }

    // The help and the --format checks list exactly the registered formats.
    void formatsComeFromTheRegistries()
    {
        const QString importNames = QString::fromStdString(joinNames(ImporterRegistry::instance().names(), ", "));
        const QString exportNames = QString::fromStdString(joinNames(ExporterRegistry::instance().names(), ", "));
        CliResult r = runCli({"--help"});
        QVERIFY2(r.out.contains("\nImport formats: " + importNames + "\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("\nExport formats: " + exportNames + "\n"), qPrintable(r.out));
        checkFormatTable(runCli({"import", "--help"}).out, ImporterRegistry::instance().formats());
        checkFormatTable(runCli({"export", "--help"}).out, ExporterRegistry::instance().formats());

        r = runCli({"import", "--format", "xlsx", "--in", "x", "--out", path("never.json")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, "error: --format: format: unknown format 'xlsx' (known: " + importNames + ")\n");
        r = runCli({"export", "--plan", "x.json", "--format", "pdf"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, "error: --format: format: unknown format 'pdf' (known: " + exportNames + ")\n");
    }

private:
    // The "Formats:" section of an import/export help: one row per registered format, in order, with its
    // description (long ones wrap onto indented lines).
    template <typename Format>
    static void checkFormatTable(const QString& help, const std::vector<Format>& formats)
    {
        const QString section = help.mid(help.indexOf("\nFormats:\n") + 10);
        QStringList rows;
        for (const QString& line : section.split('\n', Qt::SkipEmptyParts)) {
            if (line.startsWith("   ") && !rows.isEmpty())
                rows.back() += " " + line.simplified();
            else
                rows << line.simplified();
        }
        QCOMPARE(rows.size(), int(formats.size()));
        for (size_t i = 0; i < formats.size(); ++i) {
            const QString expected = QString::fromStdString(formats[i].name + " " + formats[i].description);
            QVERIFY2(rows[int(i)].startsWith(expected), qPrintable(rows[int(i)] + " vs " + expected));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "tst_cli_commands.moc"
