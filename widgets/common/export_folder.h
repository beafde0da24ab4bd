#pragma once
// Where every save dialog of the app starts (plots, plans, JSON items, the project itself): the folder the
// user last saved an export in, else the open project's folder, else the home folder. One place, so the
// dialogs agree instead of each starting somewhere of its own.
#include <QString>

namespace hetplan {

// `fileName` (a suggested name without a folder) in the folder the next save dialog should start in;
// `projectFile` is the open project's path ("" when untitled).
QString suggestedSavePath(const QString& fileName, const QString& projectFile = {});
// Remembers the folder of a file the user just chose in a save dialog (QSettings "export/folder").
void rememberSaveFolder(const QString& chosenFile);
// A file-name-safe version of a name from the project ("gpt2 xl/v2" → "gpt2-xl-v2").
QString fileNamePart(const QString& name);

} // namespace hetplan
