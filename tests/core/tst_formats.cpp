// The importer and exporter registries: the built-in formats, what each declares, lookups, the unknown-format
// error, and that one registration is all a new format needs to be importable.
#include "testutil.h"

#include "core/io/exporters.h"
#include "core/io/importers.h"

#include <QTest>

using namespace hetplan;
using namespace hetplan::test;

namespace {
using Names = std::vector<std::string>;

// What every format must declare, whatever the registry.
template <typename Registry>
void checkDeclarations(const Registry& registry)
{
    for (const FileFormat& f : registry.formats()) {
        const QByteArray name = QByteArray::fromStdString(f.name);
        QVERIFY2(!f.description.empty() && f.description.find('\n') == std::string::npos, name);
        QVERIFY2(f.suffix.empty() || f.suffix.front() == '.', name);
        // The filter a file dialog offers matches the suffix a save dialog proposes.
        QVERIFY2(f.suffix.empty() ? f.filter.empty() : f.filter == "*" + f.suffix, name);
        QCOMPARE(f.nameFilter(), f.description + " (" + (f.filter.empty() ? "*" : f.filter) + ")");
        QCOMPARE(registry.find(f.name), &f);
    }
}
} // namespace

class TestFormats : public QObject {
    Q_OBJECT
private slots:
    void builtinImporters()
    {
        const ImporterRegistry& r = ImporterRegistry::instance();
        // The formats the docs and examples use are there (a new format needs no change here).
        for (const char* name : {"native", "csv", "oobleck", "sailor", "amp-npy", "metis"})
            QVERIFY2(r.find(name), name);
        QCOMPARE(r.names().front(), std::string("native")); // the dialog's first entry
        checkDeclarations(r);
        QVERIFY(r.get("oobleck").needs.directory && r.get("oobleck").needs.device);
        QVERIFY(r.get("amp-npy").needs.tp);
        QCOMPARE(r.get("amp-npy").options.size(), size_t(2)); // backward_factor, compact_gpt2
        QVERIFY(r.get("csv").options.empty());
        QVERIFY(!r.get("csv").needs.device && !r.get("native").needs.device);
        QCOMPARE(r.get("amp-npy").filter, std::string("*.npy"));
    }

    void builtinExporters()
    {
        const ExporterRegistry& r = ExporterRegistry::instance();
        QCOMPARE(r.names(), (Names{"plan", "deepspeed", "deepspeed-ranks", "deepspeed-launcher", "megatron-launch",
                                   "hostfile", "rank-table", "chrome-trace"}));
        checkDeclarations(r);
        QCOMPARE(r.find("ranks"), r.find("rank-table")); // the short name docs/user-guide.md's export table uses
        // The Megatron export writes a launch script and is named so; its old name still works.
        QCOMPARE(r.find("megatron"), r.find("megatron-launch"));
        QCOMPARE(r.get("megatron-launch").suffix, std::string(".sh"));
        QCOMPARE(r.get("megatron-launch").description, std::string("Megatron-LM launch script (.sh)"));
        QCOMPARE(r.get("megatron-launch").nameFilter(), std::string("Megatron-LM launch script (.sh) (*.sh)"));
    }

    void unknownFormatNamesTheKnownOnes()
    {
        auto e = errorOf([] { ImporterRegistry::instance().get("xlsx"); });
        QVERIFY(e);
        QCOMPARE(e->file(), std::string("--format"));
        QCOMPARE(e->field(), std::string("format"));
        // Every registered name in registration order, the built-in ones first (a new format changes no test).
        const std::string reason = e->reason();
        const std::string known = joinNames(ImporterRegistry::instance().names(), ", ");
        QCOMPARE(reason, "unknown format 'xlsx' (known: " + known + ")");
        QVERIFY2(known.rfind("native, csv, oobleck, sailor, amp-npy, metis", 0) == 0, known.c_str());
        e = errorOf([] { exportPlan(Plan{}, "pdf"); });
        QVERIFY(e);
        QCOMPARE(
            e->reason(),
            std::string("unknown format 'pdf' (known: plan, deepspeed, deepspeed-ranks, deepspeed-launcher, "
                        "megatron-launch, hostfile, rank-table, chrome-trace)"));
    }

    void namesAreUnique()
    {
        FormatRegistry<ExportFormat> r;
        r.add({{"a", "A", "", "", {"b"}}});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, r.add({{"a", "again", "", ""}}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, r.add({{"b", "an alias taken", "", ""}}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, r.add({{"", "no name", "", ""}}));
        QCOMPARE(r.names(), (Names{"a"}));
    }

    void oneRegistrationMakesAFormatImportable()
    {
        ImporterRegistry& r = ImporterRegistry::instance();
        r.add({{"test-native", "native under another name", "*.json", ".json"},
               [](const std::string& path, const ImportOptions&) { return importNative(path); }});
        ImportOptions o;
        o.model = "m";
        const Profile p = importProfile("test-native", fixture("profiles/native/valid.json"), o);
        QVERIFY(!p.empty());
        QCOMPARE(p.model, std::string("m"));
        QCOMPARE(r.names().back(), std::string("test-native"));
    }
};

QTEST_GUILESS_MAIN(TestFormats)
#include "tst_formats.moc"
