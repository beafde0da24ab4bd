#pragma once
// Fixtures shared by the exporter tests (tst_exporters: DeepSpeed, Megatron-LM, launchers; tst_chrome_trace:
// the Chrome trace and the export dispatch): hand-built plans and small readers of what the exporters write.
#include "simfixtures.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace hetplan::exporttest {

using namespace hetplan::simtest;

// Embedding + 32 transformer blocks + head = 34 layers: the toy model's sizes for the simulator with the
// parameters and architecture of a real GPT (h 1024, 16 heads, FFN 4096, vocabulary 50257, 1024 positions),
// so Megatron builds it parameter for parameter.
inline ModelSpec gptLike()
{
    const ModelSpec real = buildGptModel("gpt-like", 32, 1024, 16, 1024);
    ModelSpec m = testModel(34, 1e6, 1e5, 1e5);
    m.name = "gpt-like";
    m.arch = real.arch;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        m.layers[i].name = real.layers[i].name;
        m.layers[i].kind = real.layers[i].kind;
        m.layers[i].params = real.layers[i].params;
    }
    return m;
}

// Two nodes of 8 GPUs ("a": V100, "b": T4). Stages of 10, 6, 8, 8 transformer blocks: [0,11) [11,17)
// [17,25) [25,34) (embedding with the first, head with the last).
inline Plan unevenPlan(int replicas = 2, int tp = 2, int dp = 1)
{
    Cluster c = testCluster({{"V100-16GB", 8}, {"T4", 8}}, 1e11, 1.25e9, 5e-6, 2e-5);
    c.nodes[0].name = "a";
    c.nodes[1].name = "b";
    Job j;
    j.zeroStage = 1;
    const int mbs = 4, M = 8;
    j.globalBatchSize = replicas * mbs * M;
    Plan plan = makePlan(c, gptLike(), j, Profile());
    plan.planner = "fixture";
    const int per = replicas * tp * dp;
    std::vector<std::vector<int>> gpus(4);
    for (int s = 0, g = 0; s < 4; ++s)
        for (int k = 0; k < per; ++k)
            gpus[s].push_back(g++);
    plan.pipelines.push_back(makePipeline({0, 11, 17, 25, 34}, gpus, replicas, mbs, M, tp, dp));
    return plan;
}

inline Plan zeroPlan(int stage, bool uniform)
{
    Cluster c = testCluster({{"A100-80GB", 2}, {"V100-16GB", 2}}, 1e11, 1.25e9);
    c.nodes[0].name = "a";
    c.nodes[1].name = "b";
    Job j;
    j.zeroStage = stage;
    Plan plan = makePlan(c, gptLike(), j, Profile());
    ZeroPlan z;
    z.stage = stage;
    for (int g = 0; g < 4; ++g)
        z.gpus.push_back(ZeroGpu{g, 3, 2, (uniform || g < 2) ? 3 : 1});
    plan.zero = z;
    plan.job.globalBatchSize = plan.samplesPerIteration();
    return plan;
}

// "field: reason" of the InputError `f` throws, empty if it throws none.
template <class F>
QString refusal(F&& f)
{
    const auto e = test::errorOf(std::forward<F>(f));
    return e ? QString::fromStdString(e->field() + ": " + e->reason()) : QString();
}

inline QJsonObject parseObject(const std::string& text)
{
    QJsonParseError err;
    const QJsonDocument d = QJsonDocument::fromJson(QByteArray::fromStdString(text), &err);
    if (err.error != QJsonParseError::NoError || !d.isObject())
        return {};
    return d.object();
}

// Value following `option` in an argument list ("" if absent).
inline std::string argValue(const std::vector<std::string>& a, const std::string& option)
{
    for (size_t i = 0; i + 1 < a.size(); ++i)
        if (a[i] == option)
            return a[i + 1];
    return {};
}

inline int countLines(const std::string& text) { return int(std::count(text.begin(), text.end(), '\n')); }

inline bool hasArg(const std::vector<std::string>& a, const std::string& option)
{
    return std::find(a.begin(), a.end(), option) != a.end();
}

// Checks the trace's structure; returns the number of "X" events.
inline int checkTrace(const QJsonObject& trace)
{
    const QJsonArray events = trace.value("traceEvents").toArray();
    std::map<int, bool> processNamed;
    std::map<std::pair<int, int>, bool> threadNamed;
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
    int x = 0;
    for (const QJsonValue& v : events) {
        const QJsonObject e = v.toObject();
        const QString ph = e.value("ph").toString();
        if (!e.value("pid").isDouble() || !e.value("tid").isDouble())
            return -1;
        const int pid = e.value("pid").toInt(), tid = e.value("tid").toInt();
        if (ph == "M") {
            if (e.value("name") == "process_name")
                processNamed[pid] = !e.value("args").toObject().value("name").toString().isEmpty();
            if (e.value("name") == "thread_name")
                threadNamed[{pid, tid}] = !e.value("args").toObject().value("name").toString().isEmpty();
        } else if (ph == "X") {
            if (!e.value("ts").isDouble() || !e.value("dur").isDouble() || e.value("name").toString().isEmpty())
                return -1;
            if (e.value("dur").toDouble() <= 0)
                return -1;
            tracks[{pid, tid}].push_back({e.value("ts").toDouble(), e.value("dur").toDouble()});
            ++x;
        } else {
            return -1;
        }
    }
    for (auto& [key, list] : tracks) {
        if (!processNamed[key.first] || !threadNamed[key])
            return -1;
        std::sort(list.begin(), list.end());
        for (size_t i = 1; i < list.size(); ++i)
            if (list[i - 1].first + list[i - 1].second > list[i].first + 1e-6)
                return -2; // overlap on one track
    }
    return x;
}

} // namespace hetplan::exporttest
