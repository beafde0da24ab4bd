#include "cli.h"

#include <QCoreApplication>
#include <iostream>

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv); // Qt resources, JSON and SQLite need an application object
    std::vector<std::string> args(argv + 1, argv + argc);
    return hetplan::cli::run(args, std::cout, std::cerr);
}
