#include "palette.h"

#include <QPixmap>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <vector>

namespace hetplan::palette {

namespace {
int wrap(int i, int n)
{
    const int r = i % n;
    return r < 0 ? r + n : r;
}

QColor mix(const QColor& a, const QColor& b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t), float(a.alphaF()));
}
} // namespace

QColor okabeIto(int i)
{
    static const std::array<QRgb, 8> c = {0xE69F00, 0x56B4E9, 0x009E73, 0xF0E442,
                                          0x0072B2, 0xD55E00, 0xCC79A7, 0x999999};
    return QColor(c[wrap(i, int(c.size()))]);
}

QColor tableau10(int i)
{
    static const std::array<QRgb, 10> c = {0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F,
                                           0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC};
    return QColor(c[wrap(i, int(c.size()))]);
}

QColor stageColor(int stage)
{
    // Past the eighth stage the colours come again darker, then lighter, so stages 0 and 8 differ.
    const int round = wrap(stage, 24) / 8;
    const QColor base = okabeIto(stage);
    return round == 0 ? base : round == 1 ? shade(base, 0.4) : tint(base, 0.5);
}
QColor microBatchColor(int microBatch) { return tableau10(microBatch); }
QColor seriesColor(int series) { return tableau10(series); }

QColor plannerColor(const std::string& planner)
{
    // Planners compared side by side most often get Tableau 10's strong colours, in pairs that differ in
    // hue (amp blue beside megatron orange); the rarely compared baselines get six darker ones. A planner
    // not in the list (a newer build's, in a plan file) gets a stable colour from its name.
    static const std::map<std::string, QRgb> colours = {
        {"amp", 0x4E79A7},       {"megatron", 0xF28E2B},     {"uniform", 0xE15759},       {"hethub", 0x76B7B2},
        {"ditto", 0x59A14F},     {"hap", 0xEDC948},          {"poplar", 0xB07AA1},        {"oobleck", 0xFF9DA7},
        {"annealing", 0x9C755F}, {"exhaustive", 0xBAB0AC},   {"random", 0x4D4D4D},        {"data-parallel", 0x8C2D04},
        {"deepspeed-zero", 0x1B7837}, {"dp-even", 0x253494}, {"dp-proportional", 0xC51B7D}, {"whale", 0x7F7F00},
        {"metis", 0x17BECF}};
    if (const auto it = colours.find(planner); it != colours.end())
        return QColor(it->second);
    return tableau10(int(std::hash<std::string>{}(planner) % 10));
}

QIcon plannerIcon(const std::string& planner)
{
    QPixmap square(12, 12);
    square.fill(plannerColor(planner));
    return QIcon(square);
}

QColor tint(const QColor& c, double amount) { return mix(c, Qt::white, amount); }
QColor shade(const QColor& c, double amount) { return mix(c, Qt::black, amount); }

QColor textOn(const QColor& background)
{
    // Relative luminance (sRGB weights); light backgrounds get black text.
    const double l = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return l > 0.55 ? QColor(20, 20, 20) : QColor(Qt::white);
}

QColor unusedGpu() { return QColor(0xDD, 0xDD, 0xDD); }
QColor overCapacity() { return QColor(0xD5, 0x2B, 0x1E); }
QColor memoryOk() { return QColor(0x33, 0x33, 0x33); }
QColor communication() { return QColor(0x9A, 0x9A, 0x9A); }
QColor collective() { return QColor(0x5F, 0x5F, 0x5F); }
QColor optimizer() { return QColor(0x3B, 0x3B, 0x3B); }
QColor bandA() { return QColor(0xF4, 0xF6, 0xF9); }
QColor gridLine() { return QColor(0xD0, 0xD0, 0xD0); }
QColor placeholderText() { return QColor(0x80, 0x80, 0x80); }

Qt::BrushStyle communicationPattern() { return Qt::BDiagPattern; }
Qt::BrushStyle collectivePattern() { return Qt::DiagCrossPattern; }
Qt::BrushStyle recomputePattern() { return Qt::FDiagPattern; }
Qt::BrushStyle backwardPattern() { return Qt::BDiagPattern; }

} // namespace hetplan::palette
