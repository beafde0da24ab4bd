#pragma once
// The CLI's standard output passes through here: every line is written with escapeControlsKeepLayout, so
// no name from an input file (a cluster, node or model name holding an escape sequence) reaches the
// terminal as a control code, in tables and in exports written to stdout alike. Exports that are meant to
// go to stdout (JSON, scripts, CSV) hold no control characters of their own.
#include <ostream>
#include <streambuf>
#include <string>

namespace hetplan::cli {

class TerminalTextBuf : public std::streambuf {
public:
    explicit TerminalTextBuf(std::ostream& target) : target_(target) {}
    ~TerminalTextBuf() override { flushLine(); }

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override; // writes complete lines only: a multi-byte character is never cut in two

private:
    void flushLine();
    std::ostream& target_;
    std::string line_;
};

// An ostream over TerminalTextBuf; the rest of an unfinished line is written when it is destroyed.
class TerminalText : public std::ostream {
public:
    explicit TerminalText(std::ostream& target) : std::ostream(nullptr), buf_(target) { rdbuf(&buf_); }

private:
    TerminalTextBuf buf_;
};

} // namespace hetplan::cli
