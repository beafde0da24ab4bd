#include "export_folder.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>

namespace hetplan {

namespace {
const char* const kFolderKey = "export/folder";
}

QString suggestedSavePath(const QString& fileName, const QString& projectFile)
{
    QString folder = QSettings().value(kFolderKey).toString();
    if (folder.isEmpty() || !QDir(folder).exists())
        folder = projectFile.isEmpty() ? QString() : QFileInfo(projectFile).absolutePath();
    if (folder.isEmpty() || !QDir(folder).exists())
        folder = QDir::homePath();
    return QDir(folder).filePath(fileName);
}

void rememberSaveFolder(const QString& chosenFile)
{
    if (!chosenFile.isEmpty())
        QSettings().setValue(kFolderKey, QFileInfo(chosenFile).absolutePath());
}

QString fileNamePart(const QString& name)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._+-]+"));
    QString part = QString(name).replace(unsafe, QStringLiteral("-"));
    while (part.startsWith('-') || part.startsWith('.'))
        part.remove(0, 1);
    return part.isEmpty() ? QStringLiteral("unnamed") : part;
}

} // namespace hetplan
