// The Megatron-LM launch script end to end (run against a fake Megatron), the model architecture flags and
// entry points it writes for every example model, and the boundary-send rules of the framework check.
#include "exporter_fixtures.h"

#include "core/base/errors.h"
#include "core/io/exporters.h"
#include "core/io/schema_validate.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <random>

using namespace hetplan;
using namespace hetplan::simtest;
using namespace hetplan::exporttest;


class TestMegatronExport : public QObject {
    Q_OBJECT
private slots:
    void megatronScriptRuns();
    void megatronArchitectureFlags();
    void megatronEntryPoints();
    void frameworkBoundarySends();
};

namespace {

// A Megatron-LM checkout as far as the launch script looks at it: megatron/core/package_info.py.
QString fakeMegatron(const QTemporaryDir& dir, int minor)
{
    const QString root = dir.filePath("megatron-lm");
    QDir().mkpath(root + "/megatron/core");
    QFile f(root + "/megatron/core/package_info.py");
    f.open(QIODevice::WriteOnly);
    f.write(QString("MAJOR = 0\nMINOR = %1\nPATCH = 0\n__version__ = '0.%1.0'\n").arg(minor).toUtf8());
    return root;
}

struct ScriptRun {
    int exitCode = -1;
    QStringList out; // CVD=…, CDMC=…, then torchrun's arguments, one per line
    QString err;
};

// Runs `script` with bash, torchrun replaced by a function printing its environment and arguments.
ScriptRun runScript(const std::string& script, int nodeRank, int megatronMinor = 13)
{
    QTemporaryDir dir;
    const QString path = dir.filePath("launch.sh");
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(QByteArray::fromStdString(script));
    f.close();
    QProcess bash;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NODE_RANK", QString::number(nodeRank));
    env.insert("MEGATRON_DIR", fakeMegatron(dir, megatronMinor));
    bash.setProcessEnvironment(env);
    bash.start("bash", {"-c",
                        "torchrun() { printf '%s\\n' \"CVD=$CUDA_VISIBLE_DEVICES\" "
                        "\"CDMC=$CUDA_DEVICE_MAX_CONNECTIONS\" \"$@\"; }; . \"$0\"",
                        path});
    bash.waitForFinished();
    ScriptRun r;
    r.exitCode = bash.exitCode();
    const QString out = QString::fromUtf8(bash.readAllStandardOutput());
    r.out = out.split('\n', Qt::SkipEmptyParts);
    for (QString& line : r.out)
        line.replace(dir.path(), "<dir>");
    r.err = QString::fromUtf8(bash.readAllStandardError());
    return r;
}

} // namespace

void TestMegatronExport::megatronScriptRuns()
{
    const Plan plan = unevenPlan();
    const std::string script = megatronLaunchScript(plan);
    // bash -n: the script parses.
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("s.sh"));
        f.open(QIODevice::WriteOnly);
        f.write(QByteArray::fromStdString(script));
        f.close();
        QCOMPARE(QProcess::execute("bash", {"-n", f.fileName()}), 0);
    }
    // torchrun gets: its launch options (8 processes on launch node 0), pretrain_gpt.py, then exactly the
    // argument tokens, one per element (the layout 'Et*10|t*6|t*8|t*8L' arrives as one word), then the data
    // and training arguments; CUDA_DEVICE_MAX_CONNECTIONS is 1 (Megatron requires it with tp 2).
    const ScriptRun run = runScript(script, 0);
    QCOMPARE(run.exitCode, 0);
    QStringList expected{"CVD=0,1,2,3,4,5,6,7",
                         "CDMC=1",
                         "--nnodes",
                         "2",
                         "--node_rank",
                         "0",
                         "--nproc_per_node",
                         "8",
                         "--master_addr",
                         "a",
                         "--master_port",
                         "6000",
                         "<dir>/megatron-lm/pretrain_gpt.py"};
    for (const std::string& a : megatronArguments(plan))
        expected << QString::fromStdString(a);
    // The null tokenizer adds an end-of-document token: 50256 + 1 = the model's 50257 rows.
    expected << "--mock-data"
             << "--tokenizer-type"
             << "NullTokenizer"
             << "--vocab-size"
             << "50256"
             << "--train-iters"
             << "100"
             << "--lr"
             << "1.0e-4"
             << "--lr-decay-style"
             << "constant";
    QCOMPARE(run.out, expected);
    QVERIFY(run.out.contains("Et*10|t*6|t*8|t*8L"));
    // Launch node 1 is host b with its own GPUs.
    QCOMPARE(runScript(script, 1).out.value(0), QString("CVD=0,1,2,3,4,5,6,7"));
    // The layout needs Megatron-core 0.13: an older checkout stops the launch before torchrun, saying why.
    const ScriptRun old = runScript(script, 0, 12);
    QVERIFY(old.exitCode != 0);
    QVERIFY(old.out.isEmpty());
    QVERIFY2(old.err.contains("needs Megatron-core 0.13 or later") && old.err.contains("0.12.0"),
             qPrintable(old.err));
    QVERIFY(script.find("# The uneven stages use --pipeline-model-parallel-layout, which needs Megatron-core 0.13") !=
            std::string::npos);
    // Even stages carry no layout and no version check.
    Plan even = unevenPlan();
    const int b[] = {0, 9, 17, 25, 34};
    for (int st = 0; st < 4; ++st) {
        even.pipelines[0].stages[st].firstLayer = b[st];
        even.pipelines[0].stages[st].endLayer = b[st + 1];
    }
    QVERIFY(megatronLaunchScript(even).find("package_info") == std::string::npos);
    QCOMPARE(runScript(megatronLaunchScript(even), 0, 12).exitCode, 0);
}

namespace {

// The fixture plan (32 blocks in stages of 10, 6, 8, 8 on tp 2) carrying another 32-block model.
Plan withModel(const std::string& example)
{
    Plan p = unevenPlan();
    p.model = buildExampleModel(example);
    p.job.sequenceLength = p.model.arch.sequence;
    return p;
}

} // namespace

void TestMegatronExport::megatronArchitectureFlags()
{
    // Llama-3-8B (32 heads, 8 KV heads, untied, RoPE base 500000): every flag Megatron needs to build it,
    // with the names of Megatron-LM's arguments.py.
    const std::vector<std::string> a = megatronArguments(withModel("llama3-8b"));
    for (const char* flag :
         {"--swiglu", "--disable-bias-linear", "--untie-embeddings-and-output-weights", "--group-query-attention"})
        QVERIFY2(hasArg(a, flag), flag);
    QCOMPARE(argValue(a, "--normalization"), std::string("RMSNorm"));
    QCOMPARE(argValue(a, "--position-embedding-type"), std::string("rope"));
    QCOMPARE(argValue(a, "--rotary-base"), std::string("500000"));
    QCOMPARE(argValue(a, "--num-query-groups"), std::string("8"));
    QCOMPARE(argValue(a, "--attention-dropout"), std::string("0"));
    QCOMPARE(argValue(a, "--hidden-dropout"), std::string("0"));
    QCOMPARE(argValue(a, "--ffn-hidden-size"), std::string("14336"));
    // The header states the count Megatron builds (8,030,261,248, see tst_megatron_model) and the padding tp 2
    // does not need (128256 is even).
    const std::string script = megatronLaunchScript(withModel("llama3-8b"));
    QVERIFY(script.find("# Model: pretrain_gpt.py builds 8030261248 parameters from ARGS and DATA_ARGS; the plan's model has "
                        "8030261248.\n") != std::string::npos);
    QVERIFY(script.find("Differences from the plan") == std::string::npos);
    // GPT-2 with tied embeddings is Megatron's default model: none of these flags.
    const std::vector<std::string> g = megatronArguments(unevenPlan());
    for (const char* flag : {"--swiglu", "--normalization", "--position-embedding-type", "--disable-bias-linear",
                             "--untie-embeddings-and-output-weights", "--group-query-attention", "--rotary-base"})
        QVERIFY2(!hasArg(g, flag), flag);
    // tp 2 pads the fixture's 50257 rows to 50258: one row of 1024 in the tied embedding, stated.
    QVERIFY(megatronLaunchScript(unevenPlan()).find("pads the vocabulary to a multiple of tp = 2: 1024 more") !=
            std::string::npos);
    // GPipe runs as 1F1B, said so in the header.
    Plan gpipe = unevenPlan();
    gpipe.job.schedule = Schedule::GPipe;
    QVERIFY(megatronLaunchScript(gpipe).find("simulated with GPipe; Megatron-LM has no GPipe schedule and runs 1F1B") !=
            std::string::npos);
}

void TestMegatronExport::megatronEntryPoints()
{
    // BERT goes through Megatron's BERT entry point with a real corpus (no mock BERT data in Megatron).
    Plan bert = unevenPlan(1, 2, 1);
    bert.model = buildExampleModel("bert-base"); // 12 blocks: stages of 3
    bert.job.sequenceLength = 512;
    const int b[] = {0, 4, 7, 10, 14};
    for (int st = 0; st < 4; ++st) {
        bert.pipelines[0].stages[st].firstLayer = b[st];
        bert.pipelines[0].stages[st].endLayer = b[st + 1];
    }
    const std::string script = megatronLaunchScript(bert);
    QVERIFY(script.find("\"$MEGATRON_DIR/pretrain_bert.py\"") != std::string::npos);
    QVERIFY(script.find("pretrain_gpt.py") == std::string::npos);
    QVERIFY(script.find("VOCAB_FILE=${VOCAB_FILE:?") != std::string::npos);
    QVERIFY(script.find("--mock-data") == std::string::npos);
    // 110,106,428 built = the plan's 110,104,890 + the 1,538 of the binary head (tp 2 divides 30522; see
    // tst_megatron_model for the hand count).
    QVERIFY(script.find("builds 110106428 parameters from ARGS and DATA_ARGS; the plan's model has 110104890.") !=
            std::string::npos);
    QVERIFY(script.find("Megatron's BERT is pre-norm") != std::string::npos);
    // Without the corpus the script stops before torchrun.
    ScriptRun r = runScript(script, 0);
    QVERIFY(r.exitCode != 0);
    QVERIFY(r.err.contains("set DATA_PATH"));
    // OPT-350m is refused with what Megatron cannot express.
    Plan opt = unevenPlan(1, 2, 1);
    opt.model = buildExampleModel("opt-350m", 1024); // 24 blocks: 26 layers
    const int ob[] = {0, 7, 13, 19, 26};
    for (int st = 0; st < 4; ++st) {
        opt.pipelines[0].stages[st].firstLayer = ob[st];
        opt.pipelines[0].stages[st].endLayer = ob[st + 1];
    }
    const QString why = refusal([&] { megatronArguments(opt); });
    QVERIFY2(why.startsWith("frameworks.megatron: Megatron-LM cannot build the plan's model: the word embedding is 512 "
                            "wide"),
             qPrintable(why));
    QVERIFY(why.contains("ReLU") && why.contains("post-norm"));
}

void TestMegatronExport::frameworkBoundarySends()
{
    // The job's framework decides how pipeline boundary tensors travel; each exporter writes the matching
    // switches or refuses what its framework cannot run. unevenPlan(): 4 stages, tp 2.
    Plan p = unevenPlan();
    // deepspeed-pipe / megatron-legacy: DeepSpeed partitions both directions (its defaults, written out).
    for (Framework fw : {Framework::DeepSpeedPipe, Framework::MegatronLegacy}) {
        p.job.framework = fw;
        QCOMPARE(deepSpeedConfig(p).value("pipeline").toObject(),
                 (QJsonObject{{"pipe_partitioned", true}, {"grad_partitioned", true}}));
        // Megatron-core has no scatter/gather of pipeline tensors: the launch script would not run what
        // was simulated.
        QVERIFY(refusal([&] { megatronArguments(p); }).contains("megatron-core"));
    }
    // megatron-legacy with sequence parallelism sends (s/tp, b, h) like Megatron-core with it: accepted,
    // with --sequence-parallel; DeepSpeed's engine has no sequence parallelism: refused.
    p.job.framework = Framework::MegatronLegacy;
    p.job.sequenceParallel = true;
    QVERIFY(hasArg(megatronArguments(p), "--sequence-parallel"));
    QVERIFY(refusal([&] { deepSpeedConfig(p); }).contains("sequence parallelism"));
    p.job.framework = Framework::MegatronCore;
    QVERIFY(hasArg(megatronArguments(p), "--sequence-parallel"));
    QVERIFY(refusal([&] { deepSpeedConfig(p); }).contains("sequence parallelism"));
    // Megatron-core without it: no flag; DeepSpeed sends whole tensors too (both partitions off).
    p.job.sequenceParallel = false;
    QVERIFY(!hasArg(megatronArguments(p), "--sequence-parallel"));
    QCOMPARE(deepSpeedConfig(p).value("pipeline").toObject().value("pipe_partitioned").toBool(true), false);

    // tp 1: every framework sends the whole tensor, nothing to refuse; sequence parallelism is a no-op that
    // Megatron turns off, so the flag is not written and the script's header says why.
    Plan one = unevenPlan(2, 1, 1);
    one.job.framework = Framework::DeepSpeedPipe;
    QVERIFY(refusal([&] { megatronArguments(one); }).isEmpty());
    QVERIFY(!deepSpeedConfig(one).contains("pipeline"));
    one.job.framework = Framework::MegatronCore;
    one.job.sequenceParallel = true;
    QVERIFY(!hasArg(megatronArguments(one), "--sequence-parallel"));
    QVERIFY(QString::fromStdString(megatronLaunchScript(one)).contains("does nothing with tensor parallelism 1"));
}

QTEST_GUILESS_MAIN(TestMegatronExport)
#include "tst_megatron_export.moc"
