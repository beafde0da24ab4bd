// The desktop app (filled in by the desktop-app issue). For now: a window that says so.
#include <QApplication>
#include <QLabel>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QLabel label(QStringLiteral("hetplan — the desktop app is under construction; use hetplan-cli."));
    label.setMargin(24);
    label.show();
    return app.exec();
}
