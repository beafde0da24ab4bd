// Help ▸ User Guide: the action exists and opens the bundled docs/user-guide.md (the same text as the file in
// the source tree, first heading first), every image the guide shows is bundled and drawn at a readable
// width, its table of contents reaches its headings, and every menu path it names in bold exists.
#include "testutil.h"

#include "app/gui/main_window.h"
#include "app/gui/user_guide.h"

#include <QAction>
#include <QDialog>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFragment>

using namespace hetplan;

namespace {
QString guideSource()
{
    QFile f(QStringLiteral(HETPLAN_SOURCE_DIR "/docs/user-guide.md"));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// The item at `path` ("File", "Export Plan", "Plan JSON (hetplan.plan/1)") in the window's menus, matched
// without mnemonics and trailing "…".
QAction* menuItem(QMainWindow& w, const QStringList& path)
{
    QList<QAction*> actions = w.menuBar()->actions();
    QAction* found = nullptr;
    for (const QString& name : path) {
        found = nullptr;
        for (QAction* a : actions)
            if (a->text().remove('&').remove(QStringLiteral("…")).trimmed() == name)
                found = a;
        if (!found)
            return nullptr;
        actions = found->menu() ? found->menu()->actions() : QList<QAction*>{};
    }
    return found;
}

QTextBrowser* openGuide(MainWindow& w)
{
    QAction* action = menuItem(w, {"Help", "User Guide"});
    if (!action)
        return nullptr;
    action->trigger();
    auto* dialog = w.findChild<QDialog*>("UserGuideDialog");
    return dialog && dialog->isVisible() ? dialog->findChild<QTextBrowser*>() : nullptr;
}

// With HETPLAN_SCREENSHOTS=DIR set, writes what the widget shows to DIR/name (to look at it by eye).
void saveShot(QWidget* widget, const QString& name)
{
    const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOTS");
    if (!dir.isEmpty())
        widget->grab().save(dir + "/" + name);
}
} // namespace

class TestUserGuide : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName("hetplan-tests");
        QCoreApplication::setApplicationName("tst_user_guide");
        QVERIFY2(!guideSource().isEmpty(), "docs/user-guide.md is missing");
    }

    void helpMenuShowsTheGuideFromItsFirstHeading()
    {
        MainWindow w;
        w.show();
        QTextBrowser* browser = openGuide(w);
        QVERIFY(browser);
        static const QRegularExpression h1(QStringLiteral("^# (.+)$"), QRegularExpression::MultilineOption);
        const QString firstHeading = h1.match(guideSource()).captured(1).trimmed();
        QVERIFY(!firstHeading.isEmpty());
        QTextBlock first = browser->document()->begin();
        while (first.isValid() && first.blockFormat().headingLevel() == 0)
            first = first.next();
        QVERIFY(first.isValid());
        QCOMPARE(first.blockFormat().headingLevel(), 1);
        QCOMPARE(first.text(), firstHeading);
        QCOMPARE(browser->verticalScrollBar()->value(), 0); // it opens at the top
        saveShot(w.findChild<QDialog*>("UserGuideDialog"), "user-guide.png");
        // A second Help ▸ User Guide raises the open window instead of stacking another one.
        menuItem(w, {"Help", "User Guide"})->trigger();
        QCOMPARE(w.findChildren<QDialog*>("UserGuideDialog").size(), 1);
    }

    void everyImageIsBundledAndFitsTheWindow()
    {
        MainWindow w;
        w.show();
        QTextBrowser* browser = openGuide(w);
        QVERIFY(browser);
        static const QRegularExpression image(QStringLiteral("!\\[[^\\]]*\\]\\(([^)]+)\\)"));
        int inSource = 0;
        for (auto it = image.globalMatch(guideSource()); it.hasNext(); it.next())
            ++inSource;
        QVERIFY(inSource >= 8); // the walk-through is illustrated
        int shown = 0;
        QTextDocument* doc = browser->document();
        for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
            for (auto it = b.begin(); !it.atEnd(); ++it) {
                const QTextImageFormat f = it.fragment().charFormat().toImageFormat();
                if (!f.isValid())
                    continue;
                ++shown;
                const QImage img = doc->resource(QTextDocument::ImageResource, QUrl(f.name())).value<QImage>();
                QVERIFY2(!img.isNull(), qPrintable(f.name() + " is not bundled (app/gui/CMakeLists.txt)"));
                const double width = f.width() > 0 ? f.width() : img.width();
                QVERIFY2(width <= 820, qPrintable(f.name()));
                if (f.width() > 0) // scaled: the aspect ratio is kept
                    QVERIFY(qAbs(f.height() / f.width() - double(img.height()) / img.width()) < 0.01);
            }
        QCOMPARE(shown, inSource);
    }

    void headingAnchorsFollowGitHub()
    {
        QCOMPARE(headingAnchor("3. Run and compare planners"), QString("3-run-and-compare-planners"));
        QCOMPARE(headingAnchor("Run ▸ Live Re-planning"), QString("run--live-re-planning"));
        QCOMPARE(headingAnchor("$/M tokens (cost)"), QString("m-tokens-cost"));
    }

    void tableOfContentsReachesEveryHeading()
    {
        MainWindow w;
        w.show();
        QTextBrowser* browser = openGuide(w);
        QVERIFY(browser);
        static const QRegularExpression link(QStringLiteral("\\]\\(#([^)]+)\\)"));
        QStringList anchors;
        for (auto it = link.globalMatch(guideSource()); it.hasNext();)
            anchors << it.next().captured(1);
        QVERIFY(anchors.size() >= 8);
        for (const QString& a : anchors)
            QVERIFY2(headingPosition(*browser->document(), a) >= 0, qPrintable(a));
        // Following the last entry scrolls the guide down to it, and the guide stays loaded.
        browser->resize(800, 500);
        emit browser->anchorClicked(QUrl("#" + anchors.last()));
        QVERIFY(browser->verticalScrollBar()->value() > 0);
        QCOMPARE(browser->source(), userGuideUrl());
    }

    void everyMenuPathInBoldExists()
    {
        MainWindow w;
        static const QRegularExpression path(QStringLiteral("\\*\\*((?:File|Edit|View|Run|Help) ▸ [^*]+)\\*\\*"));
        int checked = 0;
        for (auto it = path.globalMatch(guideSource()); it.hasNext(); ++checked) {
            const QString text = it.next().captured(1);
            QStringList parts = text.split(QStringLiteral(" ▸ "));
            for (QString& p : parts)
                p = p.remove(QStringLiteral("…")).trimmed();
            QVERIFY2(menuItem(w, parts), qPrintable(text + " is not in the menus"));
        }
        QVERIFY(checked >= 8);
    }
};

QTEST_MAIN(TestUserGuide)
#include "tst_user_guide.moc"
