#pragma once
// Help ▸ User Guide: docs/user-guide.md and the screenshots it shows, compiled into the app as Qt resources
// (qrc:/docs/...), so the guide opens the same way from the build tree, an installed copy or a package,
// with no path to look up and no external viewer needed.
#include <QString>
#include <QUrl>

class QDialog;
class QTextDocument;
class QWidget;

namespace hetplan {

// Where the bundled guide lives (qrc:/docs/user-guide.md); its images resolve next to it.
QUrl userGuideUrl();

// A non-modal dialog (object name "UserGuideDialog", deleted on close) with a QTextBrowser rendering the
// guide's Markdown; links inside the guide scroll to their heading, web links open in the browser.
QDialog* createUserGuideDialog(QWidget* parent);

// The heading whose GitHub-style anchor ("#3-run-and-compare-planners") is `fragment`, as a position in
// `doc`; -1 when no heading has it.
int headingPosition(const QTextDocument& doc, const QString& fragment);

// GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to hyphens.
QString headingAnchor(const QString& heading);

} // namespace hetplan
