// write → read → equal for every JSON format (cluster, model, job, profile, plan), through real files.
#include "testutil.h"
#include "example_request.h"

#include "core/base/errors.h"
#include "core/base/units.h"
#include "core/cost/costmodel.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/planners/planner.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;

class TestJsonRoundTrip : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    std::string path(const char* name) { return dir.filePath(name).toStdString(); }

private slots:
    void clusters()
    {
        for (const std::string& name : exampleClusterNames()) {
            Cluster c = exampleCluster(name);
            writeJsonFile(path("c.json"), toJson(c));
            QVERIFY2(readCluster(path("c.json")) == c, name.c_str());
        }
    }

    void clusterWithLinksAndCpuPath()
    {
        Cluster c = test::twoNodeCluster("T4", 4, "V100-16GB", 2, 3.125e9);
        c.nodes[1].communicator = Communicator::CpuEthernet;
        c.nodes[0].intraBandwidth = 1.6e10;
        c.nodes[0].x = 12.5;
        c.links.push_back({"a", "b", 7.5e9, 3.5e-5});
        writeJsonFile(path("c2.json"), toJson(c));
        Cluster back = readCluster(path("c2.json"));
        QVERIFY(back == c);
        // Node b talks through the CPU path (HetHub's unified communicator), which caps the explicit 7.5 GB/s
        // link at the cluster's inter-node CPU-path rate, 2.1 GB/s by default (what HetHub measured).
        QCOMPARE(back.bandwidth(0, 5), 2.1e9);
        QCOMPARE(back.latency(0, 5), 3.5e-5);
        // On the GPU path the explicit link overrides the NICs: 7.5 GB/s between a/0 and b/1.
        back.nodes[1].communicator = Communicator::GpuRdma;
        QCOMPARE(back.bandwidth(0, 5), 7.5e9);
    }

    void retiredCpuPathPenaltyStillLoads()
    {
        // Clusters (and plans, which embed their cluster) written before the CPU-path bandwidths replaced the
        // old multiplier carry `cpu_path_penalty`: they load, the field has no effect, and it is not written.
        QJsonObject o = toJson(test::twoNodeCluster("T4", 4, "V100-16GB", 2, 3.125e9));
        o["cpu_path_penalty"] = 4.0;
        writeJsonFile(path("old.json"), o);
        const Cluster back = readCluster(path("old.json"));
        QVERIFY(back == test::twoNodeCluster("T4", 4, "V100-16GB", 2, 3.125e9));
        QVERIFY(!toJson(back).contains("cpu_path_penalty"));
    }

    void unitsAreParsedExactly()
    {
        writeTextFile(path("u.json"), R"({"name":"u","inter_latency":"20 us","nodes":[{"name":"n","device":"T4",)"
                                      R"("gpus":1,"nic_bandwidth":"100 Gbps","intra_bandwidth":"16 GB/s"}]})");
        Cluster c = readCluster(path("u.json"));
        QCOMPARE(c.nodes[0].nicBandwidth, 100e9 / 8); // 100 Gbit/s = 12.5 GB/s
        QCOMPARE(c.nodes[0].intraBandwidth, 16e9);
        QCOMPARE(c.interLatency, 20e-6);
    }

    // Only plain decimal numbers before the unit (strtod also took hex, "inf" and "nan"), nothing before the
    // number or after the unit, and no subnormal value.
    void unitsAcceptOnlyDecimalNumbers()
    {
        auto q = [](const char* text, Dimension dim) { return parseQuantity(std::string(text), dim, "f", "x"); };
        auto refused = [&](const char* text, Dimension dim) {
            const auto e = test::errorOf([&] { q(text, dim); });
            return e && e->file() == "f" && e->field() == "x";
        };
        for (const char* bad : {"0x10 GB/s", "0X1p4 GB/s", "inf GB/s", "-inf GB/s", "infinity GB/s", "nan GB/s",
                                "NAN GB/s", ". GB/s", "- 5 GB/s", "e5 GB/s", "1,5 GB/s", "1e400 GB/s", "GB/s", "",
                                " 2 GB/s", "2 GB/s ", "\t2 GB/s", "1e-320 B/s"})
            QVERIFY2(refused(bad, Dimension::Bandwidth), bad);
        QCOMPARE(q("12.5 GB/s", Dimension::Bandwidth), 12.5e9);
        QCOMPARE(q("100 Gbps", Dimension::Bandwidth), 100 * (1e9 / 8)); // 12.5 GB/s
        QCOMPARE(q("+2 GiB", Dimension::Bytes), 2 * 1073741824.0);
        QCOMPARE(q("2GiB", Dimension::Bytes), 2 * 1073741824.0);
        QCOMPARE(q("2E2 B", Dimension::Bytes), 200.0);
        QCOMPARE(q("1.5e+3ms", Dimension::Seconds), 1500 * 1e-3);
        QCOMPARE(q(".5 s", Dimension::Seconds), 0.5);
        QCOMPARE(q("5. s", Dimension::Seconds), 5.0);
        QCOMPARE(q("-3 us", Dimension::Seconds), -3 * 1e-6); // sign checks are the callers'
        // An 'e' without digits starts the unit: "5 e" is the unknown unit "e", not a broken exponent.
        const auto e = test::errorOf([&] { q("5e", Dimension::Seconds); });
        QVERIFY(e && e->reason().find("unknown unit 'e'") != std::string::npos);
    }

    void models()
    {
        for (const std::string& name : exampleModelNames()) {
            ModelSpec m = buildExampleModel(name);
            writeJsonFile(path("m.json"), toJson(m));
            QVERIFY2(readModel(path("m.json")) == m, name.c_str());
        }
    }

    void tiedEmbeddingsDefaultByFamily()
    {
        // A model file that does not say: GPT-2 and OPT tie the output layer to the word embedding, Llama
        // does not; an explicit value wins.
        for (auto [family, tied] : {std::pair{"gpt2", true}, {"opt", true}, {"llama", false}, {"custom", false}}) {
            QJsonObject o = toJson(buildExampleModel("gpt2-amp"));
            QJsonObject arch = o["arch"].toObject();
            arch.remove("tied_embeddings");
            arch["family"] = family;
            o["arch"] = arch;
            writeJsonFile(path("t.json"), o);
            QCOMPARE(readModel(path("t.json")).arch.tiedEmbeddings, tied);
            arch["tied_embeddings"] = !tied;
            o["arch"] = arch;
            writeJsonFile(path("t.json"), o);
            QCOMPARE(readModel(path("t.json")).arch.tiedEmbeddings, !tied);
        }
    }

    void blockWorkDerivedFromArch()
    {
        // A model file with arch sizes but blocks without their work list: the reader derives the list the
        // example builders give a block of those sizes (GPT-2: GeLU MLP, biases, LayerNorm; Llama: SwiGLU,
        // RMSNorm, FlashAttention), so stripping it from an example and reading it back gives the example.
        for (const char* name : {"gpt2-xl", "llama2-7b"}) {
            const ModelSpec m = buildExampleModel(name);
            QJsonObject o = toJson(m);
            QJsonArray layers = o["layers"].toArray();
            int stripped = 0;
            for (int i = 0; i < layers.size(); ++i) {
                QJsonObject l = layers[i].toObject();
                if (l["kind"].toString() != "transformer")
                    continue;
                for (const char* k : {"matmuls", "memory_bytes_sharded", "memory_bytes_replicated", "kernels",
                                      "attention_score_bytes", "fused_attention"})
                    l.remove(k);
                layers[i] = l;
                ++stripped;
            }
            QVERIFY(stripped == m.arch.layers);
            o["layers"] = layers;
            writeJsonFile(path("w.json"), o);
            QVERIFY2(readModel(path("w.json")) == m, name);
            QVERIFY(modelWarnings(m).empty());
        }
        // Without the sizes nothing can be derived: the blocks keep no work list and the cost model says so.
        QJsonObject o = toJson(buildExampleModel("gpt2-amp"));
        QJsonObject arch = o["arch"].toObject();
        arch.remove("ffn");
        o["arch"] = arch;
        QJsonArray layers = o["layers"].toArray();
        QJsonObject block = layers[1].toObject();
        block.remove("matmuls");
        block.remove("kernels");
        block.remove("memory_bytes_sharded");
        block.remove("memory_bytes_replicated");
        layers[1] = block;
        o["layers"] = layers;
        writeJsonFile(path("w.json"), o);
        const ModelSpec bare = readModel(path("w.json"));
        QVERIFY(bare.layers[1].matmuls.empty());
        const auto w = modelWarnings(bare);
        QCOMPARE(int(w.size()), 1);
        QVERIFY2(w[0].find("1 layer(s) (first: 'block0')") != std::string::npos, w[0].c_str());
    }

    void job()
    {
        Job j;
        j.globalBatchSize = 48;
        j.sequenceLength = 2048;
        j.precision = Precision::BF16;
        j.zeroStage = 2;
        j.schedule = Schedule::GPipe;
        j.recompute = true;
        j.backwardFactor = 2.5;
        j.optimizerStateBytesPerParam = 12;
        writeJsonFile(path("j.json"), toJson(j));
        QVERIFY(readJob(path("j.json")) == j);
        QVERIFY(jobWarnings(readJob(path("j.json"))).empty());
        QVERIFY(toJson(j).contains("optimizer_state_bytes_per_param"));
        QVERIFY(!toJson(j).contains("optimizer_bytes_per_param"));
    }

    // The older optimizer_bytes_per_param X (the mixed-precision share, master copy included) still loads
    // with the numbers it gave before: optimizer bytes per parameter were fp16 X + 4, bf16 X, fp32 X - 4
    // (X >= 4); now states = X - 4 and the precision adds fp16 4 + 4, bf16 4, fp32 0 — the same. A warning
    // says how it was read; written back, the job states the new field and reads back without a warning.
    void jobLegacyOptimizerBytes()
    {
        for (double x : {12.0, 16.0, 6.0})
            for (auto [p, before] : {std::pair{Precision::FP16, x + 4}, {Precision::BF16, x}, {Precision::FP32, x - 4}}) {
                QJsonObject o{{"schema", "hetplan.job/1"}, {"optimizer_bytes_per_param", x},
                              {"precision", QString::fromStdString(toString(p))}};
                writeJsonFile(path("legacy.json"), o);
                const Job j = readJob(path("legacy.json"));
                QCOMPARE(j.optimizerStateBytesPerParam, x - 4);
                QCOMPARE(j.legacyOptimizerBytesPerParam, x);
                QCOMPARE(stateBytesPerParam(j).optimizer, before);
                const auto w = jobWarnings(j);
                QCOMPARE(int(w.size()), 1);
                QVERIFY2(w[0].find("optimizer_bytes_per_param") != std::string::npos, w[0].c_str());
                QCOMPARE(w[0].find("no master copy") != std::string::npos, p == Precision::FP32);
                writeJsonFile(path("legacy2.json"), toJson(j));
                const Job back = readJob(path("legacy2.json"));
                QCOMPARE(back.optimizerStateBytesPerParam, j.optimizerStateBytesPerParam);
                QCOMPARE(back.legacyOptimizerBytesPerParam, -1.0);
                QVERIFY(jobWarnings(back).empty());
                QCOMPARE(stateBytesPerParam(back).total(), stateBytesPerParam(j).total());
            }
    }

    // Reader errors name the file, the field and the reason.
    void jobOptimizerErrors_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("reason");
        QTest::newRow("both") << R"({"optimizer_bytes_per_param": 12, "optimizer_state_bytes_per_param": 8})"
                              << "optimizer_bytes_per_param"
                              << "not both";
        QTest::newRow("negative") << R"({"optimizer_state_bytes_per_param": -1})"
                                  << "optimizer_state_bytes_per_param"
                                  << "between 0 and 1024";
        QTest::newRow("too big") << R"({"optimizer_state_bytes_per_param": 2000})"
                                 << "optimizer_state_bytes_per_param"
                                 << "between 0 and 1024";
        QTest::newRow("legacy negative") << R"({"optimizer_bytes_per_param": -4})"
                                         << "optimizer_bytes_per_param"
                                         << "between 0 and 1028";
    }
    void jobOptimizerErrors()
    {
        QFETCH(QString, json);
        QFETCH(QString, field);
        QFETCH(QString, reason);
        QFile f(QString::fromStdString(path("bad.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(json.toUtf8());
        f.close();
        const auto e = test::errorOf([&] {
            Job j = readJob(path("bad.json"));
            j.validate(path("bad.json"));
        });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), path("bad.json"));
        QCOMPARE(e->field(), field.toStdString());
        QVERIFY2(e->reason().find(reason.toStdString()) != std::string::npos, e->what());
    }

    // A gpt2-family model whose head carries its own vocabulary matrix (as the untied OPT and GPT-Neo
    // pipeline models of Megatron-DeepSpeed do): without tied_embeddings it reads as untied (tying would
    // count the matrix again on the head's stage) and warns; an explicit value wins, with a warning when
    // it says tied; written back, the field is stated and the model reads back equal, without a warning.
    void tiedEmbeddingsWithSeparateHead()
    {
        ModelSpec m = buildExampleModel("gpt2-amp");
        const double matrix = m.arch.wordEmbeddingParams();
        QVERIFY(matrix > 0);
        QVERIFY(!m.headHoldsVocabularyMatrix());
        m.layers.back().params += matrix; // the head's own vocab x hidden matrix
        QVERIFY(m.headHoldsVocabularyMatrix());
        QJsonObject o = toJson(m);
        QJsonObject arch = o["arch"].toObject();
        arch.remove("tied_embeddings");
        o["arch"] = arch;
        writeJsonFile(path("sep.json"), o);
        const ModelSpec read = readModel(path("sep.json"));
        QVERIFY(!read.arch.tiedEmbeddings);
        QVERIFY(!read.arch.tiedEmbeddingsStated);
        auto w = modelWarnings(read);
        QCOMPARE(int(w.size()), 1);
        QVERIFY2(w[0].find("tied_embeddings is not given") != std::string::npos, w[0].c_str());
        QVERIFY2(w[0].find("usually ties") != std::string::npos, w[0].c_str());
        // The head stage holds the matrix once: no tied copy.
        QCOMPARE(read.tiedCopyParams(read.layerCount() - 1, read.layerCount()), 0.0);
        // Written back: stated, equal, no warning.
        writeJsonFile(path("sep2.json"), toJson(read));
        const ModelSpec back = readModel(path("sep2.json"));
        QVERIFY(back.arch.tiedEmbeddingsStated);
        QVERIFY(modelWarnings(back).empty());
        ModelSpec expect = read;
        expect.arch.tiedEmbeddingsStated = true;
        QVERIFY(back == expect);
        // Explicitly tied with a separate matrix: as said, with a warning about counting it twice.
        arch["tied_embeddings"] = true;
        o["arch"] = arch;
        writeJsonFile(path("sep3.json"), o);
        const ModelSpec tied = readModel(path("sep3.json"));
        QVERIFY(tied.arch.tiedEmbeddings);
        w = modelWarnings(tied);
        QCOMPARE(int(w.size()), 1);
        QVERIFY2(w[0].find("twice") != std::string::npos, w[0].c_str());
        // Explicitly untied: no warning.
        arch["tied_embeddings"] = false;
        o["arch"] = arch;
        writeJsonFile(path("sep4.json"), o);
        QVERIFY(modelWarnings(readModel(path("sep4.json"))).empty());
    }

    void jobFramework()
    {
        // Every framework value and sequence parallelism survive write → read.
        for (Framework fw : {Framework::MegatronCore, Framework::MegatronLegacy, Framework::DeepSpeedPipe})
            for (bool sp : {false, true}) {
                if (sp && fw == Framework::DeepSpeedPipe)
                    continue; // refused below
                Job j;
                j.framework = fw;
                j.sequenceParallel = sp;
                writeJsonFile(path("jf.json"), toJson(j));
                QVERIFY(readJob(path("jf.json")) == j);
            }
        // A job file from before the fields existed loads with the documented defaults: Megatron-core,
        // no sequence parallelism.
        QJsonObject old = toJson(Job{});
        old.remove("framework");
        old.remove("sequence_parallel");
        old["global_batch_size"] = 64;
        writeJsonFile(path("old.json"), old);
        const Job loaded = readJob(path("old.json"));
        QCOMPARE(loaded.globalBatchSize, 64);
        QVERIFY(loaded.framework == Framework::MegatronCore);
        QVERIFY(!loaded.sequenceParallel);
        QVERIFY(loaded.tf32); // TF32 on unless the file says otherwise
        Job noTf32;
        noTf32.tf32 = false;
        writeJsonFile(path("tf32.json"), toJson(noTf32));
        QVERIFY(readJob(path("tf32.json")) == noTf32);
        // Errors name file, field and reason as the other fields' do.
        auto errorFor = [&](const QJsonObject& o) {
            writeJsonFile(path("bad.json"), o);
            const auto e = test::errorOf([&] { readJob(path("bad.json")); });
            return e ? QString::fromStdString(e->file() + ": " + e->field() + ": " + e->reason()) : QString();
        };
        const QString bad = QString::fromStdString(path("bad.json"));
        QJsonObject o = toJson(Job{});
        o["framework"] = "megatron";
        QCOMPARE(errorFor(o), bad + ": framework: expected megatron-core, megatron-legacy or deepspeed-pipe, got "
                                    "\"megatron\"");
        o["tf32"] = 1;
        QVERIFY(errorFor(o).startsWith(bad + ": tf32: "));
        o.remove("tf32");
        o["framework"] = "deepspeed-pipe";
        o["sequence_parallel"] = "yes";
        QVERIFY(errorFor(o).startsWith(bad + ": sequence_parallel: "));
        o["sequence_parallel"] = true;
        QVERIFY(errorFor(o).startsWith(bad + ": sequence_parallel: DeepSpeed's pipeline engine has no Megatron "
                                             "sequence parallelism"));
    }

    void profile()
    {
        Profile p;
        p.model = "toy";
        p.source = "native";
        p.set({"T4", 1, 1}, {{0.001, 0.002, 0.0001, -1}, {0.003, 0.006, 0, 1.5e6}});
        p.set({"T4", 2, 4}, {{0.002, 0.004, 0, -1}, {0.0035, 0.007, 0, 2e6}});
        p.set({"V100-16GB", 1, 2}, {{1.0 / 3, 2.0 / 3, 0, -1}, {1e-9, 2e-9, 0, 0}});
        writeJsonFile(path("p.json"), toJson(p));
        QVERIFY(readProfile(path("p.json")) == p);
    }

    void plan()
    {
        PlanRequest req = test::exampleRequest("amp-het-cluster", "gpt2-amp", 32);
        req.options["mbs"] = "2";
        Progress progress;
        Plan p = runPlanner("uniform", req, progress);
        // Decorate with every optional part so all of them round-trip.
        p.plannerEstimate = 1.25;
        p.search.extra["dropped_for_memory"] = 3;
        p.candidates.push_back({2, 8, 1, 2, {13, 13}, 1.5, 1.6});
        p.candidates.push_back({4, 4, 1, 1, {7, 6, 7, 6}, 1.7, std::nullopt});
        p.details["ditto"] = QJsonObject{{"recovery", "dp"}, {"folding", QJsonObject{{"V100-16GB", 2}}}};
        p.details["hethub"] = QJsonObject{{"mfu", 0.41}};
        p.profile.model = "gpt2-amp";
        std::vector<LayerTiming> t(26, LayerTiming{0.01, 0.02, 0, -1});
        p.profile.set({"T4", 1, 1}, t);
        writeJsonFile(path("plan.json"), toJson(p));
        Plan back = readPlan(path("plan.json"));
        QVERIFY(back == p);
        // The scored plan carries each GPU's memory breakdown, and the summary each type's.
        QVERIFY(!p.estimate.memory.empty());
        for (const auto& [g, m] : p.estimate.memory)
            QCOMPARE(m.total(), p.estimate.peakMemoryBytes.at(g));
        QVERIFY(p.summary && !p.summary->deviceTypes.empty());
        for (const DeviceTypeSummary& d : p.summary->deviceTypes)
            QCOMPARE(d.peakMemory.total(), d.peakMemoryBytes);
        // Planner sections are top-level keys, allowed by the schema.
        QCOMPARE(toJson(p)["ditto"].toObject()["recovery"].toString(), QString("dp"));
        QVERIFY(validatePlanJson(toJson(p)).empty());
        // A planner may not overwrite the plan's own keys; a stray non-object key is refused on reading.
        Plan clash = p;
        clash.details["estimate"] = QJsonObject{};
        QVERIFY_THROWS_EXCEPTION(std::logic_error, toJson(clash));
        QJsonObject stray = toJson(p);
        stray["ditto_typo"] = 3;
        const auto err = test::errorOf([&] { planFromJson(stray, "stray.json"); });
        QVERIFY(err.has_value());
        QCOMPARE(err->field(), std::string("ditto_typo"));
        QVERIFY(!validatePlanJson(stray).empty());

        Plan z;
        z.planner = "data-parallel";
        z.cluster = test::twoNodeCluster("T4", 2, "V100-16GB", 2);
        z.model = test::toyModel(4);
        z.job.globalBatchSize = 22;
        z.job.zeroStage = 2;      // the plan's ZeRO section and job must agree,
        z.job.sequenceLength = 1; // and so must the job and the toy model's sequence length
        // 3×4+2 = 14 and 2×4 = 8 samples: 14 + 8 = 22
        z.zero = ZeroPlan{2, {{0, 4, 4, 2}, {3, 4, 2, 4}}};
        z.spmd = SpmdPlan{{"AllGather(w0)", "MatMul"}, {{0.25, 0.75}, {0.5, 0.5}}, {}, {}, {}};
        z.estimate.peakMemoryBytes[3] = 12345;
        GpuMemory parts;
        parts.weights = 1000;
        parts.gradients = 2000;
        parts.optimizer = 3000;
        parts.activations = 4000;
        parts.gradientBuffer = 345;
        parts.allocatorReserve = 1000;
        parts.communicators = 500;
        parts.context = 500;
        QCOMPARE(parts.total(), 12345.0);
        z.estimate.memory[3] = parts;
        writeJsonFile(path("zero.json"), toJson(z));
        QVERIFY(readPlan(path("zero.json")) == z);
        QVERIFY(validatePlanJson(toJson(z)).empty());
        // A breakdown whose total is not the sum of its terms is refused, naming the field.
        QJsonObject bad = toJson(z);
        QJsonObject est = bad["estimate"].toObject();
        QJsonObject mb = est["memory_breakdown"].toObject();
        const QString gpu = mb.keys().front();
        QJsonObject one = mb[gpu].toObject();
        one["total"] = 99.0;
        mb[gpu] = one;
        est["memory_breakdown"] = mb;
        bad["estimate"] = est;
        const auto e = test::errorOf([&] { planFromJson(bad, "bad.json"); });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), std::string("bad.json"));
        QVERIFY2(e->field().find("memory_breakdown") != std::string::npos && e->field().find("total") != std::string::npos,
                 e->what());
    }

    // The plan reader takes whole numbers only and refuses inputs that cannot belong to one run.
    void planReaderCrossChecksInputs()
    {
        PlanRequest req = test::exampleRequest("amp-het-cluster", "gpt2-amp", 32);
        req.options["mbs"] = "2";
        Progress progress;
        Plan p = runPlanner("uniform", req, progress);
        p.profile.set({"T4", 1, 1}, std::vector<LayerTiming>(26, LayerTiming{0.01, 0.02, 0, -1}));
        const QJsonObject good = toJson(p);
        QVERIFY(planFromJson(good, "p.json") == p);

        auto errorFor = [](const QJsonObject& o) {
            const auto e = test::errorOf([&] { planFromJson(o, "p.json"); });
            return e ? QString::fromStdString(e->field() + ": " + e->reason()) : QString();
        };
        auto firstStage = [&](const QJsonObject& o) {
            return o["pipelines"].toArray()[0].toObject()["stages"].toArray()[0].toObject();
        };
        auto withFirstStage = [&](QJsonObject o, const QJsonObject& st) {
            QJsonArray pls = o["pipelines"].toArray();
            QJsonObject pl = pls[0].toObject();
            QJsonArray stages = pl["stages"].toArray();
            stages[0] = st;
            pl["stages"] = stages;
            pls[0] = pl;
            o["pipelines"] = pls;
            return o;
        };

        // "layers": [0.5, end] used to read as [0, end] and pass.
        QJsonObject st = firstStage(good);
        const int end = st["layers"].toArray()[1].toInt();
        st["layers"] = QJsonArray{0.5, end};
        QCOMPARE(errorFor(withFirstStage(good, st)), QString("pipelines[0].stages[0].layers[0]: expected an integer"));
        st["layers"] = QJsonArray{0, end + 0.25};
        QCOMPARE(errorFor(withFirstStage(good, st)), QString("pipelines[0].stages[0].layers[1]: expected an integer"));
        st["layers"] = QJsonArray{0.0, double(end)}; // whole numbers written as doubles are fine
        QVERIFY(planFromJson(withFirstStage(good, st), "p.json") == p);
        QJsonObject cand = good;
        cand["candidates"] = QJsonArray{QJsonObject{{"pp", 2},
                                                    {"dp", 1},
                                                    {"tp", 1},
                                                    {"micro_batch_size", 1},
                                                    {"layers_per_stage", QJsonArray{13, 12.5}},
                                                    {"planner_cost", 1}}};
        QCOMPARE(errorFor(cand), QString("candidates[0].layers_per_stage[1]: expected an integer"));

        // A profile of another model: 25 layers against the model's 26.
        Plan shortProfile = p;
        shortProfile.profile = Profile();
        shortProfile.profile.set({"T4", 1, 1}, std::vector<LayerTiming>(25, LayerTiming{0.01, 0.02, 0, -1}));
        QCOMPARE(errorFor(toJson(shortProfile)),
                 QString("inputs.profile.layers: the profile has 25 layers, the model 26"));

        // The job at another sequence length than the model was built for.
        QJsonObject seq = good;
        QJsonObject job = seq["job"].toObject();
        job["sequence_length"] = 2048;
        seq["job"] = job;
        QCOMPARE(errorFor(seq), QString("job.sequence_length: 2048 differs from the model's sequence length 1024"));
        // A model without a sequence length (arch.sequence 0) takes any.
        Plan noSeq = p;
        noSeq.model.arch.sequence = 0;
        noSeq.job.sequenceLength = 2048;
        QVERIFY(planFromJson(toJson(noSeq), "p.json") == noSeq);

        // A ZeRO section's stage is the planner's choice, at least the job's (Poplar raises it per plan).
        Plan z;
        z.planner = "data-parallel";
        z.cluster = test::twoNodeCluster("T4", 2, "V100-16GB", 2);
        z.model = test::toyModel(4);
        z.job.globalBatchSize = 8;
        z.job.sequenceLength = 1; // the toy model's
        z.job.zeroStage = 1;
        z.zero = ZeroPlan{3, {{0, 4, 1, 4}, {1, 4, 1, 4}}};
        QVERIFY(planFromJson(toJson(z), "p.json") == z);
        z.zero->stage = 1;
        QVERIFY(planFromJson(toJson(z), "p.json") == z);
        z.job.zeroStage = 2;
        QCOMPARE(errorFor(toJson(z)),
                 QString("zero.stage: ZeRO stage 1 is below job.zero_stage 2, the least the job asks for"));
    }

    void planReaderRejectsDoubleBookedGpu()
    {
        Plan p;
        p.planner = "x";
        p.cluster = test::twoNodeCluster("T4", 2, "T4", 2);
        p.model = test::toyModel(4);
        p.job.globalBatchSize = 4;
        Pipeline pl;
        pl.microBatches = 4;
        pl.stages = {{0, 2, {0}, 1, 1}, {2, 4, {0}, 1, 1}};
        p.pipelines = {pl};
        QVERIFY_THROWS_EXCEPTION(InputError, p.validate("p"));
        p.pipelines[0].stages[1].gpus = {1};
        p.validate("p"); // fixed
        p.job.globalBatchSize = 5;
        QVERIFY_THROWS_EXCEPTION(InputError, p.validate("p"));
    }
};

QTEST_GUILESS_MAIN(TestJsonRoundTrip)
#include "tst_json_roundtrip.moc"
