#include "terminal_text.h"

#include "core/base/quote.h"

namespace hetplan::cli {

TerminalTextBuf::int_type TerminalTextBuf::overflow(int_type c)
{
    if (traits_type::eq_int_type(c, traits_type::eof()))
        return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
}

std::streamsize TerminalTextBuf::xsputn(const char* s, std::streamsize n)
{
    // Look for a line end in the new text only: searching all of line_ made one long line quadratic.
    const size_t newline = std::string_view(s, size_t(n)).rfind('\n');
    line_.append(s, size_t(n));
    if (newline != std::string_view::npos) {
        const size_t end = line_.size() - size_t(n) + newline;
        target_ << escapeControlsKeepLayout(std::string_view(line_).substr(0, end + 1));
        line_.erase(0, end + 1);
    }
    return n;
}

int TerminalTextBuf::sync()
{
    target_.flush();
    return target_ ? 0 : -1;
}

void TerminalTextBuf::flushLine()
{
    if (!line_.empty())
        target_ << escapeControls(line_);
    line_.clear();
    target_.flush();
}

} // namespace hetplan::cli
