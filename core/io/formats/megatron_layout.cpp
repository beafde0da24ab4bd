// Megatron-LM's pipeline layout syntax, written and read back (see exporters.h).
#include "core/io/exporters.h"

#include "core/base/errors.h"

#include <cctype>

namespace hetplan {

std::string formatMegatronLayout(const std::vector<int>& perStage)
{
    std::string out;
    for (size_t s = 0; s < perStage.size(); ++s) {
        if (s > 0)
            out += '|';
        if (s == 0)
            out += 'E';
        if (perStage[s] == 1)
            out += 't';
        else if (perStage[s] > 1)
            out += "t*" + std::to_string(perStage[s]);
        if (s + 1 == perStage.size())
            out += 'L';
    }
    return out;
}

namespace {

// Megatron's layout syntax, unrolled in three passes: "(group)*N", then "x*N", then stages.
class LayoutParser {
public:
    explicit LayoutParser(const std::string& layout) : layout_(layout) {}

    std::vector<int> parse() const
    {
        std::string s;
        for (char c : layout_)
            if (c != ',' && c != ' ')
                s += c;
        return stages(unrollRepeats(unrollGroups(s)));
    }

private:
    static constexpr size_t kMaxExpanded = 1 << 20;

    [[noreturn]] void fail(const std::string& reason) const
    {
        throw InputError("megatron-layout", "layout", reason + " in \"" + layout_ + "\"");
    }

    int readCount(const std::string& s, size_t& i) const
    {
        size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
            ++j;
        if (j == i || j - i > 6)
            fail("expected a repeat count after '*'");
        const int n = std::stoi(s.substr(i, j - i));
        i = j;
        return n;
    }

    // Groups do not nest, as in Megatron's parser.
    std::string unrollGroups(const std::string& s) const
    {
        std::string g;
        for (size_t i = 0; i < s.size();) {
            if (s[i] == ')')
                fail("unbalanced ')'");
            if (s[i] != '(') {
                g += s[i++];
                continue;
            }
            const size_t close = s.find(')', i + 1);
            if (close == std::string::npos)
                fail("unbalanced '('");
            const std::string body = s.substr(i + 1, close - i - 1);
            if (body.empty() || body.find('(') != std::string::npos)
                fail("empty or nested group");
            if (close + 1 >= s.size() || s[close + 1] != '*')
                fail("a group must be followed by '*N'");
            i = close + 2;
            const int n = readCount(s, i);
            if (body.size() * size_t(n) + g.size() > kMaxExpanded)
                fail("layout too long");
            for (int r = 0; r < n; ++r)
                g += body;
        }
        return g;
    }

    std::string unrollRepeats(const std::string& g) const
    {
        std::string flat;
        for (size_t i = 0; i < g.size();) {
            const char c = g[i++];
            if (c == '*')
                fail("'*' without a layer character");
            if (i >= g.size() || g[i] != '*') {
                flat += c;
                continue;
            }
            if (c == '|')
                fail("'|' cannot be repeated outside a group");
            ++i;
            const int n = readCount(g, i);
            if (flat.size() + size_t(n) > kMaxExpanded)
                fail("layout too long");
            flat.append(size_t(n), c);
        }
        return flat;
    }

    std::vector<int> stages(const std::string& flat) const
    {
        std::vector<int> perStage(1, 0);
        int embeddings = 0, losses = 0;
        for (size_t i = 0; i < flat.size(); ++i) {
            const char c = flat[i];
            switch (c) {
            case '|': perStage.push_back(0); break;
            case 't': ++perStage.back(); break;
            case 'm': break;
            case 'E':
                if (i != 0)
                    fail("the embedding 'E' must open the first stage");
                ++embeddings;
                break;
            case 'L':
                if (i + 1 != flat.size())
                    fail("the loss 'L' must close the last stage");
                ++losses;
                break;
            default: fail(std::string("unknown layer character '") + c + "' (known: E, L, t, m)");
            }
        }
        if (embeddings != 1)
            fail("the layout needs one embedding 'E' at the start");
        if (losses != 1)
            fail("the layout needs one loss 'L' at the end");
        return perStage;
    }

    const std::string& layout_;
};

} // namespace

std::vector<int> parseMegatronLayout(const std::string& layout) { return LayoutParser(layout).parse(); }

} // namespace hetplan
