#include "bench.h"

#include <QCoreApplication>

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    benchAnalytic();
    benchSimulator();
    benchAmp();
    return 0;
}
