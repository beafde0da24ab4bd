// The device catalog: the bundled rows, lookups by the names other tools use, and the JSON reader's
// validation (every bad field reported as InputError(file, "devices[i].field", reason)).
#include "testutil.h"

#include "core/base/errors.h"
#include "core/base/parallel_for.h"
#include "core/io/json_io.h"
#include "core/model/device.h"

#include <QJsonArray>
#include <QTest>

#include <optional>
#include <set>

using namespace hetplan;
using hetplan::test::errorOf;

namespace {

QJsonObject v100Json()
{
    return QJsonObject{{"name", "V100-16GB"},
                       {"aliases", QJsonArray{"v100_16gb", "v100"}},
                       {"vendor", "NVIDIA"},
                       {"peak_flops", "125 TFLOPS"},
                       {"memory", "16 GiB"},
                       {"memory_bandwidth", "900 GB/s"},
                       {"intra_node_link", "NVLink 2.0"},
                       {"intra_node_bandwidth", "150 GB/s"},
                       {"efficiency_max", 0.55},
                       {"efficiency_half_batch", 1.0},
                       {"source", "NVIDIA V100 datasheet (2020)"}};
}

DeviceType named(const std::string& name, std::vector<std::string> aliases = {})
{
    DeviceType d;
    d.name = name;
    d.aliases = std::move(aliases);
    d.vendor = "X";
    d.peakFlops = d.memoryBytes = d.memoryBandwidth = d.intraNodeBandwidth = 1;
    return d;
}

} // namespace

class TestCatalog : public QObject {
    Q_OBJECT
private slots:
    void builtinRowsArePlausible()
    {
        const DeviceCatalog& c = DeviceCatalog::builtin();
        QVERIFY(c.all().size() >= 23);
        for (const DeviceType& d : c.all()) {
            const QByteArray n = QByteArray::fromStdString(d.name);
            QVERIFY2(!d.vendor.empty() && !d.source.empty() && !d.intraNodeLink.empty(), n);
            // Dense fp16 peaks of 2016-2024 GPUs lie between P100's 18.7 and MI300X's 1307 TFLOPS.
            QVERIFY2(d.peakFlops >= 18e12 && d.peakFlops <= 1.4e15, n);
            QVERIFY2(d.memoryBytes >= 8.0 * (1 << 30) && d.memoryBytes <= 192.0 * (1 << 30), n);
            QVERIFY2(d.memoryBandwidth >= 300e9 && d.memoryBandwidth <= 5.3e12, n);
            QVERIFY2(d.intraNodeBandwidth >= 16e9 && d.intraNodeBandwidth <= 450e9 + 1, n);
            // The calibrated ceiling of a matrix product (docs/calibration.md) stays in the fit's physical range.
            QVERIFY2(d.effMax >= 0.3 && d.effMax <= 0.95, n);
            QVERIFY2(d.peakFlopsFp32 > 0 && d.peakFlopsFp32 <= d.peakFlops, n);
            QVERIFY2(d.memoryEfficiency >= 0.5 && d.memoryEfficiency <= 0.95, n);
            QVERIFY2(d.launchOverhead >= 2e-6 && d.launchOverhead <= 30e-6, n);
            QVERIFY2(!d.calibration.empty(), n);
            QVERIFY2(d.effHalfBatch > 0 && d.effHalfBatch <= 4, n);
        }
    }

    void builtinHandChecked()
    {
        const DeviceCatalog& c = DeviceCatalog::builtin();
        const DeviceType* v100 = c.find("V100-16GB");
        QVERIFY(v100);
        QCOMPARE(v100->peakFlops, 125e12);
        QCOMPARE(v100->memoryBytes, 16.0 * 1073741824.0); // 16 GiB
        QCOMPARE(v100->memoryBandwidth, 900e9);
        QCOMPARE(v100->intraNodeBandwidth, 150e9); // 6 NVLink 2.0 links × 25 GB/s
        // The A100 80 GB PCIe card sits on PCIe 4.0 x16 (≈32 GB/s), unlike the SXM part's NVLink 3 (300 GB/s).
        QCOMPARE(c.find("A100-80GB-PCIe")->intraNodeBandwidth, 32e9);
        QCOMPARE(c.find("A100-80GB")->intraNodeBandwidth, 300e9);
        // Dense, not sparsity numbers: H100 SXM 989 (not 1979) TFLOPS, RTX A6000 154.8 (not 309.7).
        QCOMPARE(c.find("H100-SXM")->peakFlops, 989e12);
        QCOMPARE(c.find("RTX-A6000")->peakFlops, 154.8e12);
        // fp32 matrix products: TF32 dense on Ampere (A100 156 TFLOPS), CUDA cores on Volta (V100 15.7).
        QCOMPARE(c.find("A100-80GB")->peakFlopsFp32, 156e12);
        QCOMPARE(v100->peakFlopsFp32, 15.7e12);
        // With TF32 off the A100 runs fp32 on its CUDA cores (datasheet 19.5 TFLOPS); Volta has no TF32, so its
        // CUDA-core rate is its fp32 rate.
        QCOMPARE(c.find("A100-80GB")->peakFlopsFp32CudaCores, 19.5e12);
        QCOMPARE(c.find("H100-SXM")->peakFlopsFp32CudaCores, 67e12);
        QCOMPARE(v100->peakFlopsFp32CudaCores, 15.7e12);
    }

    void efficiencyCurve()
    {
        DeviceType d = named("x");
        d.effMax = 0.6;
        d.effHalfBatch = 2;
        QCOMPARE(d.efficiency(2), 0.3);         // half of effMax at b = half
        QCOMPARE(d.efficiency(6), 0.6 * 6 / 8); // 0.45
        QVERIFY(d.efficiency(1e9) < 0.6 && d.efficiency(1e9) > 0.5999);
    }

    void requiredDevicesPresent()
    {
        const char* required[] = {"V100-16GB", "V100-32GB",      "V100S-32GB", "T4",        "P100-16GB", "A100-40GB",
                                  "A100-80GB", "A100-80GB-PCIe", "A800-80GB",  "RTX-A6000", "RTX-2080",  "Titan-RTX",
                                  "RTX-3090",  "RTX-4090",       "L4",         "L40S",      "H100-SXM",  "H100-PCIe",
                                  "H800",      "H200",           "MI250X",     "MI300X",    "GH200-96GB"};
        for (const char* n : required)
            QVERIFY2(DeviceCatalog::builtin().find(n) && DeviceCatalog::builtin().find(n)->name == n, n);
    }

    void aliasesOfOtherTools_data()
    {
        QTest::addColumn<QString>("alias");
        QTest::addColumn<QString>("canonical");
        // Ditto's device names
        QTest::newRow("ditto v100") << "v100_16gb"
                                    << "V100-16GB";
        QTest::newRow("ditto 3090") << "rtx_3090_24gb"
                                    << "RTX-3090";
        QTest::newRow("ditto a6000") << "rtx_a6000"
                                     << "RTX-A6000";
        QTest::newRow("ditto 4090") << "rtx_4090_24gb"
                                    << "RTX-4090";
        QTest::newRow("ditto a100") << "a_100_80gb_pcie"
                                    << "A100-80GB-PCIe";
        // AMP's
        QTest::newRow("amp t4") << "T4"
                                << "T4";
        QTest::newRow("amp v100") << "V100"
                                  << "V100-16GB";
        // Sailor's
        QTest::newRow("sailor a100-40") << "A100-40"
                                        << "A100-40GB";
        QTest::newRow("sailor a100-80") << "A100-80"
                                        << "A100-80GB";
        QTest::newRow("sailor gh-96") << "GH-96"
                                      << "GH200-96GB";
        QTest::newRow("sailor 2080") << "RTX-2080"
                                     << "RTX-2080";
        QTest::newRow("sailor 3090") << "RTX-3090"
                                     << "RTX-3090";
        QTest::newRow("sailor titan") << "Titan-RTX"
                                      << "Titan-RTX";
        QTest::newRow("sailor v100-16") << "V100-16"
                                        << "V100-16GB";
        // case and separators do not matter
        QTest::newRow("lower case") << "h100-sxm"
                                    << "H100-SXM";
        QTest::newRow("spaces") << "rtx 4090"
                                << "RTX-4090";
        QTest::newRow("nvidia-smi style") << "Tesla V100-SXM2-16GB"
                                          << "V100-16GB";
    }

    void aliasesOfOtherTools()
    {
        QFETCH(QString, alias);
        QFETCH(QString, canonical);
        const DeviceType* d = DeviceCatalog::builtin().find(alias.toStdString());
        QVERIFY2(d, qPrintable(alias));
        QCOMPARE(QString::fromStdString(d->name), canonical);
    }

    void everyKeyResolvesToItsOwnDevice()
    {
        for (const DeviceType& d : DeviceCatalog::builtin().all()) {
            QCOMPARE(DeviceCatalog::builtin().find(d.name), &d);
            for (const std::string& a : d.aliases)
                QVERIFY2(DeviceCatalog::builtin().find(a) == &d, a.c_str());
        }
        QVERIFY(!DeviceCatalog::builtin().find("V200"));
        QVERIFY(!DeviceCatalog::builtin().find(""));
        QVERIFY(!DeviceCatalog::builtin().find("---"));
    }

    void exactNameFirstAndAmbiguityRefused()
    {
        // "a100" is an alias of two devices: not resolvable. "A100-80GB" exact beats its squashed twin.
        DeviceCatalog c({named("A100-40GB", {"a100"}), named("A100-80GB", {"A100"}), named("a100-80gb")});
        QVERIFY(!c.find("a100"));
        QVERIFY(!c.find("A100"));
        QCOMPARE(c.find("A100-80GB")->name, std::string("A100-80GB"));
        QCOMPARE(c.find("a100-80gb")->name, std::string("a100-80gb"));
        QVERIFY(!c.find("A100_80GB")); // case-insensitively equal to two devices
        QCOMPARE(c.find("a100_40gb")->name, std::string("A100-40GB"));
    }

    void addReplacesSameName()
    {
        DeviceCatalog c({named("A"), named("B")});
        DeviceType a2 = named("A");
        a2.peakFlops = 7;
        c.add(a2);
        QCOMPARE(c.all().size(), size_t(2));
        QCOMPARE(c.find("A")->peakFlops, 7.0);
        c.add(named("C", {"see"}));
        QCOMPARE(c.all().size(), size_t(3));
        QCOMPARE(c.find("SEE")->name, std::string("C"));
    }

    void builtinIsOneInstanceAcrossThreads()
    {
        // 16 first calls racing on 8 threads (the builtin catalog is built on first use).
        std::vector<quintptr> seen(16);
        parallelFor(16, [&](int i) { seen[size_t(i)] = quintptr(&DeviceCatalog::builtin()); }, 8);
        for (quintptr p : seen)
            QCOMPARE(p, quintptr(&DeviceCatalog::builtin()));
    }

    void readDeviceHandChecked()
    {
        const DeviceType d = deviceFromJson(v100Json(), "cat.json", "devices[0]");
        QCOMPARE(d.name, std::string("V100-16GB"));
        QCOMPARE(d.aliases, (std::vector<std::string>{"v100_16gb", "v100"}));
        QCOMPARE(d.peakFlops, 125e12);
        QCOMPARE(d.memoryBytes, 17179869184.0); // 16 × 2^30
        QCOMPARE(d.memoryBandwidth, 9e11);
        QCOMPARE(d.intraNodeBandwidth, 1.5e11);
        QCOMPARE(d.effMax, 0.55);
        QCOMPARE(d.effHalfBatch, 1.0);
        // Bare numbers are SI base units.
        QJsonObject o = v100Json();
        o["memory_bandwidth"] = 1e12;
        QCOMPARE(deviceFromJson(o, "f", "").memoryBandwidth, 1e12);
        // Gbps is bits: 400 Gbps = 50 GB/s.
        o["intra_node_bandwidth"] = "400 Gbps";
        QCOMPARE(deviceFromJson(o, "f", "").intraNodeBandwidth, 50e9);
    }

    void roundTrip()
    {
        for (const DeviceType& d : DeviceCatalog::builtin().all())
            QVERIFY2(deviceFromJson(toJson(d), "rt", "") == d, d.name.c_str());
        const DeviceCatalog back = catalogFromJson(toJson(DeviceCatalog::builtin()), "rt");
        QVERIFY(back.all() == DeviceCatalog::builtin().all());
    }

    void badFields_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value"); // undefined = remove the key
        QTest::addColumn<QString>("reasonPart");
        QTest::newRow("memory missing") << "memory" << QJsonValue(QJsonValue::Undefined) << "missing";
        QTest::newRow("memory zero") << "memory" << QJsonValue(0) << "between 1e+06 and 1e+15 B";
        QTest::newRow("memory negative") << "memory" << QJsonValue("-16 GiB") << "between 1e+06 and 1e+15 B";
        QTest::newRow("memory wrong unit") << "memory" << QJsonValue("16 GB/s") << "unit";
        QTest::newRow("memory no unit") << "memory" << QJsonValue("16") << "unit";
        QTest::newRow("peak missing") << "peak_flops" << QJsonValue(QJsonValue::Undefined) << "missing";
        QTest::newRow("peak zero") << "peak_flops" << QJsonValue("0 TFLOPS") << "between 1e+09 and 1e+18 FLOP/s";
        QTest::newRow("bandwidth negative") << "memory_bandwidth" << QJsonValue(-1) << "between 1000 and 1e+15 B/s";
        QTest::newRow("intra zero") << "intra_node_bandwidth" << QJsonValue("0 GB/s") << "between 1000 and 1e+15 B/s";
        QTest::newRow("intra object") << "intra_node_bandwidth" << QJsonValue(QJsonObject{}) << "expected";
        QTest::newRow("eff zero") << "efficiency_max" << QJsonValue(0) << "between 0.001 and 1";
        QTest::newRow("eff above one") << "efficiency_max" << QJsonValue(1.5) << "between 0.001 and 1";
        QTest::newRow("half negative") << "efficiency_half_batch" << QJsonValue(-2) << "between 0.001 and 1e+06 samples";
        QTest::newRow("half string") << "efficiency_half_batch" << QJsonValue("1") << "number";
        QTest::newRow("name missing") << "name" << QJsonValue(QJsonValue::Undefined) << "missing";
        QTest::newRow("name blank") << "name" << QJsonValue("  ") << "letter";
        QTest::newRow("vendor empty") << "vendor" << QJsonValue("") << "empty";
        QTest::newRow("aliases not array") << "aliases" << QJsonValue("v100") << "array";
        QTest::newRow("typo key") << "memroy" << QJsonValue("16 GiB") << "unknown field";
        QTest::newRow("cuda cores above tf32") << "peak_flops_fp32_cuda_cores" << QJsonValue("500 TFLOPS") << "at most";
        QTest::newRow("cuda cores zero") << "peak_flops_fp32_cuda_cores" << QJsonValue("0 TFLOPS") << "between 1e+09 and 1e+18 FLOP/s";
    }

    void badFields()
    {
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFETCH(QString, reasonPart);
        QJsonObject dev = v100Json();
        if (value.isUndefined())
            dev.remove(key);
        else
            dev[key] = value;
        QJsonArray devices{v100Json(), v100Json(), v100Json(), dev};
        for (int i = 0; i < 3; ++i) { // distinct names for the good rows
            QJsonObject o = devices[i].toObject();
            o["name"] = QStringLiteral("gpu%1").arg(i);
            o.remove("aliases");
            devices[i] = o;
        }
        const QJsonObject cat{{"schema", "hetplan.devices/1"}, {"devices", devices}};
        auto e = errorOf([&] { catalogFromJson(cat, "my-devices.json"); });
        QVERIFY(e);
        QCOMPARE(e->file(), std::string("my-devices.json"));
        QCOMPARE(QString::fromStdString(e->field()), "devices[3]." + key);
        QVERIFY2(QString::fromStdString(e->reason()).contains(reasonPart), e->what());
    }

    void badCatalogs()
    {
        auto field = [](const QJsonObject& o) {
            auto e = errorOf([&] { catalogFromJson(o, "c.json"); });
            return e ? e->field() : std::string("<no error>");
        };
        QCOMPARE(field(QJsonObject{{"schema", "hetplan.devices/2"}, {"devices", QJsonArray{v100Json()}}}),
                 std::string("schema"));
        QCOMPARE(field(QJsonObject{{"devices", QJsonArray{}}}), std::string("devices"));
        QCOMPARE(field(QJsonObject{}), std::string("devices"));
        QCOMPARE(field(QJsonObject{{"devices", QJsonArray{1}}}), std::string("devices[0]"));
        // A second row claiming an alias of the first (ignoring case and separators) is ambiguous.
        QJsonObject other = v100Json();
        other["name"] = "V100-32GB";
        other["aliases"] = QJsonArray{"v100_32gb", "V100"};
        QCOMPARE(field(QJsonObject{{"devices", QJsonArray{v100Json(), other}}}), std::string("devices[1].aliases[1]"));
        QJsonObject dup = v100Json();
        dup.remove("aliases");
        dup["name"] = "v100 16gb";
        QCOMPARE(field(QJsonObject{{"devices", QJsonArray{v100Json(), dup}}}), std::string("devices[1].name"));
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
