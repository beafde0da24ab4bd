// Profile importers: every format on a hand-written fixture (expected numbers come from the fixture text,
// converted by hand) and round trips. Bad arguments, corrupted and malformed inputs: tst_importer_errors.
#include "core/base/errors.h"
#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <numeric>
#include <optional>
#include <random>

using namespace hetplan;
using hetplan::test::errorOf;
using hetplan::test::fixture;

namespace {

const std::vector<LayerTiming>& tableOf(const Profile& p, const std::string& dev, int tp, int mbs)
{
    static const std::vector<LayerTiming> none;
    const auto* t = p.table(ProfileKey{dev, tp, mbs});
    return t ? *t : none;
}

LayerTiming timing(double f, double b, double u = 0, double a = -1)
{
    LayerTiming t;
    t.forward = f;
    t.backward = b;
    t.update = u;
    t.activationBytes = a;
    return t;
}

void writeFile(const QString& path, const std::string& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
}

// Awkward doubles (not short decimals) to prove the round trips are exact.
Profile awkwardProfile()
{
    Profile p;
    p.model = "toy";
    p.set({"T4", 1, 1},
          {timing(1.0 / 3.0, 0.1 + 0.2, 1e-9, 12345), timing(2.0 / 7.0, 4e-9 / 3.0, 0), timing(5e-5, 1.5e-4, 0, 0)});
    p.set({"T4", 1, 4},
          {timing(0.7, 1.4, 0.001), timing(std::nextafter(0.25, 1.0), 0.5), timing(1e-9 * std::sqrt(2.0), 3e-9 * std::sqrt(3.0), 0, 1e12)});
    p.set({"V100-16GB", 2, 2}, {timing(0.3, 0.6), timing(0.9, 1.8, 0.01, 7), timing(0.0, 0.0)});
    return p;
}

} // namespace

class TestImporters : public QObject {
    Q_OBJECT

private slots:
    // ------------------------------------------------------------------ native
    void nativeValid()
    {
        const Profile p = importNative(fixture("profiles/native/valid.json"));
        QCOMPARE(p.source, std::string("native")); // the importer says where it came from
        QCOMPARE(p.model, std::string("toy-3"));
        QCOMPARE(p.tables().size(), size_t(2));
        const auto& t4 = tableOf(p, "T4", 1, 1);
        QCOMPARE(t4.size(), size_t(3));
        QCOMPARE(t4[0], timing(0.001, 0.002, 0.0005, 1024));
        QCOMPARE(t4[1], timing(0.003, 0.006, 0, -1));
        QCOMPARE(t4[2], timing(0.0025, 0.005, 0, -1)); // update defaults to 0, activation to "not measured"
        const auto& v100 = tableOf(p, "V100-16GB", 2, 4);
        QCOMPARE(v100.size(), size_t(3));
        QCOMPARE(v100[1], timing(0.0015, 0.003, 0.00025, 8192));
    }

    void nativeRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Profile p = awkwardProfile();
        p.source = "native";
        const std::string path = dir.filePath("p.json").toStdString();
        writeJsonFile(path, toJson(p));
        const Profile back = importNative(path);
        QVERIFY(back == p); // bit-exact: shortest decimal forms read back to the same doubles
    }

    // ------------------------------------------------------------------ CSV
    void csvMilliseconds()
    {
        const Profile p = importCsv(fixture("profiles/csv/valid_ms.csv"));
        QCOMPARE(p.source, std::string("csv"));
        QCOMPARE(p.tables().size(), size_t(3));
        // Row "T4,1,1,0,1.5,3,0.25,1000": 1.5 ms = 0.0015 s, 3 ms = 0.003 s, 0.25 ms = 0.00025 s.
        // Division by 1000 is correctly rounded, so these compare exactly with the decimal literals.
        const auto& a = tableOf(p, "T4", 1, 1);
        QCOMPARE(a.size(), size_t(3));
        QVERIFY(a[0] == timing(0.0015, 0.003, 0.00025, 1000));
        QVERIFY(a[1] == timing(0.002, 0.004, 0.0005, 2000));
        QVERIFY(a[2] == timing(0.0025, 0.005, 0.0005, -1)); // empty activation cell = not measured
        // Micro-batch 2 rows are listed 2, 0, 1 in the file; the table is ordered by layer.
        const auto& b = tableOf(p, "T4", 1, 2);
        QCOMPARE(b.size(), size_t(3));
        QVERIFY(b[0] == timing(0.00275, 0.0055, 0.00025, 2000));
        QVERIFY(b[1] == timing(0.0035, 0.007, 0.0005, 4000));
        QVERIFY(b[2] == timing(0.0045, 0.009, 0.0005, -1));
        // Quoted device cell.
        const auto& c = tableOf(p, "V100-16GB", 2, 1);
        QCOMPARE(c.size(), size_t(3));
        QVERIFY(c[2] == timing(0.001, 0.002, 0.00025, 1500));
    }

    void csvSecondsAndColumnOrder()
    {
        // Columns in another order, *_s units, no update/activation columns, device given by an alias
        // ("A100-40" is the catalog's A100-40GB).
        const Profile p = importCsv(fixture("profiles/csv/valid_s.csv"));
        const auto& t = tableOf(p, "A100-40GB", 4, 8);
        QCOMPARE(t.size(), size_t(2));
        QVERIFY(t[0] == timing(0.0002, 0.0004, 0, -1));
        QVERIFY(t[1] == timing(0.0006, 0.0012, 0, -1));
    }

    void csvRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Profile p = awkwardProfile();
        p.model.clear(); // CSV has no model name
        p.source = "csv";
        const QString path = dir.filePath("p.csv");
        writeFile(path, exportCsv(p));
        const Profile back = importCsv(path.toStdString());
        QVERIFY(back == p);

        // Without any measured activation the column is left out.
        Profile q;
        q.source = "csv";
        q.set({"T4", 1, 1}, {timing(0.001, 0.002)});
        const std::string text = exportCsv(q);
        QCOMPARE(text.substr(0, text.find('\n')),
                 std::string("device,tp,micro_batch,layer,forward_s,backward_s,update_s"));
        writeFile(path, text);
        QVERIFY(importCsv(path.toStdString()) == q);

        // Odd device names are quoted on export; such a device is not in the catalog, so reading it back
        // is refused (its rows could never be looked up) and names the quoted name without the quotes.
        Profile odd;
        odd.set({"My GPU, \"rev 2\"", 1, 1}, {timing(0.001, 0.002)});
        const std::string oddText = exportCsv(odd);
        QVERIFY(oddText.find("\n\"My GPU, \"\"rev 2\"\"\",1,1,0,") != std::string::npos);
        writeFile(path, oddText);
        const auto e = errorOf([&] { importCsv(path.toStdString()); });
        QVERIFY(e);
        QCOMPARE(e->field(), std::string("line 2: device"));
        QCOMPARE(e->reason(), std::string("unknown device type 'My GPU, \"rev 2\"' (see hetplan-cli list devices)"));

        // The native fixture survives CSV export and import too.
        Profile n = importNative(fixture("profiles/native/valid.json"));
        n.model.clear();
        n.source = "csv";
        writeFile(path, exportCsv(n));
        QVERIFY(importCsv(path.toStdString()) == n);
    }

    // -1 is the only "not measured" marker; other negative activation sizes are broken measurements.
    void activationBytesMarker()
    {
        Profile p;
        p.set({"T4", 1, 1}, {timing(0.001, 0.002, 0, -1), timing(0.001, 0.002, 0, 0), timing(0.001, 0.002, 0, 5)});
        p.validate("p"); // -1, 0 and 5 are fine
        for (double bad : {-2.0, -0.5, -1e-9, -1e12}) {
            Profile q;
            q.set({"T4", 1, 1}, {timing(0.001, 0.002, 0, -1), timing(0.001, 0.002, 0, bad)});
            const auto e = errorOf([&] { q.validate("p"); });
            QVERIFY(e);
            QCOMPARE(e->field(), std::string("tables[0].layers[1].activation_bytes"));
        }
    }

    void csvEmpty()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("empty.csv");
        writeFile(path, "");
        auto e = errorOf([&] { importCsv(path.toStdString()); });
        QVERIFY(e);
        QCOMPARE(e->field(), std::string("header"));
        writeFile(path, "device,tp,micro_batch,layer,forward_ms,backward_ms\n\n");
        e = errorOf([&] { importCsv(path.toStdString()); });
        QVERIFY(e);
        QCOMPARE(e->field(), std::string("rows"));
    }

    // ------------------------------------------------------------------ Sailor
    void sailorValid()
    {
        // "V100-16" is Sailor's own name; the catalog knows it as V100-16GB.
        const Profile p = importSailor(fixture("profiles/sailor/valid.json"), "V100-16");
        QCOMPARE(p.source, std::string("sailor"));
        QCOMPARE(p.tables().size(), size_t(3));
        QCOMPARE(p.layerCount(), 11);
        // Layer i of (mbs 1, tp 1) is [(i+1) ms, 2(i+1) ms, 0.25 ms]; layer 10 sorts after 9 even
        // though the key "10" sorts before "2" as text. The 0.25 ms in every layer is Sailor's whole-model
        // optimizer step repeated per layer: imported once, 0.25 ms / 11 per layer.
        const auto& a = tableOf(p, "V100-16GB", 1, 1);
        QCOMPARE(a.size(), size_t(11));
        QVERIFY(a[1] == timing(0.002, 0.004, 0.00025 / 11));
        QVERIFY(a[9] == timing(0.01, 0.02, 0.00025 / 11));
        QVERIFY(a[10] == timing(0.011, 0.022, 0.00025 / 11));
        double step = 0;
        for (const LayerTiming& t : a)
            step += t.update;
        QVERIFY(std::abs(step - 0.00025) < 1e-15); // one step per iteration, not 11
        // (mbs 2, tp 1): layer i is [1.5(i+1) ms, 3(i+1) ms, 0.25 ms] -> layer 2 = [4.5, 9, 0.25 / 11] ms.
        QVERIFY(tableOf(p, "V100-16GB", 1, 2)[2] == timing(0.0045, 0.009, 0.00025 / 11));
        // (mbs 1, tp 2): layer i is [0.5(i+1) ms, (i+1) ms, 0.125 ms] -> layer 9 = [5, 10, 0.125 / 11] ms.
        QVERIFY(tableOf(p, "V100-16GB", 2, 1)[9] == timing(0.005, 0.01, 0.000125 / 11));
    }

    void sailorRealFile()
    {
        const QString path =
            QString::fromStdString(test::sourceDir()) + "/../shared/data/sailor-opt350/V100-16/profile.json";
        if (!QFileInfo::exists(path))
            QSKIP("shared/data not beside the repository");
        const Profile p = importSailor(path.toStdString(), "V100-16");
        // Checked by hand: micro-batches 1, 2, 4 with tp 1, 2, 4, 8 and micro-batch 8 with tp 2, 4, 8;
        // OPT-350M has 26 layers in Sailor's split; (mbs 1, tp 1) layer 25 = [0.018638, 0.030124, 0.004854],
        // the last being the whole model's optimizer step (the same in all 26 layers): 0.004854 / 26 each.
        QCOMPARE(p.tables().size(), size_t(15));
        QCOMPARE(p.layerCount(), 26);
        QVERIFY(tableOf(p, "V100-16GB", 1, 1)[25] == timing(0.018638, 0.030124, 0.004854 / 26));
    }

    // ------------------------------------------------------------------ Metis
    void metisValid()
    {
        const Profile p = importMetis(fixture("profiles/metis/valid"), "V100-16");
        QCOMPARE(p.source, std::string("metis"));
        QCOMPARE(p.tables().size(), size_t(3)); // README.txt is ignored
        QCOMPARE(p.layerCount(), 3);
        // mbs1_tmp1: compute [3, 6, 3] ms = forward + backward with backward = 2 x forward -> forward
        // [1, 2, 1] ms, backward [2, 4, 2] ms. optimizer 10 ms over parameter bytes [100, 300, 100] (sum 500)
        // -> update [2, 6, 2] ms. Memory [10, 20, 10] MB at mbs 1 and [12, 26, 11] MB at mbs 2 -> activation
        // per sample [2, 6, 1] MB (slope of memory against micro-batch), so activationBytes at mbs 1 is
        // [2, 6, 1] x 2^20 and at mbs 2 twice that.
        const double MB = 1024.0 * 1024.0;
        const auto& a = tableOf(p, "V100-16GB", 1, 1);
        QCOMPARE(a.size(), size_t(3));
        for (int l = 0; l < 3; ++l) {
            const double fwd[] = {1e-3, 2e-3, 1e-3}, upd[] = {2e-3, 6e-3, 2e-3}, act[] = {2, 6, 1};
            QVERIFY(std::abs(a[l].forward - fwd[l]) < 1e-15);
            QVERIFY(std::abs(a[l].backward - 2 * fwd[l]) < 1e-15);
            QVERIFY(std::abs(a[l].update - upd[l]) < 1e-15);
            QCOMPARE(a[l].activationBytes, act[l] * MB);
            QCOMPARE(tableOf(p, "V100-16GB", 1, 2)[l].activationBytes, 2 * act[l] * MB);
        }
        // mbs2_tmp1 compute [5, 11, 5] ms -> layer 1 forward 11/3 ms.
        QVERIFY(std::abs(tableOf(p, "V100-16GB", 1, 2)[1].forward - 11e-3 / 3) < 1e-15);
        // tp 2 was measured at one micro-batch only: memory cannot be split into states and activations.
        const auto& t2 = tableOf(p, "V100-16GB", 2, 1);
        QCOMPARE(t2[0].activationBytes, -1.0);
        // optimizer 6 ms over [50, 150, 50] -> layer 1 gets 3.6 ms; the step is counted once per model.
        QVERIFY(std::abs(t2[1].update - 3.6e-3) < 1e-15);
        QVERIFY(std::abs(t2[0].update + t2[1].update + t2[2].update - 6e-3) < 1e-15);
        // One file on its own works too.
        const Profile one = importMetis(fixture("profiles/metis/valid/mbs1_tmp2.json"), "V100-16");
        QCOMPARE(one.tables().size(), size_t(1));
    }

    void metisRoundTrip()
    {
        ImportOptions o;
        o.deviceType = "V100-16";
        o.sequenceLength = 2048;
        o.precision = Precision::FP32;
        const Profile p = importProfile("metis", fixture("profiles/metis/valid"), o);
        QCOMPARE(p.sequenceLength, 2048);
        QVERIFY(p.precision == Precision::FP32);
        QVERIFY(profileFromJson(toJson(p), "x") == p);
    }

    // Every file of the shared Metis data imports (skipped when the data is not beside the repository).
    void metisRealFiles()
    {
        const QString root = QString::fromStdString(test::sourceDir()) + "/../shared/data/metis-opt350";
        if (!QFileInfo::exists(root))
            QSKIP("shared/data not beside the repository");
        int tables = 0;
        for (const QString& gpu : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const Profile p = importMetis((root + "/" + gpu).toStdString(), gpu.toStdString());
            QCOMPARE(p.layerCount(), 26);
            tables += int(p.tables().size());
            for (const auto& [key, layers] : p.tables()) // every tp has >= 2 sizes here: activations known
                QVERIFY(layers[1].activationBytes > 0);
        }
        QCOMPARE(tables, 12 + 20 + 21 + 17 + 22 + 22 + 11); // files per GPU folder, counted by hand
    }

    // ------------------------------------------------------------------ Oobleck
    void oobleckValid()
    {
        const Profile p = importOobleck(fixture("profiles/oobleck/valid"), "T4");
        QCOMPARE(p.source, std::string("oobleck"));
        QCOMPARE(p.tables().size(), size_t(2)); // mb1.json and mb2.json, tp 1
        // mb1.json layer 1: forward 4.5 ms, backward 13.5 ms, mem_required [8192, 2048] -> activation 2048 B.
        const auto& a = tableOf(p, "T4", 1, 1);
        QCOMPARE(a.size(), size_t(3));
        QVERIFY(a[0] == timing(0.002, 0.006, 0, 1024));
        QVERIFY(a[1] == timing(0.0045, 0.0135, 0, 2048));
        QVERIFY(a[2] == timing(0.00125, 0.00375, 0, 512));
        // mb2.json layer 2: 2.5 ms, 7.5 ms, [0, 1024].
        QVERIFY(tableOf(p, "T4", 1, 2)[2] == timing(0.0025, 0.0075, 0, 1024));
    }

    void oobleckWithoutAllreduceFiles()
    {
        // The allreduce files are optional for us (nothing is stored from them).
        QTemporaryDir dir;
        QVERIFY(
            QFile::copy(QString::fromStdString(fixture("profiles/oobleck/valid/mb1.json")), dir.filePath("mb1.json")));
        const Profile p = importOobleck(dir.path().toStdString(), "T4");
        QCOMPARE(p.tables().size(), size_t(1));
        QVERIFY(tableOf(p, "T4", 1, 1)[1] == timing(0.0045, 0.0135, 0, 2048));
    }

    // ------------------------------------------------------------------ AMP .npy
    void npyVersions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("v1.0") << "small_v1.npy";
        QTest::newRow("v2.0") << "small_v2.npy";
        QTest::newRow("v3.0") << "small_v3.npy";
        QTest::newRow("fortran 1-D") << "small_fortran_1d.npy";
    }
    void npyVersions()
    {
        QFETCH(QString, file);
        // make_npy.py writes [0.001, 0.0025, 0.0025, 0.0025, 0.0005] as little-endian float64.
        const std::vector<double> v = readNpyFloat64(fixture("profiles/amp/" + file.toStdString()));
        QCOMPARE(v, (std::vector<double>{0.001, 0.0025, 0.0025, 0.0025, 0.0005}));
    }

    void ampImport()
    {
        const Profile p = importAmpNpy(fixture("profiles/amp/small_v1.npy"), "V100-16GB", 2);
        QCOMPARE(p.source, std::string("amp-npy"));
        QCOMPARE(p.tables().size(), size_t(1));
        const auto& t = tableOf(p, "V100-16GB", 2, 1); // micro-batch 1
        QCOMPARE(t.size(), size_t(5));
        // Default backward factor 2: 0.001 s forward -> 0.002 s backward.
        QVERIFY(t[0] == timing(0.001, 0.002));
        QVERIFY(t[4] == timing(0.0005, 0.001));

        const Profile q = importAmpNpy(fixture("profiles/amp/small_v1.npy"), "V100-16GB", 1, 3.0);
        QCOMPARE(tableOf(q, "V100-16GB", 1, 1)[1].backward, 3.0 * 0.0025);
    }

    void ampGpt2Compaction()
    {
        const std::string path = fixture("profiles/amp/gpt2_30.npy");
        const Profile raw = importAmpNpy(path, "T4", 1);
        QCOMPARE(raw.layerCount(), 30); // every AMP entry is kept by default

        ImportOptions o;
        o.deviceType = "T4";
        o.params["compact_gpt2"] = "true";
        o.model = "gpt2-amp";
        const Profile p = importProfile("amp-npy", path, o);
        QCOMPARE(p.model, std::string("gpt2-amp"));
        QCOMPARE(p.layerCount(), 26); // embedding + 24 blocks + head
        const auto& t = tableOf(p, "T4", 1, 1);
        // Embedding 2^-10 plus the no-op 2^-13 = 9 * 2^-13 = 0.0010986328125.
        QCOMPARE(t[0].forward, 0.0010986328125);
        for (int b = 1; b <= 24; ++b)
            QCOMPARE(t[b].forward, 0.00390625); // blocks of 2^-8 unchanged
        // No-ops 2^-14 + 2^-13, output embedding 2^-9, no-op 2^-12 = 39 * 2^-14 = 0.00238037109375.
        QCOMPARE(t[25].forward, 0.00238037109375);
        QCOMPARE(t[25].backward, 2 * 0.00238037109375);
    }

    void compactPreservesTotal()
    {
        // Property: for 7..40 entries, compaction gives entries - 4 layers, keeps the blocks and the total.
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> u(0.0, 0.01);
        for (size_t n = 7; n <= 40; ++n) {
            std::vector<double> e(n);
            for (double& x : e)
                x = u(rng);
            const std::vector<double> c = compactAmpGpt2(e);
            QCOMPARE(c.size(), n - 4);
            for (size_t b = 1; b + 1 < c.size(); ++b)
                QCOMPARE(c[b], e[b + 1]);
            const double before = std::accumulate(e.begin(), e.end(), 0.0);
            const double after = std::accumulate(c.begin(), c.end(), 0.0);
            QVERIFY(std::abs(before - after) <= 1e-15);
        }
        QVERIFY(errorOf([] { compactAmpGpt2(std::vector<double>(6, 1.0)); }));
    }

    void ampRealFile()
    {
        const QString path = QString::fromStdString(test::sourceDir()) + "/../shared/data/amp-known-cost/gpt2_P3_1.npy";
        if (!QFileInfo::exists(path))
            QSKIP("shared/data not beside the repository");
        const std::vector<double> v = readNpyFloat64(path.toStdString());
        QCOMPARE(v.size(), size_t(30));
        for (double x : v)
            QVERIFY(x > 0 && x < 1.0);
        // By hand (struct.unpack of the file): the 24 transformer entries 2..25 are 3.8-4.3 ms each on V100.
        for (int i = 2; i <= 25; ++i)
            QVERIFY2(v[i] > 0.0035 && v[i] < 0.0045, qPrintable(QString::number(v[i])));
        ImportOptions o;
        o.deviceType = "V100-16GB";
        o.params["compact_gpt2"] = "true";
        QCOMPARE(importProfile("amp-npy", path.toStdString(), o).layerCount(), 26);
    }

    // ------------------------------------------------------------------ dispatch and arguments
    void formatsRecogniseTheirOwnFiles()
    {
        // Each format knows its files by their signature, not their name: exactly one claims each valid
        // input, and detectFormat picks it.
        const std::vector<std::pair<std::string, std::string>> inputs{
            {"profiles/native/valid.json", "native"},         // "schema": "hetplan.profile/1"
            {"profiles/csv/valid_ms.csv", "csv"},             // the header after the # comment
            {"profiles/oobleck/valid", "oobleck"},            // a directory with mb<N>.json
            {"profiles/sailor/valid.json", "sailor"},         // { "2": { "1": { "0": [
            {"profiles/metis/valid", "metis"},                // a directory with mbs<B>_tmp<T>.json
            {"profiles/metis/valid/mbs1_tmp1.json", "metis"}, // or one such file
            {"profiles/amp/small_v1.npy", "amp-npy"},         // the .npy magic
        };
        for (const auto& [file, format] : inputs) {
            QCOMPARE(formatsSupporting(fixture(file)), std::vector<std::string>{format});
            QCOMPARE(detectFormat(fixture(file)), format);
        }
        // Something no format recognises (a text file, an empty directory, a path that is not there) asks for
        // --format and names the formats; nothing is read beyond the first bytes, nothing throws in between.
        QTemporaryDir tmp;
        const std::string text = tmp.filePath("notes.json").toStdString();
        QFile f(QString::fromStdString(text));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"layers\": [1, 2, 3]}");
        f.close();
        for (const std::string& p : {text, tmp.path().toStdString(), tmp.filePath("missing").toStdString()}) {
            QVERIFY(formatsSupporting(p).empty());
            auto e = errorOf([&] { detectFormat(p); });
            QVERIFY(e);
            QCOMPARE(e->file(), std::string("--format"));
            QVERIFY2(e->reason().find("give --format") != std::string::npos &&
                         e->reason().find("amp-npy") != std::string::npos,
                     e->what());
        }
    }

    void dispatch()
    {
        QCOMPARE(importProfile("native", fixture("profiles/native/valid.json"), "", 1).source, std::string("native"));
        QCOMPARE(importProfile("csv", fixture("profiles/csv/valid_ms.csv"), "", 1).source, std::string("csv"));
        QCOMPARE(importProfile("oobleck", fixture("profiles/oobleck/valid"), "T4", 1).source, std::string("oobleck"));
        QCOMPARE(importProfile("sailor", fixture("profiles/sailor/valid.json"), "T4", 1).source, std::string("sailor"));
        QCOMPARE(importProfile("metis", fixture("profiles/metis/valid"), "T4", 1).source, std::string("metis"));
        const Profile a = importProfile("amp-npy", fixture("profiles/amp/small_v1.npy"), "T4", 4);
        QVERIFY(a.table({"T4", 4, 1}));

        auto e = errorOf([] { importProfile("xml", "x.xml", "T4", 1); });
        QVERIFY(e);
        QCOMPARE(e->file(), std::string("--format"));
        QCOMPARE(e->field(), std::string("format"));
        QVERIFY(e->reason().find("unknown") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestImporters)
#include "tst_importers.moc"
