#include "change_value.h"

#include <QCoreApplication>

namespace hetplan {

QString stepText(const char* format, const QString& objectName, const QString& value)
{
    // One pass by hand, not QString::arg: a format may use %2 without %1 (arg() warns about that), and a
    // name that itself contains "%2" must stay as it is.
    const QString f = QCoreApplication::translate("ClusterCommands", format);
    QString text;
    for (qsizetype i = 0; i < f.size(); ++i) {
        const QChar next = i + 1 < f.size() ? f[i + 1] : QChar();
        if (f[i] == QLatin1Char('%') && (next == QLatin1Char('1') || next == QLatin1Char('2'))) {
            text += next == QLatin1Char('1') ? objectName : value;
            ++i;
        } else {
            text += f[i];
        }
    }
    return text;
}

} // namespace hetplan
