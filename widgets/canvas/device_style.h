#pragma once
// How the canvas draws a device type: a colour of its own for every type of the built-in catalog (near its
// architecture family's Okabe–Ito colour, distinct from every other type's), a family colour for other
// types, and the size of a node box.
#include "widgets/common/number_text.h"

#include <QColor>
#include <QString>

#include <string>

namespace hetplan {

struct DeviceStyle {
    QString family; // "Volta", "Ampere", "AMD Instinct", ...
    QColor color;   // strong colour (header band, GPU squares)
    QColor fill;    // light tint for the box body
    QColor onColor; // text colour readable on `color`
};

// Looks the type up in the built-in catalog for its vendor; unknown types get a neutral grey.
DeviceStyle deviceStyle(const std::string& deviceType);

// Node box geometry (scene units = pixels at 100 % zoom). The height grows with the GPU rows.
namespace nodebox {
constexpr double width = 184;
constexpr double header = 24;
constexpr double pad = 10;
constexpr int gpusPerRow = 16;
constexpr double gpuSlot = (width - 2 * pad) / gpusPerRow; // one square plus its gap
constexpr double textLines = 34;                           // two text lines under the squares
int gpuRows(int gpus);
double height(int gpus);
} // namespace nodebox

} // namespace hetplan

namespace hetplan {
// Short labels for the canvas and the panel ("100 Gbps", "21.25 GB/s", "20 µs"). The cards and the
// Properties panel write numbers alike (trimmedNumber, two decimals). Networks (NICs, links) in Gbps as NICs
// are sold and cluster files are written; inside a node in GB/s as NVLink and PCIe are quoted.
QString formatGbps(double bytesPerSecond);
QString formatGBps(double bytesPerSecond);
QString formatMicroseconds(double seconds);
} // namespace hetplan
