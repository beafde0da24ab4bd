#include "user_guide.h"

#include <QAbstractTextDocumentLayout>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QImage>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFragment>
#include <QVBoxLayout>

namespace hetplan {

namespace {
// Screenshots are 1100-1400 px wide: shown at most this wide (aspect kept) so the text column stays readable.
constexpr int kMaxImageWidth = 820;

void fitImages(QTextDocument* doc, int maxWidth)
{
    for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            QTextImageFormat format = fragment.charFormat().toImageFormat();
            if (!format.isValid())
                continue;
            const QImage image = doc->resource(QTextDocument::ImageResource, QUrl(format.name())).value<QImage>();
            if (image.isNull() || image.width() <= maxWidth)
                continue;
            format.setWidth(maxWidth);
            format.setHeight(double(image.height()) * maxWidth / image.width());
            QTextCursor cursor(doc);
            cursor.setPosition(fragment.position());
            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
            cursor.setCharFormat(format);
        }
}

void scrollToHeading(QTextBrowser* browser, const QString& fragment)
{
    const int position = headingPosition(*browser->document(), fragment);
    if (position < 0)
        return;
    const QTextBlock block = browser->document()->findBlock(position);
    const QRectF rect = browser->document()->documentLayout()->blockBoundingRect(block);
    browser->verticalScrollBar()->setValue(int(rect.top()));
}
} // namespace

QUrl userGuideUrl()
{
    return QUrl(QStringLiteral("qrc:/docs/user-guide.md"));
}

QString headingAnchor(const QString& heading)
{
    QString anchor;
    for (const QChar c : heading.toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
            anchor += c;
        else if (c == QLatin1Char(' '))
            anchor += QLatin1Char('-');
    }
    return anchor;
}

int headingPosition(const QTextDocument& doc, const QString& fragment)
{
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next())
        if (block.blockFormat().headingLevel() > 0 && headingAnchor(block.text()) == fragment)
            return block.position();
    return -1;
}

QDialog* createUserGuideDialog(QWidget* parent)
{
    auto* dialog = new QDialog(parent);
    dialog->setObjectName(QStringLiteral("UserGuideDialog"));
    dialog->setWindowTitle(QObject::tr("hetplan User Guide"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dialog);
    auto* browser = new QTextBrowser(dialog);
    // Links are handled here: a guide-internal "#anchor" scrolls (Qt's Markdown import names no anchors),
    // a web link opens outside; anything else would replace the guide with an empty page.
    browser->setOpenLinks(false);
    QObject::connect(browser, &QTextBrowser::anchorClicked, browser, [browser](const QUrl& url) {
        if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
            QDesktopServices::openUrl(url);
        else if (url.hasFragment())
            scrollToHeading(browser, url.fragment());
    });
    browser->setSource(userGuideUrl(), QTextDocument::MarkdownResource);
    fitImages(browser->document(), kMaxImageWidth);
    layout->addWidget(browser);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(900, 760);
    return dialog;
}

} // namespace hetplan
