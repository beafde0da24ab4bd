// The import dialog offers exactly the registered import formats, and enables the fields each one needs.
#include "testutil.h"

#include "core/io/importers.h"
#include "widgets/panels/import_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSpinBox>
#include <QTest>

using namespace hetplan;

class TestImportDialog : public QObject {
    Q_OBJECT
private slots:
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
        const auto* compact = d.findChild<QCheckBox*>();
        QVERIFY(device && tp && compact);
        for (const ImportFormat& f : ImporterRegistry::instance().formats()) {
            combo->setCurrentIndex(combo->findData(QString::fromStdString(f.name)));
            QCOMPARE(device->isEnabled(), f.needs.device);
            QCOMPARE(tp->isEnabled(), f.needs.tp);
            QCOMPARE(compact->isEnabled(), f.needs.ampOptions);
        }
    }

    void unknownFormatIsAnErrorNotACrash()
    {
        ImportDialog d;
        d.setInput("xlsx", "x.xlsx", "T4", 1);
        QVERIFY(!d.tryImport());
        QVERIFY2(d.error().contains("unknown format"), qPrintable(d.error()));
    }
};

QTEST_MAIN(TestImportDialog)
#include "tst_import_dialog.moc"
