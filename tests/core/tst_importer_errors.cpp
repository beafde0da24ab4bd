// Profile importers on bad input: bad arguments, random truncations and byte flips of valid files, and
// every malformed fixture raising InputError(file, field, reason) that names the right file and field.
#include "core/base/errors.h"
#include "core/io/importers.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <random>

using namespace hetplan;
using hetplan::test::errorOf;
using hetplan::test::fixture;

class TestImporterErrors : public QObject {
    Q_OBJECT

private slots:
    void badArguments()
    {
        const std::string npy = fixture("profiles/amp/small_v1.npy");
        auto e = errorOf([&] { importAmpNpy(npy, "", 1); });
        QVERIFY(e && e->file() == npy && e->field() == "device");
        e = errorOf([&] { importSailor(fixture("profiles/sailor/valid.json"), " "); });
        QVERIFY(e && e->field() == "device");
        e = errorOf([&] { importOobleck(fixture("profiles/oobleck/valid"), ""); });
        QVERIFY(e && e->field() == "device");
        e = errorOf([&] { importMetis(fixture("profiles/metis/valid"), ""); });
        QVERIFY(e && e->field() == "device");
        e = errorOf([&] { importAmpNpy(npy, "T4", 0); });
        QVERIFY(e && e->file() == npy && e->field() == "tp");
        e = errorOf([&] { importAmpNpy(npy, "T4", 1, -1.0); });
        QVERIFY(e && e->field() == "backward_factor");
        e = errorOf([&] { importAmpNpy(npy, "T4", 1, 2.0, true); }); // 5 entries cannot be GPT-2
        QVERIFY(e && e->file() == npy && e->field() == "shape");
    }

    // Property: random truncations and byte flips of valid files either import or raise InputError;
    // nothing else escapes (no crash, no other exception type).
    void corruptedInputsNeverCrash()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        struct Case {
            const char* format;
            const char* source;
            const char* name;
        } cases[] = {{"amp-npy", "amp/small_v1.npy", "x.npy"},
                     {"amp-npy", "amp/small_v2.npy", "x.npy"},
                     {"csv", "csv/valid_ms.csv", "x.csv"},
                     {"sailor", "sailor/valid.json", "x.json"},
                     {"native", "native/valid.json", "x.json"}};
        std::mt19937 rng(12345);
        int rejected = 0, accepted = 0;
        for (const Case& c : cases) {
            QFile src(QString::fromStdString(fixture(std::string("profiles/") + c.source)));
            QVERIFY(src.open(QIODevice::ReadOnly));
            const QByteArray original = src.readAll();
            const QString path = dir.filePath(c.name);
            for (int round = 0; round < 200; ++round) {
                QByteArray b = original;
                if (round % 2 == 0) {
                    b.truncate(int(rng() % (b.size() + 1)));
                } else {
                    for (int k = 0, n = 1 + int(rng() % 4); k < n && !b.isEmpty(); ++k)
                        b[int(rng() % b.size())] = char(rng() % 256);
                }
                QFile out(path);
                QVERIFY(out.open(QIODevice::WriteOnly));
                out.write(b);
                out.close();
                try {
                    importProfile(c.format, path.toStdString(), "T4", 1);
                    ++accepted;
                } catch (const InputError& e) {
                    QCOMPARE(e.file(), path.toStdString());
                    ++rejected;
                }
            }
        }
        QVERIFY(rejected > 0);
        QVERIFY(accepted > 0); // e.g. flips inside npy padding or CSV comment lines stay valid
    }

    // ------------------------------------------------------------------ malformed inputs
    void malformed_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("input");   // relative to fixtures/profiles
        QTest::addColumn<QString>("errFile"); // file the error must name (relative), empty = input
        QTest::addColumn<QString>("field");   // substring of the field
        QTest::addColumn<QString>("reason");  // substring of the reason

        auto row = [](const char* name, const char* fmt, const char* in, const char* errFile, const char* field,
                      const char* reason) { QTest::newRow(name) << fmt << in << errFile << field << reason; };
        row("native bad json", "native", "native/bad_json.json", "", "json", "JSON");
        row("native missing forward", "native", "native/missing_field.json", "", "layers[1].forward", "");
        row("native negative", "native", "native/negative.json", "", "layers[0]", "");
        row("native missing file", "native", "native/nope.json", "", "file", "");
        row("native unknown device", "native", "native/unknown_device.json", "", "tables[1].device",
            "unknown device type 'H999' (see hetplan-cli list devices)");
        row("native negative activation", "native", "native/negative_activation.json", "",
            "tables[0].layers[1].activation_bytes", "must be 0 or between 1 and 1e+15 B");
        row("native hex quantity", "native", "native/hex_time.json", "", "tables[0].layers[0].forward",
            "decimal number");

        row("csv not a number", "csv", "csv/bad_number.csv", "", "line 3: forward_ms", "not a decimal number");
        row("csv layer gap", "csv", "csv/gap.csv", "", "line 4: layer", "layer 2 is missing");
        row("csv duplicate", "csv", "csv/duplicate.csv", "", "line 4: layer", "duplicate");
        row("csv mixed units", "csv", "csv/mixed_units.csv", "", "line 1: header", "mix units");
        row("csv unknown column", "csv", "csv/unknown_column.csv", "", "line 1: header", "fwd_ms");
        row("csv missing column", "csv", "csv/missing_column.csv", "", "line 1: header", "backward_ms");
        row("csv negative", "csv", "csv/negative.csv", "", "line 3: backward_ms", "negative");
        row("csv field count", "csv", "csv/field_count.csv", "", "line 3", "expected 6 fields, found 5");
        row("csv tp 0", "csv", "csv/bad_tp.csv", "", "line 2: tp", "positive");
        row("csv missing file", "csv", "csv/nope.csv", "", "file", "not found");
        row("csv unknown device", "csv", "csv/unknown_device.csv", "", "line 3: device",
            "unknown device type 'Quantum-GPU' (see hetplan-cli list devices)");

        row("sailor bad json", "sailor", "sailor/bad_json.json", "", "json",
            "invalid JSON at line 2"); // the file ends on line 2
        row("sailor negative", "sailor", "sailor/negative.json", "", "mbs 1, tp 1, layer 1: backward", "negative");
        row("sailor short array", "sailor", "sailor/short_array.json", "", "mbs 1, tp 1, layer 1", "[forward_s");
        row("sailor gap", "sailor", "sailor/gap.json", "", "mbs 1, tp 1, layer 2", "missing");
        row("sailor bad key", "sailor", "sailor/bad_key.json", "", "mbs one", "positive whole number");
        row("sailor not a number", "sailor", "sailor/not_number.json", "", "layer 0: forward", "not a number");
        row("sailor not an object", "sailor", "sailor/not_object.json", "", "json", "object");

        row("oobleck missing backward", "oobleck", "oobleck/missing_field", "oobleck/missing_field/mb1.json",
            "[1].backward", "missing");
        row("oobleck bad json", "oobleck", "oobleck/bad_json", "oobleck/bad_json/mb1.json", "json", "invalid JSON");
        row("oobleck negative", "oobleck", "oobleck/negative", "oobleck/negative/mb1.json", "[1].forward", "negative");
        row("oobleck bad allreduce", "oobleck", "oobleck/bad_allreduce", "oobleck/bad_allreduce/allreduce_in_node.json",
            "[1].two", "positive whole number");
        row("oobleck layer mismatch", "oobleck", "oobleck/layer_mismatch", "oobleck/layer_mismatch/mb4.json", "layers",
            "has 2 layers but mb1.json has 3");
        row("oobleck no mb files", "oobleck", "oobleck/no_mb", "", "mb*.json", "no Oobleck");
        row("oobleck bad mem_required", "oobleck", "oobleck/bad_mem", "oobleck/bad_mem/mb1.json", "[0].mem_required",
            "parameter_bytes");
        row("oobleck missing dir", "oobleck", "oobleck/nope", "", "file", "not found");

        row("metis short array", "metis", "metis/bad_length", "metis/bad_length/mbs1_tmp1.json",
            "execution_time.layer_compute_total_ms", "has 2 entries, num_layers is 3");
        row("metis negative", "metis", "metis/negative", "metis/negative/mbs1_tmp1.json",
            "execution_time.layer_compute_total_ms[1]", "negative");
        row("metis no execution_time", "metis", "metis/no_time", "metis/no_time/mbs1_tmp1.json", "execution_time",
            "missing");
        row("metis no files", "metis", "metis/no_files", "", "file", "no mbs<B>_tmp<T>.json");
        row("metis zero layers", "metis", "metis/bad_layers", "metis/bad_layers/mbs1_tmp1.json", "model.num_layers",
            "positive whole number");
        row("metis bad name", "metis", "metis/no_files/other.json", "", "file", "mbs<B>_tmp<T>.json");
        row("metis missing dir", "metis", "metis/nope", "", "file", "not found");

        row("npy truncated data", "amp-npy", "amp/truncated.npy", "", "data", "truncated");
        row("npy truncated header", "amp-npy", "amp/truncated_header.npy", "", "header", "truncated");
        row("npy trailing bytes", "amp-npy", "amp/trailing.npy", "", "data", "extra bytes");
        row("npy float32", "amp-npy", "amp/wrong_dtype.npy", "", "descr", "'<f4'");
        row("npy big-endian", "amp-npy", "amp/big_endian.npy", "", "descr", "big-endian");
        row("npy fortran 2-D", "amp-npy", "amp/fortran_2d.npy", "", "fortran_order", "Fortran");
        row("npy 2-D", "amp-npy", "amp/shape_2d.npy", "", "shape", "1-D");
        row("npy bad magic", "amp-npy", "amp/bad_magic.npy", "", "magic", "not a NumPy");
        row("npy version 4", "amp-npy", "amp/bad_version.npy", "", "version", "4.0");
        row("npy bad header", "amp-npy", "amp/bad_header.npy", "", "header", "shapf");
        row("npy negative", "amp-npy", "amp/negative.npy", "", "[1]", "negative");
        row("npy empty", "amp-npy", "amp/empty.npy", "", "shape", "empty");
        row("npy missing file", "amp-npy", "amp/nope.npy", "", "file", "not found");
    }
    void malformed()
    {
        QFETCH(QString, format);
        QFETCH(QString, input);
        QFETCH(QString, errFile);
        QFETCH(QString, field);
        QFETCH(QString, reason);
        const std::string in = fixture("profiles/" + input.toStdString());
        const std::string expectFile = errFile.isEmpty() ? in : fixture("profiles/" + errFile.toStdString());
        const auto e = errorOf([&] { importProfile(format.toStdString(), in, "T4", 1); });
        QVERIFY2(e, "no InputError");
        QVERIFY2(QDir::cleanPath(QString::fromStdString(e->file())) ==
                     QDir::cleanPath(QString::fromStdString(expectFile)),
                 e->what());
        QVERIFY2(e->field().find(field.toStdString()) != std::string::npos, e->what());
        QVERIFY2(e->reason().find(reason.toStdString()) != std::string::npos, e->what());
        // The message the CLI prints names both.
        QVERIFY(std::string(e->what()).find(e->file()) == 0);
    }
};

QTEST_GUILESS_MAIN(TestImporterErrors)
#include "tst_importer_errors.moc"
