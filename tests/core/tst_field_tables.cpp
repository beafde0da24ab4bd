// The struct field tables (core/model/job_fields.h, layer_fields.h): each row owns one member, its default
// is the member's, every job row survives a JSON round trip, names are unique, and the layer reader refuses
// keys and values the table does not allow.
#include "testutil.h"

#include "core/base/errors.h"
#include "core/io/json_io.h"
#include "core/model/job_fields.h"
#include "core/model/layer_fields.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace hetplan;

namespace {
// A value of field `f` other than its default, within its range.
template <class T>
std::string otherValue(const FieldSpec<T>& f)
{
    const OptionDecl& d = f.decl;
    switch (d.type) {
    case OptionType::Bool: return d.defaultValue == "true" ? "false" : "true";
    case OptionType::Choice: return d.choices.back() == d.defaultValue ? d.choices.front() : d.choices.back();
    case OptionType::Int: return std::to_string(int(d.min) + 1);
    case OptionType::Real: break;
    }
    return d.defaultValue == "0" ? "0.25" : "0.5";
}

// Each row changes its own member and only it: setting one field to another value leaves every other
// row's text as it was, and the whole struct differs from the default one.
template <class T>
void eachRowOwnsOneMember(const std::vector<FieldSpec<T>>& fields)
{
    for (const FieldSpec<T>& f : fields) {
        QVERIFY2(holdsDefault(f, T{}), f.decl.key.c_str()); // the table's default is the member's
        T changed{};
        setFieldText(f, changed, otherValue(f), "test");
        QVERIFY2(!(changed == T{}), f.decl.key.c_str());
        for (const FieldSpec<T>& g : fields)
            if (&g != &f)
                QVERIFY2(fieldText(g, changed) == fieldText(g, T{}), (f.decl.key + " moved " + g.decl.key).c_str());
    }
}
} // namespace

class TestFieldTables : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    std::string path(const char* name) { return dir.filePath(name).toStdString(); }

private slots:
    void fieldTables()
    {
        eachRowOwnsOneMember(jobFields());
        eachRowOwnsOneMember(layerFields());
        // Every job field survives write → read on its own (a row with the wrong key or type would not).
        for (const FieldSpec<Job>& f : jobFields()) {
            Job j;
            setFieldText(f, j, otherValue(f), "test");
            writeJsonFile(path("field.json"), toJson(j));
            QVERIFY2(readJob(path("field.json")) == j, f.decl.key.c_str());
        }
        // Keys, labels and flags are unique, so an error or a flag names one field (findField looks a name
        // up as key or flag: a flag must be no other field's key).
        std::set<std::string> keys, labels, flags;
        for (const FieldSpec<Job>& f : jobFields())
            QVERIFY(keys.insert(f.decl.key).second && labels.insert(f.decl.label).second);
        for (const FieldSpec<Job>& f : jobFields()) {
            QVERIFY(f.flag.empty() || flags.insert(f.flag).second);
            QVERIFY(f.flag == f.decl.key || !keys.count(f.flag));
            QCOMPARE(findField(jobFields(), f.decl.key), &f);
        }
    }

    void layerKeysChecked()
    {
        // A misspelt layer key is refused (it would silently read as 0), and ranges name the layer.
        auto errorFor = [&](const char* layer) {
            const std::string file = path("m.json");
            QFile f(QString::fromStdString(file));
            f.open(QIODevice::WriteOnly);
            f.write(QByteArray(R"({"name":"m","layers":[{"params":1,"forward_flops":1},)") + layer + "]}");
            f.close();
            const auto e = test::errorOf([&] { readModel(file); });
            return e ? e->field() + ": " + e->reason() : std::string();
        };
        QCOMPARE(errorFor(R"({"params":1,"forward_flops":1,"output_byte":4})"),
                 std::string("layers[1].output_byte: unknown field"));
        QCOMPARE(errorFor(R"({"params":1,"forward_flops":-1})"),
                 std::string("layers[1].forward_flops: must be between 0 and 1e+21"));
        QCOMPARE(errorFor(R"({"params":1})"), std::string("layers[1].forward_flops: missing"));
        QCOMPARE(errorFor(R"({"params":1,"forward_flops":1,"kind":"block"})"),
                 std::string("layers[1].kind: expected embedding, transformer, head, conv, linear, moe or other, "
                             "got \"block\""));
    }
};

QTEST_GUILESS_MAIN(TestFieldTables)
#include "tst_field_tables.moc"
