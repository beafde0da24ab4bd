// hetplan-render-icon SVG SIZE OUT.png: renders the application icon at SIZE x SIZE pixels for the hicolor
// theme. A build-time tool: Qt Svg is already a dependency, so packaging needs no SVG rasteriser, and the
// icon has no text, so painting into a QImage needs no QGuiApplication (no platform plugin at build time).
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: hetplan-render-icon SVG SIZE OUT.png\n");
        return 2;
    }
    QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
    const int size = QString::fromLocal8Bit(argv[2]).toInt();
    if (!svg.isValid() || size <= 0) {
        std::fprintf(stderr, "error: hetplan-render-icon: cannot render %s at size %s\n", argv[1], argv[2]);
        return 2;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter);
    painter.end();
    if (!image.save(QString::fromLocal8Bit(argv[3]), "PNG")) {
        std::fprintf(stderr, "error: hetplan-render-icon: cannot write %s\n", argv[3]);
        return 1;
    }
    return 0;
}
