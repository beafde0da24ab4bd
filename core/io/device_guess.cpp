#include "device_guess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>

namespace hetplan {

namespace {

bool isAlnum(QChar c) { return c.isLetterOrNumber(); }

// Whether `spelling` occurs in `text` with no letter or digit right before or after it.
bool containsAsToken(const QString& text, const QString& spelling)
{
    for (qsizetype at = text.indexOf(spelling); at >= 0; at = text.indexOf(spelling, at + 1)) {
        const qsizetype end = at + spelling.size();
        if ((at == 0 || !isAlnum(text[at - 1])) && (end == text.size() || !isAlnum(text[end])))
            return true;
    }
    return false;
}

std::string guessFromContent(const std::string& path, const DeviceCatalog& catalog)
{
    QFile f(QString::fromStdString(path));
    if (!QFileInfo(f).isFile() || !f.open(QIODevice::ReadOnly))
        return {};
    const QString head = QString::fromUtf8(f.read(64 * 1024));
    static const QRegularExpression field(R"re("(?:device|device_type|gpu|gpu_type)"\s*:\s*"([^"]+)")re",
                                          QRegularExpression::CaseInsensitiveOption);
    if (const auto m = field.match(head); m.hasMatch()) {
        const std::string value = m.captured(1).toStdString();
        if (const DeviceType* d = catalog.find(value))
            return d->name;
        return deviceNamedIn(value, catalog);
    }
    const QStringList lines = head.split('\n');
    if (lines.size() >= 2) { // CSV with a device column
        const QStringList header = lines[0].trimmed().split(',');
        const qsizetype column = header.indexOf("device");
        const QStringList row = lines[1].trimmed().split(',');
        if (column >= 0 && column < row.size())
            return deviceNamedIn(row[column].trimmed().toStdString(), catalog);
    }
    return {};
}

} // namespace

std::string deviceNamedIn(const std::string& text, const DeviceCatalog& catalog)
{
    const QString lower = QString::fromStdString(text).toLower();
    std::string best;
    qsizetype bestLength = 0;
    for (const DeviceType& d : catalog.all()) {
        std::vector<std::string> spellings = d.aliases;
        spellings.push_back(d.name);
        for (const std::string& s : spellings) {
            const QString spelling = QString::fromStdString(s).toLower();
            if (spelling.size() > bestLength && containsAsToken(lower, spelling)) {
                best = d.name;
                bestLength = spelling.size();
            }
        }
    }
    return best;
}

std::string guessDeviceType(const std::string& path, const DeviceCatalog& catalog)
{
    QString p = QDir::fromNativeSeparators(QString::fromStdString(path));
    QStringList parts = p.split('/', Qt::SkipEmptyParts);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it)
        if (std::string d = deviceNamedIn(it->toStdString(), catalog); !d.empty())
            return d;
    return guessFromContent(path, catalog);
}

} // namespace hetplan
