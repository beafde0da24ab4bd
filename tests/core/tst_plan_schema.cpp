// The plan JSON Schema (resources/schema/plan.schema.json) and the small validator that checks it:
// every plan toJson(Plan) writes validates; malformed documents are rejected with a useful path.
#include "simfixtures.h"

#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/base/errors.h"
#include "core/sim/simulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace hetplan;
using namespace hetplan::simtest;

namespace {

Plan pipelinePlan()
{
    Cluster c = testCluster({{"V100-16GB", 4}, {"T4", 4}}, 1e11, 1.25e9, 5e-6, 2e-5);
    c.nodes[0].name = "v100-a";
    c.nodes[1].name = "t4-b";
    c.links.push_back(Link{"v100-a", "t4-b", 1e9, 3e-5});
    ModelSpec m = testModel(6, 1e6, 1e5, 1e5);
    m.layers.front().kind = LayerKind::Embedding;
    m.layers.back().kind = LayerKind::Head;
    Job j;
    j.globalBatchSize = 16;
    Profile prof;
    prof.model = m.name;
    prof.source = "native";
    setTimes(prof, "V100-16GB", 2, 2, std::vector<double>(6, 0.001), std::vector<double>(6, 0.002));
    Plan p = makePlan(c, m, j, prof);
    p.planner = "amp";
    p.options["top_k"] = "5";
    // Stage 0: layers [0,3) on 2 replicas × tp 2 (V100 node); stage 1: [3,6) on the T4 node.
    p.pipelines.push_back(makePipeline({0, 3, 6}, {{0, 1, 2, 3}, {4, 5, 6, 7}}, 2, 2, 4, 2, 1));
    p.plannerEstimate = 0.5;
    p.search.seconds = 0.01;
    p.search.candidates = 42;
    p.search.extra["dropped_for_memory"] = 3;
    Candidate cd;
    cd.pp = 2;
    cd.dp = 2;
    cd.tp = 2;
    cd.microBatchSize = 2;
    cd.layersPerStage = {3, 3};
    cd.plannerCost = 0.5;
    cd.simulatedCost = 0.6;
    p.candidates.push_back(cd);
    return p;
}

Plan zeroPlan()
{
    Cluster c = testCluster({{"A100-80GB", 2}, {"V100-16GB", 2}}, 1e11, 1.25e9);
    Job j;
    j.zeroStage = 2;
    Plan p = makePlan(c, testModel(4, 1e6), j, Profile());
    p.planner = "poplar";
    ZeroPlan z;
    z.stage = 2;
    z.gpus = {ZeroGpu{0, 8, 2, 5}, ZeroGpu{1, 8, 2, 8}, ZeroGpu{2, 4, 1, 4}, ZeroGpu{3, 4, 0, 0}};
    p.zero = z;
    p.job.globalBatchSize = p.samplesPerIteration();
    return p;
}

bool rejects(const QJsonObject& doc, const char* pathPart)
{
    const std::vector<SchemaViolation> v = validatePlanJson(doc);
    for (const SchemaViolation& x : v)
        if (x.path.find(pathPart) != std::string::npos || x.message.find(pathPart) != std::string::npos)
            return true;
    qWarning("no violation mentioning '%s'; got:\n%s", pathPart, describe(v).c_str());
    return false;
}

// Sets a nested value: path of keys / array indices.
QJsonValue setIn(QJsonValue v, const QStringList& path, const QJsonValue& value, int i = 0)
{
    if (i == path.size())
        return value;
    bool isIndex = false;
    const int idx = path[i].toInt(&isIndex);
    if (isIndex && v.isArray()) {
        QJsonArray a = v.toArray();
        a[idx] = setIn(a[idx], path, value, i + 1);
        return a;
    }
    QJsonObject o = v.toObject();
    o[path[i]] = setIn(o.value(path[i]), path, value, i + 1);
    return o;
}

QJsonObject removeIn(QJsonObject o, const QStringList& path)
{
    if (path.size() == 1) {
        o.remove(path[0]);
        return o;
    }
    QJsonValue inner = o.value(path[0]);
    // Only objects along the way are needed by the tests.
    o[path[0]] = removeIn(inner.toObject(), path.mid(1));
    return o;
}

} // namespace

class TestPlanSchema : public QObject {
    Q_OBJECT
private slots:
    void schemaLoads();
    void writtenPlansValidate();
    void roundTripStillValidates();
    void invalidDocumentsRejected();
    void validatorSubset();
};

void TestPlanSchema::schemaLoads()
{
    const QJsonObject& s = planSchema();
    QCOMPARE(s.value("$schema").toString(), QString("https://json-schema.org/draft/2020-12/schema"));
    QVERIFY(s.value("$defs").toObject().contains("stage"));
    // The schema itself only uses keywords the validator checks (an unsupported one would be reported).
    QVERIFY(validateJson(QJsonObject(), s).size() > 0);
    for (const SchemaViolation& v : validateJson(QJsonObject(), s))
        QVERIFY2(v.message.find("not supported") == std::string::npos, v.message.c_str());
}

void TestPlanSchema::writtenPlansValidate()
{
    Plan pipe = pipelinePlan();
    CostModel costs(pipe.model, pipe.job, pipe.profile);
    scorePlan(pipe, costs);
    QVERIFY(!pipe.estimate.peakMemoryBytes.empty());
    const QJsonObject pj = toJson(pipe);
    QVERIFY2(validatePlanJson(pj).empty(), describe(validatePlanJson(pj)).c_str());

    Plan zero = zeroPlan();
    CostModel zc(zero.model, zero.job, zero.profile);
    scorePlan(zero, zc);
    const QJsonObject zj = toJson(zero);
    QVERIFY2(validatePlanJson(zj).empty(), describe(validatePlanJson(zj)).c_str());

    Plan spmd = zeroPlan();
    spmd.zero.reset();
    spmd.planner = "hap";
    spmd.spmd = SpmdPlan{{"all-gather 0", "forward 0"}, {{0.25, 0.25, 0.3, 0.2}}};
    const QJsonObject sj = toJson(spmd);
    QVERIFY2(validatePlanJson(sj).empty(), describe(validatePlanJson(sj)).c_str());
}

void TestPlanSchema::roundTripStillValidates()
{
    Plan pipe = pipelinePlan();
    CostModel costs(pipe.model, pipe.job, pipe.profile);
    scorePlan(pipe, costs);
    const QJsonObject once = toJson(pipe);
    const Plan back = planFromJson(once, "roundtrip.json");
    QCOMPARE(back.pipelines, pipe.pipelines);
    QCOMPARE(back.estimate.peakMemoryBytes.size(), pipe.estimate.peakMemoryBytes.size());
    // Written again through text: still valid, still the same document.
    const QJsonObject twice = toJson(back);
    QVERIFY(validatePlanJson(twice).empty());
    QCOMPARE(QJsonDocument(twice).toJson(), QJsonDocument(once).toJson());
}

void TestPlanSchema::invalidDocumentsRejected()
{
    const QJsonObject good = toJson(pipelinePlan());
    QVERIFY(validatePlanJson(good).empty());

    QVERIFY(rejects(removeIn(good, {"schema"}), "missing required property 'schema'"));
    QVERIFY(rejects(setIn(good, {"schema"}, "hetplan.plan/2").toObject(), "/schema"));
    QVERIFY(rejects(setIn(good, {"pipelines", "0", "stages", "1", "tensor_parallel"}, 0).toObject(),
                    "/pipelines/0/stages/1/tensor_parallel"));
    QVERIFY(rejects(setIn(good, {"pipelines", "0", "stages", "0", "layers"}, QJsonArray{3}).toObject(),
                    "/pipelines/0/stages/0/layers"));
    QVERIFY(rejects(setIn(good, {"pipelines", "0", "micro_batches"}, 1.5).toObject(), "expected integer"));
    QVERIFY(rejects(setIn(good, {"pipelines", "0", "stages", "0", "gpus", "0"}, 3).toObject(),
                    "/pipelines/0/stages/0/gpus/0"));
    QVERIFY(rejects(setIn(good, {"surprise"}, true).toObject(), "unexpected property 'surprise'"));
    QVERIFY(rejects(setIn(good, {"job", "precision"}, "fp8").toObject(), "/job/precision"));
    QVERIFY(rejects(setIn(good, {"job", "zero_stage"}, 4).toObject(), "above the maximum"));
    QVERIFY(rejects(removeIn(good, {"estimate", "feasible"}), "missing required property 'feasible'"));
    QVERIFY(rejects(setIn(good, {"estimate", "peak_memory_bytes", "v100-a/0"}, "lots").toObject(),
                    "/estimate/peak_memory_bytes/v100-a/0"));
    QVERIFY(rejects(setIn(good, {"inputs", "cluster", "nodes", "0", "communicator"}, "pigeon").toObject(),
                    "/inputs/cluster/nodes/0/communicator"));
    QVERIFY(rejects(setIn(good, {"zero"}, QJsonObject{{"stage", 5}, {"gpus", QJsonArray{}}}).toObject(), "/zero"));
    QVERIFY(rejects(setIn(good, {"ranks", "0", "rank"}, -1).toObject(), "below the minimum"));
    // Quantities in inputs may carry units as strings, but not as other types.
    QVERIFY(validatePlanJson(setIn(good, {"inputs", "cluster", "nodes", "0", "nic_bandwidth"}, "10 Gbps").toObject())
                .empty());
    QVERIFY(rejects(setIn(good, {"inputs", "cluster", "nodes", "0", "nic_bandwidth"}, true).toObject(),
                    "expected number or string"));
}

void TestPlanSchema::validatorSubset()
{
    const QJsonObject schema = QJsonDocument::fromJson(R"({
        "type": "object",
        "properties": {
            "a": { "$ref": "#/$defs/pos" },
            "b": { "type": "array", "items": { "enum": ["x", "y"] }, "maxItems": 2 },
            "c": { "const": 7 },
            "d": { "type": "number", "exclusiveMinimum": 0 },
            "e": false
        },
        "additionalProperties": { "type": "boolean" },
        "$defs": { "pos": { "type": "integer", "minimum": 1 } }
    })").object();
    QVERIFY(validateJson(QJsonDocument::fromJson(R"({"a": 2, "b": ["x"], "c": 7, "d": 0.5, "z": true})").object(),
                         schema)
                .empty());
    // a: 0 below minimum; b: "q" not in enum and 3 items; c: 8 ≠ 7; d: 0 not > 0; e: never allowed; z: not boolean.
    const auto v = validateJson(
        QJsonDocument::fromJson(R"({"a": 0, "b": ["x", "q", "y"], "c": 8, "d": 0, "e": 1, "z": 3})").object(), schema);
    QCOMPARE(int(v.size()), 7);
    QVERIFY(describe(v).find("/b/1") != std::string::npos);
    // Unknown keyword and unresolvable $ref are reported, not ignored.
    const QJsonObject odd = QJsonDocument::fromJson(R"({"pattern": "^a", "properties": {"x": {"$ref": "#/$defs/no"}}})")
                                .object();
    const auto w = validateJson(QJsonDocument::fromJson(R"({"x": 1})").object(), odd);
    QCOMPARE(int(w.size()), 2);
    QVERIFY(describe(w).find("not supported") != std::string::npos);
    QVERIFY(describe(w).find("unresolved") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestPlanSchema)
#include "tst_plan_schema.moc"
