// JSON readers/writers for cluster, model, job and profile. Plans are in plan_json.cpp.
#include "json_io.h"

#include "core/base/json_fields.h"
#include "core/base/json_reader.h"
#include "core/model/job_fields.h"
#include "core/model/layer_fields.h"
#include "core/base/qstrings.h"

#include "core/base/errors.h"
#include "core/base/input_file.h"
#include "core/base/json_parse.h"
#include "core/base/output_file.h"
#include "core/base/physical_ranges.h"

#include <QFile>
#include <algorithm>
#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>
#include <memory>

namespace hetplan {

namespace {

void requireSchema(const JsonReader& r, const char* expected)
{
    if (!r.has("schema"))
        return; // hand-written files may omit it
    const std::string s = r.string("schema");
    if (s != expected)
        r.fail("schema", "expected \"" + std::string(expected) + "\", got \"" + s + "\"");
}

// A reader for one of the versioned documents: keys other than `keys` are refused, and "schema" must name
// `schema` when present.
JsonReader documentReader(const QJsonObject& o, const std::string& file, const char* schema,
                          std::initializer_list<const char*> keys)
{
    JsonReader r(o, file);
    r.allowOnly(keys);
    requireSchema(r, schema);
    return r;
}
} // namespace

// ---------------------------------------------------------------- cluster

QJsonObject toJson(const Cluster& c)
{
    QJsonObject o;
    o["schema"] = "hetplan.cluster/1";
    o["name"] = toQString(c.name);
    if (!c.description.empty())
        o["description"] = toQString(c.description);
    o["intra_latency"] = c.intraLatency;
    o["inter_latency"] = c.interLatency;
    o["cpu_intra_bandwidth"] = c.cpuIntraBandwidth;
    o["cpu_inter_bandwidth"] = c.cpuInterBandwidth;
    QJsonArray nodes;
    for (const Node& n : c.nodes) {
        QJsonObject j;
        j["name"] = toQString(n.name);
        j["device"] = toQString(n.deviceType);
        j["gpus"] = n.gpus;
        if (n.intraBandwidth > 0)
            j["intra_bandwidth"] = n.intraBandwidth;
        j["nic_bandwidth"] = n.nicBandwidth;
        j["communicator"] = n.communicator == Communicator::CpuEthernet ? "cpu-ethernet" : "gpu-rdma";
        if (n.runtimeOverhead >= 0)
            j["runtime_overhead"] = n.runtimeOverhead;
        if (n.pricePerGpuHour >= 0)
            j["price_per_gpu_hour"] = n.pricePerGpuHour;
        if (!n.pcie.isDefault()) { // only what the file set: the defaults follow the catalog
            QJsonObject t;
            if (n.pcie.gpusPerSwitch > 0)
                t["gpus_per_switch"] = n.pcie.gpusPerSwitch;
            if (n.pcie.p2p >= 0)
                t["p2p"] = n.pcie.p2p == 1;
            j["pcie_topology"] = t;
        }
        if (n.failed) // a state worth keeping, written only when set so healthy files stay as they were
            j["failed"] = true;
        j["x"] = n.x;
        j["y"] = n.y;
        nodes.append(j);
    }
    o["nodes"] = nodes;
    if (!c.links.empty()) {
        QJsonArray links;
        for (const Link& l : c.links)
            links.append(
                QJsonObject{{"a", toQString(l.a)}, {"b", toQString(l.b)}, {"bandwidth", l.bandwidth}, {"latency", l.latency}});
        o["links"] = links;
    }
    return o;
}

Cluster clusterFromJson(const QJsonObject& o, const std::string& file, bool allowEmpty)
{
    const JsonReader r = documentReader(o, file, "hetplan.cluster/1",
                                        {"schema", "name", "description", "intra_latency", "inter_latency",
                                         "cpu_intra_bandwidth", "cpu_inter_bandwidth", "nodes", "links",
                                         "cpu_path_penalty"});
    // `cpu_path_penalty` (a multiplier on CPU-path links) was retired for the CPU-path bandwidths above; it is
    // accepted and ignored so that clusters, plans and projects written before keep loading.
    Cluster c;
    c.name = r.string("name");
    c.description = r.string("description", "");
    c.intraLatency = r.quantity("intra_latency", Dimension::Seconds, c.intraLatency);
    c.interLatency = r.quantity("inter_latency", Dimension::Seconds, c.interLatency);
    c.cpuIntraBandwidth = r.quantity("cpu_intra_bandwidth", Dimension::Bandwidth, c.cpuIntraBandwidth);
    c.cpuInterBandwidth = r.quantity("cpu_inter_bandwidth", Dimension::Bandwidth, c.cpuInterBandwidth);
    const QJsonArray nodes = r.array("nodes");
    for (int i = 0; i < nodes.size(); ++i) {
        JsonReader n = r.element(nodes, "nodes", i);
        n.allowOnly({"name", "device", "gpus", "intra_bandwidth", "nic_bandwidth", "communicator", "runtime_overhead",
                     "price_per_gpu_hour", "pcie_topology", "failed", "x", "y"});
        Node node;
        node.name = n.string("name");
        node.deviceType = n.string("device");
        if (const DeviceType* d = DeviceCatalog::builtin().find(node.deviceType))
            node.deviceType = d->name; // canonical catalog name, aliases accepted
        node.gpus = n.integer("gpus");
        node.intraBandwidth = n.quantity("intra_bandwidth", Dimension::Bandwidth, 0);
        if (n.has("intra_bandwidth") && node.intraBandwidth <= 0)
            n.fail("intra_bandwidth", "must be positive");
        node.nicBandwidth = n.quantity("nic_bandwidth", Dimension::Bandwidth);
        const std::string comm = n.string("communicator", "gpu-rdma");
        if (comm == "gpu-rdma")
            node.communicator = Communicator::GpuRdma;
        else if (comm == "cpu-ethernet")
            node.communicator = Communicator::CpuEthernet;
        else
            n.fail("communicator", "expected \"gpu-rdma\" or \"cpu-ethernet\", got \"" + comm + "\"");
        node.runtimeOverhead = n.quantity("runtime_overhead", Dimension::Bytes, -1);
        if (n.has("runtime_overhead") && !(node.runtimeOverhead >= 0))
            n.fail("runtime_overhead", "must be at least 0");
        if (n.has("price_per_gpu_hour")) {
            node.pricePerGpuHour = n.number("price_per_gpu_hour");
            checkRange(ranges::kPricePerGpuHour, node.pricePerGpuHour, file, n.field("price_per_gpu_hour"));
        }
        if (n.has("pcie_topology")) {
            const JsonReader t = n.object("pcie_topology");
            t.allowOnly({"gpus_per_switch", "p2p"});
            if (t.has("gpus_per_switch")) {
                node.pcie.gpusPerSwitch = t.integer("gpus_per_switch");
                if (node.pcie.gpusPerSwitch < 1 || node.pcie.gpusPerSwitch > 1024)
                    t.fail("gpus_per_switch", "must be between 1 and 1024");
            }
            if (t.has("p2p"))
                node.pcie.p2p = t.boolean("p2p", true) ? 1 : 0;
        }
        node.failed = n.boolean("failed", false);
        node.x = n.number("x", 0);
        node.y = n.number("y", 0);
        c.nodes.push_back(node);
    }
    if (r.has("links")) {
        const QJsonArray links = r.array("links");
        for (int i = 0; i < links.size(); ++i) {
            JsonReader l = r.element(links, "links", i);
            l.allowOnly({"a", "b", "bandwidth", "latency"});
            Link link;
            link.a = l.string("a");
            link.b = l.string("b");
            link.bandwidth = l.quantity("bandwidth", Dimension::Bandwidth);
            link.latency = l.quantity("latency", Dimension::Seconds, c.interLatency);
            c.links.push_back(link);
        }
    }
    c.validate(DeviceCatalog::builtin(), file, allowEmpty);
    return c;
}

// ---------------------------------------------------------------- model

namespace {
// The analytic profile's matmul list of a layer (absent when the layer has none).
void writeMatmuls(QJsonObject& j, const LayerSpec& l)
{
    if (!l.matmuls.empty()) {
        QJsonArray mms;
        for (const MatMul& mm : l.matmuls) {
            QJsonObject o{{"m", mm.m}, {"n", mm.n}, {"k", mm.k}, {"tp_split", toQString(toString(mm.split))}};
            if (mm.batch != 1)
                o["batch"] = mm.batch;
            if (mm.perSampleBatch)
                o["per_sample_batch"] = true;
            mms.append(o);
        }
        j["matmuls"] = mms;
    }
}

// Every key a layer may have: its name, the table's scalars and the matmul list.
const std::vector<std::string>& layerKeys()
{
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k = fieldKeys(layerFields());
        k.insert(k.end(), {"name", "matmuls"});
        return k;
    }();
    return keys;
}

void readMatmuls(const JsonReader& l, LayerSpec& s)
{
    if (l.has("matmuls")) {
        const QJsonArray mms = l.array("matmuls");
        for (int k = 0; k < mms.size(); ++k) {
            const JsonReader r = l.element(mms, "matmuls", k);
            r.allowOnly({"m", "n", "k", "batch", "tp_split", "per_sample_batch"});
            MatMul mm;
            mm.m = r.number("m");
            mm.n = r.number("n");
            mm.k = r.number("k");
            mm.batch = r.number("batch", 1);
            const std::string split = r.string("tp_split", "none");
            if (!parseTpSplit(split, mm.split))
                r.fail("tp_split", "expected none, n, k or batch, got '" + split + "'");
            mm.perSampleBatch = r.boolean("per_sample_batch", false);
            s.matmuls.push_back(mm);
        }
    }
}
} // namespace

QJsonObject toJson(const ModelSpec& m)
{
    QJsonObject o;
    o["schema"] = "hetplan.model/1";
    o["name"] = toQString(m.name);
    const ModelArch& a = m.arch;
    QJsonObject arch{{"family", toQString(a.family)}, {"layers", a.layers},   {"hidden", a.hidden},
                     {"heads", a.heads},       {"ffn", a.ffn},         {"vocab", a.vocab},
                     {"sequence", a.sequence}, {"experts", a.experts}, {"bytes_per_param", a.bytesPerParam}};
    if (a.kvHeads > 0)
        arch["kv_heads"] = a.kvHeads;
    if (a.embedDim > 0)
        arch["embed_dim"] = a.embedDim;
    if (a.imageSize > 0)
        arch["image_size"] = a.imageSize;
    if (a.classes > 0)
        arch["classes"] = a.classes;
    if (a.ropeBase > 0)
        arch["rope_base"] = a.ropeBase;
    if (a.positions > 0)
        arch["positions"] = a.positions;
    if (a.qkvBias)
        arch["qkv_bias"] = true;
    arch["tied_embeddings"] = a.tiedEmbeddings;
    o["arch"] = arch;
    QJsonArray layers;
    for (const LayerSpec& l : m.layers) {
        QJsonObject j;
        j["name"] = toQString(l.name);
        writeFields(j, l, layerFields());
        writeMatmuls(j, l);
        layers.append(j);
    }
    o["layers"] = layers;
    return o;
}

ModelSpec modelFromJson(const QJsonObject& o, const std::string& file)
{
    const JsonReader r = documentReader(o, file, "hetplan.model/1", {"schema", "name", "arch", "layers"});
    ModelSpec m;
    m.name = r.string("name");
    if (r.has("arch")) {
        JsonReader a = r.object("arch");
        m.arch.family = a.string("family", "custom");
        m.arch.layers = a.integer("layers", 0);
        m.arch.hidden = a.integer("hidden", 0);
        m.arch.heads = a.integer("heads", 0);
        m.arch.kvHeads = a.integer("kv_heads", 0);
        m.arch.ffn = a.integer("ffn", 0);
        m.arch.vocab = a.integer("vocab", 0);
        m.arch.sequence = a.integer("sequence", 0);
        m.arch.experts = a.integer("experts", 0);
        m.arch.bytesPerParam = a.integer("bytes_per_param", 2);
        m.arch.embedDim = a.integer("embed_dim", 0);
        m.arch.imageSize = a.integer("image_size", 0);
        m.arch.classes = a.integer("classes", 0);
        m.arch.ropeBase = a.integer("rope_base", 0);
        m.arch.positions = a.integer("positions", 0);
        m.arch.qkvBias = a.boolean("qkv_bias", false);
        m.arch.tiedEmbeddingsStated = a.has("tied_embeddings");
        if (m.arch.tiedEmbeddingsStated)
            m.arch.tiedEmbeddings = a.boolean("tied_embeddings", false);
    }
    const QJsonArray layers = r.array("layers");
    for (int i = 0; i < layers.size(); ++i) {
        JsonReader l = r.element(layers, "layers", i);
        LayerSpec s;
        l.allowOnly(layerKeys());
        s.name = l.string("name", "layer" + std::to_string(i));
        readFields(l, s, layerFields());
        readMatmuls(l, s);
        m.layers.push_back(s);
    }
    // Not stated: untied when the head carries its own vocabulary matrix, else the family's convention
    // (modelWarnings says which when the file is ambiguous).
    if (!m.arch.tiedEmbeddingsStated)
        m.arch.tiedEmbeddings = m.defaultTiedEmbeddings();
    deriveMissingWork(m); // blocks sized by arch but without a work list get the builders' one
    m.validate(file);
    return m;
}

// ---------------------------------------------------------------- job

QJsonObject toJson(const Job& j)
{
    QJsonObject o;
    writeFields(o, j, jobFields());
    return o;
}

Job jobFromJson(const QJsonObject& o, const std::string& file, Job j)
{
    std::vector<std::string> keys = fieldKeys(jobFields());
    keys.insert(keys.end(), {"schema", kLegacyOptimizerKey});
    JsonReader r(o, file);
    r.allowOnly(keys);
    requireSchema(r, "hetplan.job/1");
    readFields(r, j, jobFields());
    if (r.has(kLegacyOptimizerKey)) {
        // The older field: the mixed-precision optimizer's share, fp32 master copy included.
        if (r.has("optimizer_state_bytes_per_param"))
            r.fail(kLegacyOptimizerKey,
                   "give optimizer_state_bytes_per_param (the optimizer's own states, Adam: 8) or the older "
                   "optimizer_bytes_per_param, not both");
        const double legacy = r.number(kLegacyOptimizerKey);
        if (!(legacy >= 0) || !(legacy <= 1028))
            r.fail(kLegacyOptimizerKey, "must be between 0 and 1028");
        j.legacyOptimizerBytesPerParam = legacy;
        j.optimizerStateBytesPerParam = std::max(0.0, legacy - 4);
    } else {
        j.legacyOptimizerBytesPerParam = -1;
    }
    j.validate(file);
    return j;
}

// ---------------------------------------------------------------- profile

namespace {
// "measured_on": [{device, hardware, tool, software, max_micro_batch: [{tp, micro_batch}]}], as hetplan-profile
// writes it: the machine behind a device type's tables.
QJsonArray measuredOnJson(const std::map<std::string, DeviceMeasurement>& measuredOn)
{
    QJsonArray out;
    for (const auto& [device, m] : measuredOn) {
        QJsonObject j{{"device", toQString(device)}};
        for (const auto& [key, value] : {std::pair{"hardware", &m.hardware}, std::pair{"tool", &m.tool},
                                         std::pair{"software", &m.software}})
            if (!value->empty())
                j[key] = toQString(*value);
        if (!m.maxMicroBatch.empty()) {
            QJsonArray limits;
            for (const auto& [tp, mbs] : m.maxMicroBatch)
                limits.append(QJsonObject{{"tp", tp}, {"micro_batch", mbs}});
            j["max_micro_batch"] = limits;
        }
        out.append(j);
    }
    return out;
}

void readMeasuredOn(const JsonReader& r, Profile& p)
{
    const QJsonArray list = r.array("measured_on");
    for (int i = 0; i < list.size(); ++i) {
        const JsonReader e = r.element(list, "measured_on", i);
        e.allowOnly({"device", "hardware", "tool", "software", "max_micro_batch"});
        std::string device = e.string("device");
        if (const DeviceType* d = DeviceCatalog::builtin().find(device))
            device = d->name;
        else
            e.fail("device", "unknown device type '" + device + "' (see hetplan-cli list devices)");
        DeviceMeasurement m;
        m.hardware = e.string("hardware", "");
        m.tool = e.string("tool", "");
        m.software = e.string("software", "");
        if (e.has("max_micro_batch")) {
            const QJsonArray limits = e.array("max_micro_batch");
            for (int k = 0; k < limits.size(); ++k) {
                const JsonReader l = e.element(limits, "max_micro_batch", k);
                l.allowOnly({"tp", "micro_batch"});
                const int tp = l.integer("tp"), mbs = l.integer("micro_batch");
                if (tp < 1 || mbs < 1)
                    l.fail("micro_batch", "tp and micro_batch must be at least 1");
                m.maxMicroBatch[tp] = mbs;
            }
        }
        p.measuredOn[device] = m;
    }
}
} // namespace

QJsonObject toJson(const Profile& p)
{
    QJsonObject o;
    o["schema"] = "hetplan.profile/1";
    o["model"] = toQString(p.model);
    o["source"] = toQString(p.source);
    if (p.sequenceLength > 0)
        o["sequence_length"] = p.sequenceLength;
    if (p.precision)
        o["precision"] = toQString(toString(*p.precision));
    QJsonArray tables;
    for (const auto& [k, layers] : p.tables()) {
        QJsonArray ls;
        for (const LayerTiming& t : layers) {
            QJsonObject j{{"forward", t.forward}, {"backward", t.backward}, {"update", t.update}};
            if (t.activationBytes >= 0)
                j["activation_bytes"] = t.activationBytes;
            if (t.peakBytes >= 0)
                j["peak_bytes"] = t.peakBytes;
            if (t.tpAllReduceBytes >= 0)
                j["tp_allreduce_bytes"] = t.tpAllReduceBytes;
            ls.append(j);
        }
        tables.append(
            QJsonObject{{"device", toQString(k.deviceType)}, {"tp", k.tp}, {"micro_batch", k.microBatch}, {"layers", ls}});
    }
    o["tables"] = tables;
    if (!p.measuredOn.empty())
        o["measured_on"] = measuredOnJson(p.measuredOn);
    return o;
}

Profile profileFromJson(const QJsonObject& o, const std::string& file)
{
    const JsonReader r = documentReader(o, file, "hetplan.profile/1",
                                        {"schema", "model", "source", "sequence_length", "precision", "tables", "measured_on"});
    Profile p;
    p.model = r.string("model", "");
    p.source = r.string("source", "native");
    // Both optional: profiles written before they existed stay readable (the CostModel warns).
    p.sequenceLength = r.integer("sequence_length", 0);
    if (r.has("sequence_length") && p.sequenceLength < 1)
        r.fail("sequence_length", "must be at least 1");
    if (r.has("precision")) {
        Precision prec;
        if (!parsePrecision(r.string("precision"), prec))
            r.fail("precision", "expected \"fp16\", \"bf16\" or \"fp32\", got \"" + r.string("precision") + "\"");
        p.precision = prec;
    }
    const QJsonArray tables = r.array("tables");
    for (int i = 0; i < tables.size(); ++i) {
        JsonReader t = r.element(tables, "tables", i);
        ProfileKey key;
        key.deviceType = t.string("device");
        // A table for a device the catalog does not know would never be looked up: refuse it.
        if (const DeviceType* d = DeviceCatalog::builtin().find(key.deviceType))
            key.deviceType = d->name;
        else
            t.fail("device", "unknown device type '" + key.deviceType + "' (see hetplan-cli list devices)");
        key.tp = t.integer("tp");
        key.microBatch = t.integer("micro_batch");
        if (key.tp < 1)
            t.fail("tp", "must be at least 1");
        if (key.microBatch < 1)
            t.fail("micro_batch", "must be at least 1");
        if (p.table(key))
            t.fail("device", "duplicate table for this device, tp and micro_batch");
        const QJsonArray ls = t.array("layers");
        std::vector<LayerTiming> layers;
        for (int l = 0; l < ls.size(); ++l) {
            JsonReader e = t.element(ls, "layers", l);
            LayerTiming lt;
            lt.forward = e.quantity("forward", Dimension::Seconds);
            lt.backward = e.quantity("backward", Dimension::Seconds);
            lt.update = e.quantity("update", Dimension::Seconds, 0);
            lt.activationBytes = e.has("activation_bytes") ? e.quantity("activation_bytes", Dimension::Bytes) : -1;
            lt.peakBytes = e.has("peak_bytes") ? e.quantity("peak_bytes", Dimension::Bytes) : -1;
            lt.tpAllReduceBytes =
                e.has("tp_allreduce_bytes") ? e.quantity("tp_allreduce_bytes", Dimension::Bytes) : -1;
            if (lt.forward < 0 || lt.backward < 0 || lt.update < 0)
                e.fail("forward", "times must not be negative");
            layers.push_back(lt);
        }
        p.set(key, std::move(layers));
    }
    if (r.has("measured_on"))
        readMeasuredOn(r, p);
    p.validate(file);
    return p;
}

// ---------------------------------------------------------------- files

QJsonObject readJsonFile(const std::string& path)
{
    return parseJsonObject(readInputFile(path), path); // regular files only, size-guarded; no repeated keys
}

void writeTextFile(const std::string& path, const std::string& text) { writeOutputFile(path, text); }

void writeTextFiles(const std::vector<std::pair<std::string, std::string>>& files) { writeOutputFiles(files); }

void writeJsonFile(const std::string& path, const QJsonObject& o)
{
    writeTextFile(path, QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString());
}

Cluster readCluster(const std::string& path) { return clusterFromJson(readJsonFile(path), path); }
ModelSpec readModel(const std::string& path) { return modelFromJson(readJsonFile(path), path); }
Job readJob(const std::string& path, Job defaults) { return jobFromJson(readJsonFile(path), path, defaults); }
Profile readProfile(const std::string& path) { return profileFromJson(readJsonFile(path), path); }
Plan readPlan(const std::string& path) { return planFromJson(readJsonFile(path), path); }

} // namespace hetplan
