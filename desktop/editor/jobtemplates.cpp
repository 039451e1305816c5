#include "jobtemplates.h"

#include "app/desktopresources.h"

#include <QFile>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

QList<JobTemplate> JobTemplates::all()
{
    initDesktopResources();
    return {{u"hello-world"_s, tr("Hello world (a shell command)"),
             u":/templates/hello-world.json"_s},
            {u"ddl-training"_s, tr("DDL training (main.py of your repository)"),
             u":/templates/ddl-training.json"_s},
            {u"ps-worker"_s, tr("Parameter server and workers"),
             u":/templates/ps-worker.json"_s}};
}

QString JobTemplates::text(const QString &id)
{
    for (const JobTemplate &entry : all()) {
        if (entry.id != id)
            continue;
        // A compiled-in resource: memory, not disk.
        QFile file(entry.resource);
        if (file.open(QIODevice::ReadOnly))
            return QString::fromUtf8(file.readAll());
    }
    return {};
}

} // namespace ddl::desktop
