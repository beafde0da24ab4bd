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

// One colour per catalog device type, pairwise at least CIE ΔE76 23 apart (A100 and RTX-3090 used to
// share Ampere's blue). Each family keeps its Okabe–Ito colour for its best-known member; the others were
// picked near that colour (lightness 28–85, not grey) by a greedy search over a 17-step sRGB grid under
// the ΔE constraint, so a type still reads as its family's where the constraint allows.
struct CatalogColour {
    const char* name;
    const char* family;
    QRgb rgb;
};
constexpr CatalogColour kCatalogColours[] = {
    {"V100-16GB", "Volta", 0x55BBEE},      {"V100-32GB", "Volta", 0x99AAEE},    {"V100S-32GB", "Volta", 0x3399AA},
    {"T4", "Turing", 0x009966},            {"RTX-2080", "Turing", 0x00BBAA},    {"Titan-RTX", "Turing", 0x669977},
    {"P100-16GB", "Pascal", 0xDDCC22},     {"A100-40GB", "Ampere", 0x0077BB},   {"A100-80GB", "Ampere", 0x225577},
    {"A100-80GB-PCIe", "Ampere", 0x224488}, {"A800-80GB", "Ampere", 0x4477DD},  {"RTX-A6000", "Ampere", 0x776699},
    {"RTX-3090", "Ampere", 0x5544AA},      {"RTX-4090", "Ada", 0xCC77AA},       {"L4", "Ada", 0x996677},
    {"L40S", "Ada", 0xEEAABB},             {"H100-SXM", "Hopper", 0xDD9900},    {"H100-PCIe", "Hopper", 0xFFCC66},
    {"H800", "Hopper", 0xBB8833},          {"H200", "Hopper", 0x999900},        {"GH200-96GB", "Hopper", 0xFF9966},
    {"MI210", "AMD Instinct", 0xBB2200},   {"MI250X", "AMD Instinct", 0xDD6611}, {"MI300X", "AMD Instinct", 0x994400},
};

} // namespace

DeviceStyle deviceStyle(const std::string& deviceType)
{
    const DeviceType* d = DeviceCatalog::builtin().find(deviceType);
    if (d)
        for (const CatalogColour& c : kCatalogColours)
            if (d->name == c.name)
                return make(QString::fromLatin1(c.family), QColor(c.rgb));
    // Types outside the table (user catalogs): their family's colour, found from the name.
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

QString formatGbps(double bytesPerSecond) { return trimmedNumber(bytesPerSecond * 8 / 1e9, 2) + QStringLiteral(" Gbps"); }

QString formatGBps(double bytesPerSecond) { return trimmedNumber(bytesPerSecond / 1e9, 2) + QStringLiteral(" GB/s"); }

QString formatMicroseconds(double seconds) { return trimmedNumber(seconds * 1e6, 2) + QStringLiteral(" µs"); }

} // namespace hetplan
