#include "device_style.h"

#include "core/model/device.h"

#include <algorithm>
#include <initializer_list>

namespace hetplan {

namespace {

bool containsAny(const QString& s, std::initializer_list<const char*> keys)
{
    for (const char* k : keys)
        if (s.contains(QLatin1String(k)))
            return true;
    return false;
}

DeviceStyle make(const QString& family, QColor c)
{
    // Perceived luminance (Rec. 601 weights) decides black or white text on the strong colour.
    const double lum = 0.299 * c.redF() + 0.587 * c.greenF() + 0.114 * c.blueF();
    QColor fill = c;
    fill.setHsvF(c.hsvHueF() < 0 ? 0 : c.hsvHueF(), c.hsvSaturationF() * 0.18, 0.98);
    return {family, c, fill, lum > 0.55 ? QColor(20, 20, 20) : QColor(Qt::white)};
}

} // namespace

DeviceStyle deviceStyle(const std::string& deviceType)
{
    const DeviceType* d = DeviceCatalog::builtin().find(deviceType);
    const QString name = QString::fromStdString(d ? d->name : deviceType).toLower();
    const QString vendor = d ? QString::fromStdString(d->vendor).toLower() : QString();
    // Okabe–Ito colours; the order of the checks matters ("gh200" before "h200", "l40" before "l4").
    if (vendor == QLatin1String("amd") || name.startsWith(QLatin1String("mi")))
        return make(QStringLiteral("AMD Instinct"), QColor(0xD5, 0x5E, 0x00));
    if (containsAny(name, {"h100", "h800", "h200", "gh200"}))
        return make(QStringLiteral("Hopper"), QColor(0xE6, 0x9F, 0x00));
    if (containsAny(name, {"4090", "l40", "l4"}))
        return make(QStringLiteral("Ada"), QColor(0xCC, 0x79, 0xA7));
    if (containsAny(name, {"a100", "a800", "3090", "a6000", "a40", "a10"}))
        return make(QStringLiteral("Ampere"), QColor(0x00, 0x72, 0xB2));
    if (containsAny(name, {"t4", "2080", "titan"}))
        return make(QStringLiteral("Turing"), QColor(0x00, 0x9E, 0x73));
    if (name.contains(QLatin1String("v100")))
        return make(QStringLiteral("Volta"), QColor(0x56, 0xB4, 0xE9));
    if (name.contains(QLatin1String("p100")))
        return make(QStringLiteral("Pascal"), QColor(0xF0, 0xE4, 0x42));
    return make(vendor.isEmpty() ? QStringLiteral("Other") : QString::fromStdString(d->vendor),
                QColor(0x99, 0x99, 0x99));
}

namespace nodebox {

int gpuRows(int gpus) { return std::max(1, (std::max(gpus, 1) + gpusPerRow - 1) / gpusPerRow); }

double height(int gpus) { return header + pad + gpuRows(gpus) * gpuSlot + 6 + textLines + pad / 2; }

} // namespace nodebox

} // namespace hetplan

namespace hetplan {

QString formatGbps(double bytesPerSecond) { return QStringLiteral("%1 Gbps").arg(bytesPerSecond * 8 / 1e9, 0, 'g', 4); }

QString formatGBps(double bytesPerSecond) { return QStringLiteral("%1 GB/s").arg(bytesPerSecond / 1e9, 0, 'g', 4); }

QString formatMicroseconds(double seconds) { return QStringLiteral("%1 µs").arg(seconds * 1e6, 0, 'g', 4); }

} // namespace hetplan
