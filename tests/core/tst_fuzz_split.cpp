// The fuzz entries' multi-file input (fuzz/fuzz_entries.h) and their coverage of the readers.
#include "fuzz_entries.h"

#include "core/io/importers.h"

#include <QtTest>

using namespace hetplan;
using fuzz::InputFile;

namespace {
bool sameFiles(const std::vector<InputFile>& got, const std::vector<InputFile>& want)
{
    if (got.size() != want.size())
        return false;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i].name != want[i].name || got[i].bytes != want[i].bytes)
            return false;
    return true;
}
} // namespace

class TestFuzzSplit : public QObject {
    Q_OBJECT
private slots:
    void plainInputIsTheFirstFile()
    {
        QVERIFY(sameFiles(fuzz::splitFiles("[1, 2]\n", "mb1.json"), {{"mb1.json", "[1, 2]\n"}}));
    }
    void markersStartFiles()
    {
        const std::string input = "head\n=== a.json\n{}\n=== b.json\n[]";
        QVERIFY(sameFiles(fuzz::splitFiles(input, "first"), {{"first", "head\n"}, {"a.json", "{}\n"}, {"b.json", "[]"}}));
    }
    void noUnnamedFileWithoutLeadingBytes()
    {
        QVERIFY(sameFiles(fuzz::splitFiles("=== x\n1\n", "first"), {{"x", "1\n"}}));
        QVERIFY(fuzz::splitFiles("", "first").empty());
    }
    void namesLoseEverythingButSafeCharacters()
    {
        // A path separator or "..": the file must stay inside the input's folder.
        QVERIFY(sameFiles(fuzz::splitFiles("=== ../../etc/p w\n=== ..\n=== /\n", "f"),
                          {{"....etcpw", ""}, {"unnamed", ""}, {"unnamed", ""}}));
    }
    void namesAreCutAt100Characters()
    {
        // The fuzzer's first crash: a 290-character name the file system refused (fuzz/regressions/profile-*).
        const auto files = fuzz::splitFiles("=== " + std::string(300, 'P') + "\n", "f");
        QCOMPARE(files.size(), std::size_t(1));
        QCOMPARE(files[0].name, std::string(100, 'P'));
    }
    void fileCountIsBounded()
    {
        std::string input;
        for (int i = 0; i < 40; ++i)
            input += "=== f" + std::to_string(i) + "\n";
        const auto files = fuzz::splitFiles(input, "first");
        QCOMPARE(files.size(), std::size_t(32));
        QCOMPARE(files.back().bytes, std::string("=== f32\n=== f33\n=== f34\n=== f35\n=== f36\n=== f37\n=== f38\n=== f39\n"));
    }
    void everyImporterHasATarget()
    {
        for (const ImportFormat& f : ImporterRegistry::instance().formats())
            QVERIFY2(fuzz::findTarget("profile-" + f.name), f.name.c_str());
        for (const char* reader : {"cluster", "model", "job", "plan", "project"})
            QVERIFY2(fuzz::findTarget(reader), reader);
    }
};

QTEST_GUILESS_MAIN(TestFuzzSplit)
#include "tst_fuzz_split.moc"
