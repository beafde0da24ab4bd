#include "cli.h"

#include <QCoreApplication>
#include <csignal>
#include <iostream>

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv); // Qt resources, JSON and SQLite need an application object
    // A reader that goes away (a FIFO given as --out, `| head`) is an error the writer reports, not a
    // signal that kills the process without a message.
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    return hetplan::cli::run(args, std::cout, std::cerr);
}
