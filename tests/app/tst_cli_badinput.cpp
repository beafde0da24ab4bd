// Bad input never crashes and never writes output: every case below must exit with code 2, print exactly
// one line "error: <file>: <field>: <reason>" on stderr, and leave no --out file behind.
#include "testutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan::test;

namespace {
const char* kGoodCluster =
    R"({"name":"c","nodes":[{"name":"a","device":"V100-16GB","gpus":2,"nic_bandwidth":"10 Gbps"}]})";

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& content)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(content);
    return path;
}

QString clusterWith(const QTemporaryDir& dir, const QString& name, const QByteArray& nodeJson,
                    const QByteArray& extra = {})
{
    return write(dir, name, "{\"name\":\"c\",\"nodes\":[" + nodeJson + "]" + extra + "}");
}
} // namespace

class TestCliBadInput : public QObject {
    Q_OBJECT
private slots:
    void badInput_data();
    void badInput();
};

void TestCliBadInput::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions"); // a string the error line must contain (file or field)

    static QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath("out.json");
    const QString good = write(dir, "good.json", kGoodCluster);
    auto plan = [&](const QString& cluster, const QString& model = "example:gpt2-amp") {
        return QStringList{"plan", "--cluster", cluster,   "--model", model, "--gbs",
                           "8",    "--planner", "uniform", "--out",   out};
    };
    const QByteArray node = R"({"name":"a","device":"V100-16GB","gpus":2,"nic_bandwidth":"10 Gbps"})";

    QTest::newRow("bad JSON") << plan(write(dir, "badjson.json", "{\"name\": \"c\", \"nodes\": [")) << "badjson.json";
    QTest::newRow("missing file") << plan(dir.filePath("nope.json")) << "nope.json";
    QTest::newRow("missing nodes") << plan(write(dir, "nonodes.json", R"({"name":"c"})")) << "nodes";
    QTest::newRow("unknown unit")
        << plan(clusterWith(dir, "unit.json", R"({"name":"a","device":"T4","gpus":2,"nic_bandwidth":"10 Gbpz"})"))
        << "nic_bandwidth";
    QTest::newRow("number without unit")
        << plan(clusterWith(dir, "nounit.json", R"({"name":"a","device":"T4","gpus":2,"nic_bandwidth":"10"})"))
        << "nic_bandwidth";
    QTest::newRow("negative bandwidth")
        << plan(clusterWith(dir, "negbw.json", R"({"name":"a","device":"T4","gpus":2,"nic_bandwidth":"-5 Gbps"})"))
        << "nic_bandwidth";
    QTest::newRow("zero bandwidth") << plan(clusterWith(dir, "zerobw.json",
                                                        R"({"name":"a","device":"T4","gpus":2,"nic_bandwidth":0})"))
                                    << "nic_bandwidth";
    QTest::newRow("node with 0 GPUs")
        << plan(clusterWith(dir, "zerogpu.json", R"({"name":"a","device":"T4","gpus":0,"nic_bandwidth":"1 GB/s"})"))
        << "gpus";
    QTest::newRow("fractional GPUs")
        << plan(clusterWith(dir, "fracgpu.json", R"({"name":"a","device":"T4","gpus":1.5,"nic_bandwidth":"1 GB/s"})"))
        << "gpus";
    QTest::newRow("unknown device type")
        << plan(clusterWith(dir, "dev.json", R"({"name":"a","device":"Voodoo5","gpus":2,"nic_bandwidth":"1 GB/s"})"))
        << "device";
    QTest::newRow("duplicate node") << plan(clusterWith(dir, "dup.json", node + "," + node)) << "name";
    QTest::newRow("link to unknown node")
        << plan(clusterWith(dir, "link.json", node, R"(,"links":[{"a":"a","b":"zz","bandwidth":"1 GB/s"}])"))
        << "links[0].b";
    QTest::newRow("unknown field (typo)")
        << plan(clusterWith(dir, "typo.json", R"({"name":"a","device":"T4","gpu":2,"nic_bandwidth":"1 GB/s"})"))
        << "gpu";
    QTest::newRow("bad communicator")
        << plan(clusterWith(dir, "comm.json",
                            R"({"name":"a","device":"T4","gpus":2,"nic_bandwidth":"1 GB/s","communicator":"pigeon"})"))
        << "communicator";
    QTest::newRow("unknown example") << plan("example:no-such-cluster") << "example";
    QTest::newRow("unknown model example") << plan(good, "example:gpt5") << "example";
    QTest::newRow("model negative params")
        << plan(good, write(dir, "model.json", R"({"name":"m","layers":[{"params":-1,"forward_flops":1}]})"))
        << "params";
    QTest::newRow("unknown planner") << QStringList{"plan",      "--cluster", good,    "--model", "example:gpt2-amp",
                                                    "--planner", "magic",     "--out", out}
                                     << "planner";
    QTest::newRow("gbs not a number") << QStringList{"plan",  "--cluster", good,        "--model", "example:gpt2-amp",
                                                     "--gbs", "lots",      "--planner", "uniform", "--out",
                                                     out}
                                      << "--gbs";
    QTest::newRow("gbs zero") << QStringList{"plan",  "--cluster", good,        "--model", "example:gpt2-amp",
                                             "--gbs", "0",         "--planner", "uniform", "--out",
                                             out}
                              << "--gbs";
    QTest::newRow("gbs not divisible") << QStringList{"plan",
                                                      "--cluster",
                                                      "example:amp-homogeneous",
                                                      "--model",
                                                      "example:gpt2-amp",
                                                      "--gbs",
                                                      "30",
                                                      "--planner",
                                                      "uniform",
                                                      "--option",
                                                      "pp=2",
                                                      "--out",
                                                      out}
                                       << "global_batch_size";
    QTest::newRow("zero stage 5") << QStringList{"plan",   "--cluster", good,        "--model", "example:gpt2-amp",
                                                 "--zero", "5",         "--planner", "uniform", "--out",
                                                 out}
                                  << "zero";
    QTest::newRow("unknown framework") << QStringList{"plan",        "--cluster", good,      "--model",
                                                      "example:gpt2-amp", "--framework", "megatron", "--planner",
                                                      "uniform",      "--out",     out}
                                       << "--framework: framework: expected megatron-core";
    QTest::newRow("sequence parallel on deepspeed-pipe")
        << QStringList{"plan",          "--cluster",   good,      "--model", "example:gpt2-amp", "--framework",
                       "deepspeed-pipe", "--sequence-parallel", "--planner", "uniform", "--out", out}
        << "sequence_parallel: DeepSpeed's pipeline engine has no Megatron sequence parallelism";
    QTest::newRow("bad job precision") << QStringList{"plan",
                                                      "--cluster",
                                                      good,
                                                      "--model",
                                                      "example:gpt2-amp",
                                                      "--job",
                                                      write(dir, "job.json",
                                                            R"({"global_batch_size":8,"precision":"fp12"})"),
                                                      "--planner",
                                                      "uniform",
                                                      "--out",
                                                      out}
                                       << "precision";
    // The optimizer's bytes: the older field and the new one together, or a new one out of range.
    auto withJob = [&](const char* name, const char* json) {
        return QStringList{"plan", "--cluster", good, "--model", "example:gpt2-amp", "--job",
                           write(dir, name, json), "--planner", "uniform", "--out", out};
    };
    QTest::newRow("both optimizer fields")
        << withJob("job-both.json", R"({"global_batch_size":8,"optimizer_bytes_per_param":12,)"
                                    R"("optimizer_state_bytes_per_param":8})")
        << "job-both.json: optimizer_bytes_per_param: give optimizer_state_bytes_per_param";
    QTest::newRow("negative optimizer states")
        << withJob("job-neg.json", R"({"global_batch_size":8,"optimizer_state_bytes_per_param":-2})")
        << "optimizer_state_bytes_per_param: must be between 0 and 1024";
    QTest::newRow("optimizer states not a number")
        << withJob("job-str.json", R"({"global_batch_size":8,"optimizer_state_bytes_per_param":"eight"})")
        << "optimizer_state_bytes_per_param";
    QTest::newRow("missing --cluster") << QStringList{"plan",  "--model", "example:gpt2-amp", "--planner", "uniform",
                                                      "--out", out}
                                       << "--cluster";
    QTest::newRow("unknown argument") << QStringList{"plan", "--cluster", good, "--frobnicate", "1", "--out", out}
                                      << "--frobnicate";
    QTest::newRow("option without =")
        << QStringList{"plan",     "--cluster", good,    "--model", "example:gpt2-amp", "--planner", "uniform",
                       "--option", "tp",        "--out", out}
        << "--option";
    QTest::newRow("bad planner option value")
        << QStringList{"plan",     "--cluster", good,        "--model", "example:gpt2-amp",
                       "--gbs",    "8",         "--planner", "uniform", "--option",
                       "tp=three", "--out",     out}
        << "tp";
    QTest::newRow("profile layer mismatch")
        << QStringList{"plan",
                       "--cluster",
                       good,
                       "--model",
                       "example:gpt2-amp",
                       "--planner",
                       "uniform",
                       "--profile",
                       write(dir, "prof.json",
                             R"({"schema":"hetplan.profile/1","tables":[{"device":"V100-16GB","tp":1,"micro_batch":1,)"
                             R"("layers":[{"forward":0.001,"backward":0.002}]}]})"),
                       "--out",
                       out}
        << "layers";
    // Found by review: values that used to overflow or produce inf/NaN times.
    QTest::newRow("micro-batch overflow") << QStringList{"plan",     "--cluster",        "example:amp-homogeneous",
                                                         "--model",  "example:gpt2-amp", "--gbs",
                                                         "32",       "--planner",        "uniform",
                                                         "--option", "mbs=268435456",    "--out",
                                                         out}
                                          << "mbs";
    QTest::newRow("absurd global batch")
        << QStringList{"plan",      "--cluster", good,    "--model", "example:gpt2-amp", "--gbs", "2000000000",
                       "--planner", "uniform",   "--out", out}
        << "--gbs";
    QTest::newRow("absurd latency") << plan(write(dir, "lat.json",
                                                  R"({"name":"c","inter_latency":1e308,"nodes":[)" + node + "]}"))
                                    << "inter_latency";
    QTest::newRow("bandwidth unit slip")
        << plan(clusterWith(dir, "tiny.json", R"({"name":"a","device":"T4","gpus":2,"nic_bandwidth":1e-300})"))
        << "nic_bandwidth";
    QTest::newRow("seed not an integer")
        << QStringList{"plan",   "--cluster", good,    "--model", "example:gpt2-amp", "--planner", "uniform",
                       "--seed", "nan",       "--out", out}
        << "--seed";
    QTest::newRow("time limit NaN")
        << QStringList{"plan",         "--cluster", good,    "--model", "example:gpt2-amp", "--planner", "uniform",
                       "--time-limit", "nan",       "--out", out}
        << "--time-limit";
    QTest::newRow("unknown objective")
        << QStringList{"plan",        "--cluster", good,   "--model", "example:gpt2-amp", "--planner", "uniform",
                       "--objective", "fast",      "--out", out}
        << "--objective: argument: expected time or cost, got 'fast'";
    QTest::newRow("negative budget")
        << QStringList{"plan",     "--cluster", good,   "--model", "example:gpt2-amp", "--planner", "uniform",
                       "--budget", "-3",        "--out", out}
        << "--budget: argument: must be 0 or between 0.0001 and 1e+10 US dollars per hour";
    QTest::newRow("throughput floor not a number")
        << QStringList{"plan",             "--cluster", good,   "--model", "example:gpt2-amp", "--planner", "uniform",
                       "--min-throughput", "lots",      "--out", out}
        << "--min-throughput";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << "command";
    QTest::newRow("unknown list") << QStringList{"list", "gpus"} << "list";
    QTest::newRow("import unknown format") << QStringList{"import", "--format", "xlsx", "--in", good, "--out", out}
                                           << "unknown format 'xlsx' (known: native,";
    QTest::newRow("import without device")
        << QStringList{"import", "--format", "sailor", "--in", good, "--out", out} << "--device";
    QTest::newRow("import unknown device")
        << QStringList{"import", "--format", "sailor", "--in", good, "--device", "Voodoo5", "--out", out} << "device";
    QTest::newRow("truncated npy")
        << QStringList{"import",
                       "--format",
                       "amp-npy",
                       "--device",
                       "T4",
                       "--in",
                       write(dir, "trunc.npy", QByteArray("\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fo", 24)),
                       "--out",
                       out}
        << "trunc.npy";
    const QString metis = QString::fromStdString(fixture("profiles/metis/negative"));
    QTest::newRow("metis negative time") << QStringList{"import", "--format", "metis", "--device", "V100-16",
                                                        "--in",   metis,      "--out", out}
                                         << "execution_time.layer_compute_total_ms[1]";
    const QString metisGood = QString::fromStdString(fixture("profiles/metis/valid"));
    QTest::newRow("import bad precision")
        << QStringList{"import",  "--format", "metis", "--device",    "V100-16", "--in",
                       metisGood, "--out",    out,     "--precision", "fp8"}
        << "--precision";
    QTest::newRow("import sequence 0") << QStringList{"import",  "--format", "metis", "--device",   "V100-16", "--in",
                                                      metisGood, "--out",    out,     "--sequence", "0"}
                                       << "--sequence";
    // A profile measured in fp32 for an fp16 job (gpt2-amp has 26 layers): refused, not reused.
    QByteArray layers;
    for (int l = 0; l < 26; ++l)
        layers += QByteArray(l ? "," : "") + R"({"forward": 0.001, "backward": 0.002})";
    const QString fp32 =
        write(dir, "fp32.json",
              R"({"schema": "hetplan.profile/1", "precision": "fp32", "tables": [{"device": "V100-16GB", "tp": 1,
                  "micro_batch": 1, "layers": [)" +
                  layers + "]}]}");
    QTest::newRow("profile in another precision") << (plan(good) << "--profile" << fp32) << "precision";
    // The command lines themselves (QCommandLineParser underneath, errors in the same one-line form).
    QTest::newRow("unknown flag on import")
        << QStringList{"import", "--format", "native", "--in", good, "--frobnicate", "--out", out} << "--frobnicate";
    QTest::newRow("unknown top-level flag") << QStringList{"--frobnicate"} << "--frobnicate";
    QTest::newRow("missing value") << QStringList{"plan", "--cluster", good, "--out", out, "--gbs"} << "--gbs";
    QTest::newRow("flag given a value") << QStringList{"plan",    "--cluster",        good,
                                                       "--model", "example:gpt2-amp", "--planner",
                                                       "uniform", "--quiet=yes",      "--out",
                                                       out}
                                        << "--quiet";
    QTest::newRow("stray argument") << QStringList{"export", "--plan", good, "--format", "plan", "extra", "--out", out}
                                    << "extra";
    QTest::newRow("export unknown format") << QStringList{"export", "--plan", good, "--format", "pdf", "--out", out}
                                           << "unknown format 'pdf' (known: plan,";
    QTest::newRow("unknown planner option") << QStringList{"plan",
                                                           "--cluster",
                                                           "example:amp-homogeneous",
                                                           "--model",
                                                           "example:gpt2-amp",
                                                           "--planner",
                                                           "amp",
                                                           "--option",
                                                           "nosuch=1",
                                                           "--out",
                                                           out}
                                            << "options: nosuch: ";
    QTest::newRow("planner option out of range") << QStringList{"plan",
                                                                "--cluster",
                                                                "example:amp-homogeneous",
                                                                "--model",
                                                                "example:gpt2-amp",
                                                                "--planner",
                                                                "amp",
                                                                "--option",
                                                                "top_k=0",
                                                                "--out",
                                                                out}
                                                 << "options: top_k: ";
    QTest::newRow("import missing file")
        << QStringList{"import", "--format", "native", "--in", dir.filePath("absent.json"), "--out", out}
        << "absent.json";
}

void TestCliBadInput::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const int outIdx = args.indexOf("--out");
    const QString outPath = outIdx >= 0 ? args[outIdx + 1] : QString();
    if (!outPath.isEmpty())
        QFile::remove(outPath);

    CliResult r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    const QStringList lines = r.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    const QString line = lines[0];
    QVERIFY2(line.startsWith("error: "), qPrintable(line));
    // error: <file>: <field>: <reason>  → at least three ": " separators
    QVERIFY2(line.count(": ") >= 3, qPrintable(line));
    QVERIFY2(line.contains(mentions), qPrintable(line + "  (should mention " + mentions + ")"));
    if (!outPath.isEmpty())
        QVERIFY2(!QFile::exists(outPath), "an output file was created despite the error");
}

QTEST_GUILESS_MAIN(TestCliBadInput)
#include "tst_cli_badinput.moc"
