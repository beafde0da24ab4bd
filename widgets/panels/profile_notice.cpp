#include "profile_notice.h"

#include "core/base/errors.h"
#include "core/cost/costmodel.h"

#include <QStringList>

namespace hetplan {

ProfileNotice profileNotice(const Job& job, const Profile& profile)
{
    ProfileNotice n;
    try {
        QStringList lines;
        for (const std::string& w : profileWarnings(job, profile))
            lines << QString::fromStdString(w);
        n.text = lines.join('\n');
    } catch (const InputError& e) {
        n.text = QString::fromStdString(e.reason());
        n.refused = true;
    }
    return n;
}

} // namespace hetplan
