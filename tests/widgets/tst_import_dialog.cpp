// The import dialog offers exactly the registered import formats and enables the fields each one needs;
// it remembers the last format, device and folder, guesses the device from the path, offers the GPT-2 fold
// only for AMP GPT-2 files, shows errors (a layer count that does not fit the model too) inline without
// closing, and asks before replacing measurements the model has.
#include "testutil.h"

#include "core/io/examples.h"
#include "core/io/importers.h"
#include "core/io/json_io.h"
#include "widgets/panels/import_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;

namespace {
QString fixturePath(const char* rel) { return QString::fromStdString(test::fixture(rel)); }
} // namespace

class TestImportDialog : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir;

private slots:
    void initTestCase()
    {
        // The dialog's memory goes to a throw-away settings file, never the user's.
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
        QCoreApplication::setOrganizationName("hetplan-tests");
        QCoreApplication::setApplicationName("tst_import_dialog");
        QSettings().clear();
    }

    void formatComboIsTheRegistry()
    {
        ImportDialog d;
        const auto* combo = d.findChild<QComboBox*>("format");
        QVERIFY(combo);
        const std::vector<ImportFormat>& formats = ImporterRegistry::instance().formats();
        QCOMPARE(combo->count(), int(formats.size()));
        for (int i = 0; i < combo->count(); ++i) {
            QCOMPARE(combo->itemData(i).toString().toStdString(), formats[i].name);
            QCOMPARE(combo->itemText(i).toStdString(), formats[i].description);
        }
    }

    void fieldsFollowWhatTheFormatNeeds()
    {
        ImportDialog d;
        auto* combo = d.findChild<QComboBox*>("format");
        QComboBox* device = nullptr;
        for (QComboBox* c : d.findChildren<QComboBox*>())
            if (c != combo)
                device = c;
        const auto* tp = d.findChild<QSpinBox*>();
        QVERIFY(device && tp);
        d.findChild<QLineEdit*>("path")->setText("runs/gpt2/times.npy"); // a GPT-2 file: the fold can apply
        for (const ImportFormat& f : ImporterRegistry::instance().formats()) {
            combo->setCurrentIndex(combo->findData(QString::fromStdString(f.name)));
            QCOMPARE(device->isEnabled(), f.needs.device);
            QCOMPARE(tp->isEnabled(), f.needs.tp);
            // One editor per option the format declares, and none of another format's.
            int editors = 0;
            for (QWidget* w : d.findChildren<QWidget*>())
                editors += w->objectName().startsWith("param:");
            QCOMPARE(editors, int(f.options.size()));
            for (const OptionDecl& o : f.options)
                QVERIFY(d.findChild<QWidget*>(QString::fromStdString("param:" + o.key)));
        }
    }

    void unknownFormatIsAnErrorNotACrash()
    {
        ImportDialog d;
        d.setInput("xlsx", "x.xlsx", "T4", 1);
        QVERIFY(!d.tryImport());
        QVERIFY2(d.error().contains("unknown format"), qPrintable(d.error()));
    }

    void remembersFormatDeviceAndFolder()
    {
        {
            ImportDialog d;
            d.setInput("amp-npy", fixturePath("profiles/amp/small_v1.npy"), "V100-32GB", 2);
            QVERIFY2(d.tryAccept(), qPrintable(d.error()));
            QCOMPARE(d.result(), int(QDialog::Accepted));
        }
        ImportDialog again;
        QCOMPARE(again.findChild<QComboBox*>("format")->currentData().toString(), QStringLiteral("amp-npy"));
        QCOMPARE(again.device(), QStringLiteral("V100-32GB"));
        QCOMPARE(QDir(QSettings().value("importDialog/folder").toString()),
                 QDir(fixturePath("profiles/amp")));
        // A failed import remembers nothing.
        again.setInput("csv", "/nonexistent/x.csv", "T4", 1);
        QVERIFY(!again.tryAccept());
        QCOMPARE(ImportDialog().device(), QStringLiteral("V100-32GB"));
    }

    void guessesTheDeviceFromThePath()
    {
        ImportDialog d;
        auto* path = d.findChild<QLineEdit*>("path");
        path->setText("/data/profiles/A100-80/profile.json");
        QCOMPARE(d.device(), QStringLiteral("A100-80GB"));
        QVERIFY(d.findChild<QLabel*>("deviceHint")->text().contains("A100-80GB"));
        path->setText("/data/t4/gpt2.npy");
        QCOMPARE(d.device(), QStringLiteral("T4"));
        path->setText("/data/unknown/gpt2.npy"); // no guess: the last choice stays
        QCOMPARE(d.device(), QStringLiteral("T4"));
        QVERIFY(d.findChild<QLabel*>("deviceHint")->text().isEmpty());
    }

    void gpt2FoldOnlyForAmpGpt2Files()
    {
        ImportDialog d;
        using Params = std::map<std::string, std::string>;
        const Params fold{{"compact_gpt2", "true"}};
        d.setInput("amp-npy", fixturePath("profiles/amp/gpt2_30.npy"), "T4", 1);
        QCOMPARE(d.suggestedParams(), fold);
        auto* compact = d.findChild<QCheckBox*>("param:compact_gpt2");
        QVERIFY(compact && compact->isChecked());
        d.setInput("amp-npy", fixturePath("profiles/amp/small_v1.npy"), "T4", 1);
        QVERIFY(d.suggestedParams().empty()); // an AMP file of another model
        QVERIFY(!compact->isChecked());       // back to the default
        QVERIFY2(d.tryImport(), qPrintable(d.error()));
        QCOMPARE(d.profile().layerCount(), 5); // not folded
        d.setInput("csv", "runs/gpt2/layer_times.csv", "T4", 1);
        QVERIFY(d.suggestedParams().empty()); // csv takes no options
        QVERIFY(!d.findChild<QCheckBox*>("param:compact_gpt2"));
        // An AMP file whose path says nothing, for a GPT-2 model: suggested.
        const ModelSpec gpt2 = buildExampleModel("gpt2-amp");
        d.setTarget(&gpt2, nullptr);
        d.setInput("amp-npy", fixturePath("profiles/amp/small_v1.npy"), "T4", 1);
        QCOMPARE(d.suggestedParams(), fold);
        QVERIFY(d.findChild<QCheckBox*>("param:compact_gpt2")->isChecked());
    }

    void layerMismatchIsShownInlineAndKeepsTheDialogOpen()
    {
        ImportDialog d;
        ModelSpec toy = test::toyModel(10);
        toy.name = "toy";
        d.setTarget(&toy, nullptr);
        d.setInput("amp-npy", fixturePath("profiles/amp/gpt2_30.npy"), "T4", 1);
        QVERIFY(!d.tryAccept());
        QVERIFY(d.result() != QDialog::Accepted);
        // Folded (the default for a GPT-2 file): 26 entries against the model's 10.
        QVERIFY2(d.error().contains("layers: the profile has 26 layers, model 'toy' has 10"), qPrintable(d.error()));
        QVERIFY(d.error().startsWith(fixturePath("profiles/amp/gpt2_30.npy"))); // file: field: reason
        d.findChild<QCheckBox*>("param:compact_gpt2")->setChecked(false);
        QVERIFY(!d.tryAccept());
        QVERIFY2(d.error().contains("has 30 layers") && d.error().contains("fold"), qPrintable(d.error()));
        // The label wraps inside a scroll area: a long message is never clipped.
        auto* label = d.findChild<QLabel*>("error");
        QVERIFY(label->wordWrap());
        QCOMPARE(d.findChild<QScrollArea*>("errorArea")->widget(), label);
        // The right model: accepted.
        const ModelSpec gpt2 = buildExampleModel("gpt2-amp");
        d.setTarget(&gpt2, nullptr);
        d.findChild<QCheckBox*>("param:compact_gpt2")->setChecked(true);
        QVERIFY2(d.tryAccept(), qPrintable(d.error()));
        QCOMPARE(d.profile().layerCount(), gpt2.layerCount());
        QVERIFY(d.error().isEmpty());
    }

    void acceptsTheProfilersOutput()
    {
        // A file in hetplan-profile's layout (tools/profiler) for the tiny GPT it is tested on: the native
        // format reads it as it is, against that model, with what the profiler recorded about the machine.
        const ModelSpec tiny = readModel(test::fixture("profiler/tiny-gpt.model.json"));
        ImportDialog d;
        d.setTarget(&tiny, nullptr);
        d.setInput("native", fixturePath("profiles/native/hetplan-profile.json"), "", 1);
        QVERIFY2(d.tryAccept(), qPrintable(d.error()));
        QCOMPARE(d.profile().layerCount(), tiny.layerCount());
        QCOMPARE(d.profile().deviceTypes(), std::vector<std::string>{"H100-SXM"});
        QCOMPARE(d.profile().measuredOn.at("H100-SXM").maxMicroBatch.at(1), 2);
        QCOMPARE(d.profile().sequenceLength, 32);
    }

    void replacingMeasurementsAsksFirst()
    {
        const ModelSpec gpt2 = buildExampleModel("gpt2-amp");
        ImportOptions o;
        o.deviceType = "T4";
        o.params["compact_gpt2"] = "true";
        const Profile existing = importProfile("amp-npy", test::fixture("profiles/amp/gpt2_30.npy"), o);
        QStringList asked;
        bool answer = false;
        auto makeDialog = [&](ImportDialog& d, const char* device) {
            d.setTarget(&gpt2, &existing);
            d.confirmReplace = [&](const QString& q) {
                asked << q;
                return answer;
            };
            d.setInput("amp-npy", fixturePath("profiles/amp/gpt2_30.npy"), device, 1);
        };
        {
            ImportDialog d;
            makeDialog(d, "T4");
            QVERIFY(!d.tryAccept()); // "no": the dialog stays, nothing replaced
            QCOMPARE(asked.size(), 1);
            QVERIFY2(asked[0].contains("gpt2-amp") && asked[0].contains("T4 tp 1"), qPrintable(asked[0]));
            QVERIFY(d.error().contains("kept"));
            answer = true;
            QVERIFY(d.tryAccept());
            QCOMPARE(asked.size(), 2);
        }
        {
            ImportDialog d; // another device: nothing to replace, no question
            makeDialog(d, "V100-16GB");
            QVERIFY(d.tryAccept());
            QCOMPARE(asked.size(), 2);
        }
    }
};

QTEST_MAIN(TestImportDialog)
#include "tst_import_dialog.moc"
