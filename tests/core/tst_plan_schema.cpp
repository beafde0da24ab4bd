// The plan JSON Schema (resources/schema/plan.schema.json) and the validator that checks it (valijson):
// every plan toJson(Plan) writes validates; malformed documents are rejected at the offending field with a
// reason; a schema declaring a draft other than the one the validator checks (7) is refused.
#include "simfixtures.h"

#include "core/base/errors.h"
#include "core/io/json_io.h"
#include "core/io/schema_validate.h"
#include "core/model/job_fields.h"
#include "core/model/layer_fields.h"
#include "core/sim/simulator.h"
#include "core/sim/summary.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <cmath>

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

// True if `doc` has a violation at exactly `path` whose message contains `reason`; and that the
// violation comes alone, not buried in notes about every enclosing object.
bool rejectsAt(const QJsonObject& doc, const std::string& path, const std::string& reason)
{
    const std::vector<SchemaViolation> v = validatePlanJson(doc);
    for (const SchemaViolation& x : v)
        if (x.path == path && x.message.find(reason) != std::string::npos)
            return v.size() == 1 || (qWarning("expected one violation; got:\n%s", describe(v).c_str()), false);
    qWarning("no violation at '%s' mentioning '%s'; got:\n%s", path.c_str(), reason.c_str(), describe(v).c_str());
    return false;
}

bool hasViolation(const std::vector<SchemaViolation>& v, const std::string& path, const std::string& reason)
{
    return std::any_of(v.begin(), v.end(), [&](const SchemaViolation& x) {
        return x.path == path && x.message.find(reason) != std::string::npos;
    });
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
    void validatorKeywords();
    void schemaProblemsReported();
    void topLevelKeysAreNotPlannerSections();
    void planKeysAreTheSchemas();
    void jobFieldsAreTheSchemas();
    void layerFieldsAreTheSchemas();
};

namespace {
QStringList sorted(QStringList l)
{
    l.sort();
    return l;
}

// The table row and the schema's property agree on type, range and choices.
template <class T>
void compareWithSchema(const FieldSpec<T>& f, const QJsonObject& prop)
{
    const QString key = QString::fromStdString(f.decl.key);
    switch (f.decl.type) {
    case OptionType::Int: QCOMPARE(prop.value("type").toString(), QString("integer")); break;
    case OptionType::Real: QCOMPARE(prop.value("type").toString(), QString("number")); break;
    case OptionType::Bool: QCOMPARE(prop.value("type").toString(), QString("boolean")); break;
    case OptionType::Choice: {
        QStringList choices;
        for (const std::string& c : f.decl.choices)
            choices << QString::fromStdString(c);
        QCOMPARE(prop.value("enum").toVariant().toStringList(), choices);
        return;
    }
    }
    if (f.decl.type == OptionType::Bool)
        return;
    QVERIFY2(prop.contains("minimum"), qPrintable(key));
    QCOMPARE(prop.value("minimum").toDouble(), f.decl.min);
    if (std::isfinite(f.decl.max))
        QCOMPARE(prop.value("maximum").toDouble(), f.decl.max);
    else
        QVERIFY2(!prop.contains("maximum"), qPrintable(key));
}

template <class T>
void compareTableWithSchema(const std::vector<FieldSpec<T>>& fields, const QJsonObject& def,
                            const QStringList& otherKeys)
{
    const QJsonObject props = def.value("properties").toObject();
    QStringList keys = otherKeys, required;
    for (const FieldSpec<T>& f : fields) {
        keys << QString::fromStdString(f.decl.key);
        if (f.required)
            required << QString::fromStdString(f.decl.key);
        compareWithSchema(f, props.value(QString::fromStdString(f.decl.key)).toObject());
    }
    QCOMPARE(sorted(props.keys()), sorted(keys));
    QCOMPARE(sorted(def.value("required").toVariant().toStringList()), sorted(required));
}
} // namespace

void TestPlanSchema::planKeysAreTheSchemas()
{
    // The reader's key list (what is not a planner's section) and the schema's properties are the same set,
    // and so are the keys every plan must have.
    const QJsonObject& s = planSchema();
    QStringList keys, required;
    for (const PlanKey& k : planKeys()) {
        keys << k.key;
        if (k.required)
            required << k.key;
    }
    QCOMPARE(sorted(s.value("properties").toObject().keys()), sorted(keys));
    QCOMPARE(sorted(s.value("required").toVariant().toStringList()), sorted(required));
}

void TestPlanSchema::jobFieldsAreTheSchemas()
{
    // Besides the table: the version tag and the older optimizer key the reader still accepts.
    const QJsonObject job = planSchema().value("definitions").toObject().value("job").toObject();
    compareTableWithSchema(jobFields(), job, {"schema", kLegacyOptimizerKey});
}

void TestPlanSchema::layerFieldsAreTheSchemas()
{
    const QJsonObject layer = planSchema()
                                  .value("definitions").toObject()
                                  .value("modelSpec").toObject()
                                  .value("properties").toObject()
                                  .value("layers").toObject()
                                  .value("items").toObject();
    compareTableWithSchema(layerFields(), layer, {"name", "matmuls"});
}

void TestPlanSchema::topLevelKeysAreNotPlannerSections()
{
    // A planner's own section is any other lower-case key: the pattern must exclude every key the schema
    // declares (it once missed "summary"), and a written plan's keys are all declared or sections.
    const QJsonObject& s = planSchema();
    const QJsonObject patterns = s.value("patternProperties").toObject();
    QCOMPARE(patterns.size(), 1);
    const QRegularExpression section(patterns.keys().front());
    QVERIFY(section.isValid());
    const QStringList declared = s.value("properties").toObject().keys();
    for (const QString& key : declared)
        QVERIFY2(!section.match(key).hasMatch(), qPrintable(key + " matches the planner-section pattern"));
    QVERIFY(section.match("hethub").hasMatch() && section.match("poplar").hasMatch());
    Plan plan = pipelinePlan();
    plan.summary = summarize(plan, CostModel(plan.model, plan.job, plan.profile)); // "summary" written too
    for (const QString& key : toJson(plan).keys())
        QVERIFY2(declared.contains(key) || section.match(key).hasMatch(), qPrintable(key));
}

void TestPlanSchema::schemaLoads()
{
    const QJsonObject& s = planSchema();
    QCOMPARE(s.value("$schema").toString(), QString("http://json-schema.org/draft-07/schema#"));
    QVERIFY(s.value("definitions").toObject().contains("stage"));
    // The schema itself only uses keywords the validator checks: an empty document gets instance
    // violations (missing properties), none located in the schema ("#...").
    const std::vector<SchemaViolation> v = validateJson(QJsonObject(), s);
    QVERIFY(v.size() > 0);
    for (const SchemaViolation& x : v)
        QVERIFY2(x.path.rfind("#", 0) != 0, describe(v).c_str());
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
    spmd.spmd = SpmdPlan{{"all-gather 0", "forward 0"}, {{0.25, 0.25, 0.3, 0.2}}, {}, {}, {}};
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

    QVERIFY(rejectsAt(removeIn(good, {"schema"}), "/", "missing required property 'schema'"));
    QVERIFY(rejectsAt(setIn(good, {"schema"}, "hetplan.plan/2").toObject(), "/schema",
                      "\"hetplan.plan/2\" is not the required value"));
    QVERIFY(rejectsAt(setIn(good, {"pipelines", "0", "stages", "1", "tensor_parallel"}, 0).toObject(),
                      "/pipelines/0/stages/1/tensor_parallel", "0 is below the minimum 1"));
    QVERIFY(rejectsAt(setIn(good, {"pipelines", "0", "stages", "0", "layers"}, QJsonArray{3}).toObject(),
                      "/pipelines/0/stages/0/layers", "needs at least 2 items"));
    QVERIFY(rejectsAt(setIn(good, {"pipelines", "0", "micro_batches"}, 1.5).toObject(), "/pipelines/0/micro_batches",
                      "wrong type: got number 1.5"));
    QVERIFY(rejectsAt(setIn(good, {"pipelines", "0", "stages", "0", "gpus", "0"}, 3).toObject(),
                      "/pipelines/0/stages/0/gpus/0", "wrong type: got number 3"));
    // An unknown lower-case key is a planner's own section and must be an object; other names are refused.
    QVERIFY(rejectsAt(setIn(good, {"surprise"}, true).toObject(), "/surprise", "wrong type: got boolean"));
    QVERIFY(rejectsAt(setIn(good, {"Surprise"}, QJsonObject{}).toObject(), "/", "unexpected property 'Surprise'"));
    QVERIFY(validatePlanJson(setIn(good, {"ditto"}, QJsonObject{{"folds", 2}}).toObject()).empty());
    QVERIFY(rejectsAt(setIn(good, {"job", "precision"}, "fp8").toObject(), "/job/precision",
                      "\"fp8\" is not one of the allowed values"));
    QVERIFY(rejectsAt(setIn(good, {"job", "zero_stage"}, 4).toObject(), "/job/zero_stage", "4 is above the maximum 3"));
    QVERIFY(rejectsAt(removeIn(good, {"estimate", "feasible"}), "/estimate", "missing required property 'feasible'"));
    QVERIFY(rejectsAt(setIn(good, {"estimate", "peak_memory_bytes", "v100-a/0"}, "lots").toObject(),
                      "/estimate/peak_memory_bytes/v100-a/0", "wrong type: got string \"lots\""));
    QVERIFY(rejectsAt(setIn(good, {"inputs", "cluster", "nodes", "0", "communicator"}, "pigeon").toObject(),
                      "/inputs/cluster/nodes/0/communicator", "not one of the allowed values"));
    QVERIFY(
        rejectsAt(setIn(good, {"ranks", "0", "rank"}, -1).toObject(), "/ranks/0/rank", "-1 is below the minimum 0"));
    // Several problems are all reported, each at its field.
    const QJsonObject badZero{{"stage", 5}, {"gpus", QJsonArray{}}};
    const auto zero = validatePlanJson(setIn(good, {"zero"}, badZero).toObject());
    QCOMPARE(int(zero.size()), 2);
    QVERIFY(hasViolation(zero, "/zero/stage", "5 is above the maximum 3"));
    QVERIFY(hasViolation(zero, "/zero/gpus", "needs at least 1 item"));
    // Quantities in inputs may carry units as strings, but not as other types.
    QVERIFY(validatePlanJson(setIn(good, {"inputs", "cluster", "nodes", "0", "nic_bandwidth"}, "10 Gbps").toObject())
                .empty());
    QVERIFY(rejectsAt(setIn(good, {"inputs", "cluster", "nodes", "0", "nic_bandwidth"}, true).toObject(),
                      "/inputs/cluster/nodes/0/nic_bandwidth", "wrong type: got boolean true"));
    // A violation is the field and reason of the usual `file: field: reason` error.
    const SchemaViolation first = validatePlanJson(setIn(good, {"job", "zero_stage"}, 4).toObject()).front();
    QCOMPARE(std::string(InputError("plan.json", first.path, first.message).what()),
             std::string("plan.json: /job/zero_stage: 4 is above the maximum 3"));
}

void TestPlanSchema::validatorKeywords()
{
    const QJsonObject schema = QJsonDocument::fromJson(R"({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "a": { "$ref": "#/definitions/pos" },
            "b": { "type": "array", "items": { "enum": ["x", "y"] }, "maxItems": 2 },
            "c": { "const": 7 },
            "d": { "type": "number", "exclusiveMinimum": 0 },
            "e": false
        },
        "additionalProperties": { "type": "boolean" },
        "definitions": { "pos": { "type": "integer", "minimum": 1 } }
    })")
                                   .object();
    QVERIFY(
        validateJson(QJsonDocument::fromJson(R"({"a": 2, "b": ["x"], "c": 7, "d": 0.5, "z": true})").object(), schema)
            .empty());
    // a: 0 below minimum; b: "q" not in enum and 3 items; c: 8 ≠ 7; d: 0 not > 0; e: never allowed; z: not boolean.
    const auto v = validateJson(
        QJsonDocument::fromJson(R"({"a": 0, "b": ["x", "q", "y"], "c": 8, "d": 0, "e": 1, "z": 3})").object(), schema);
    QCOMPARE(int(v.size()), 7);
    QVERIFY(hasViolation(v, "/a", "0 is below the minimum 1"));
    QVERIFY(hasViolation(v, "/b/1", "\"q\" is not one of the allowed values"));
    QVERIFY(hasViolation(v, "/b", "allows at most 2 items"));
    QVERIFY(hasViolation(v, "/c", "8 is not the required value"));
    QVERIFY(hasViolation(v, "/d", "0 must be greater than 0"));
    QVERIFY(hasViolation(v, "/e", "no value is allowed here"));
    QVERIFY(hasViolation(v, "/z", "wrong type: got number 3"));
}

void TestPlanSchema::schemaProblemsReported()
{
    // A schema written for another draft (2020-12 applies a $ref's siblings; draft 7 ignores them) or for
    // none is refused at its $schema, and an unresolvable $ref at the root: nothing is checked by rules the
    // schema was not written for.
    const QJsonObject instance = QJsonDocument::fromJson(R"({"x": 5})").object();
    const QJsonObject later = QJsonDocument::fromJson(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": { "x": { "$ref": "#/$defs/pos", "maximum": 3 } },
        "$defs": { "pos": { "type": "integer", "minimum": 1 } }
    })")
                                  .object();
    auto w = validateJson(instance, later);
    QCOMPARE(int(w.size()), 1);
    QVERIFY(hasViolation(w, "#/$schema", "draft 7"));
    w = validateJson(instance, QJsonDocument::fromJson(R"({"type": "object"})").object());
    QVERIFY(hasViolation(w, "#/$schema", "draft 7"));
    const QJsonObject dangling = QJsonDocument::fromJson(R"({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": { "w": { "$ref": "#/definitions/missing" } }
    })")
                                     .object();
    QVERIFY(hasViolation(validateJson(instance, dangling), "#", "invalid schema"));
    // Draft 7 keywords are checked, not just accepted.
    const QJsonObject rich = QJsonDocument::fromJson(R"({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": { "n": { "type": "string", "pattern": "^[a-z]+$" }, "k": { "oneOf": [{ "type": "integer" },
                        { "type": "string" }] } }
    })")
                                 .object();
    QVERIFY(validateJson(QJsonDocument::fromJson(R"({"n": "abc", "k": 2})").object(), rich).empty());
    QVERIFY(hasViolation(validateJson(QJsonDocument::fromJson(R"({"n": "ABC"})").object(), rich), "/n",
                         "\"ABC\" does not match the pattern"));
    QVERIFY(!validateJson(QJsonDocument::fromJson(R"({"k": true})").object(), rich).empty());
}

QTEST_GUILESS_MAIN(TestPlanSchema)
#include "tst_plan_schema.moc"
