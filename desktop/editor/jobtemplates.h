#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace ddl::desktop {

// The job templates offered in the editor, from the application's resources.
struct JobTemplate
{
    QString id;   // "hello-world"
    QString title;
    QString resource; // ":/templates/hello-world.json"
};

class JobTemplates
{
    Q_DECLARE_TR_FUNCTIONS(JobTemplates)
public:
    static QList<JobTemplate> all();
    // The template's JSON text; empty for an unknown id.
    static QString text(const QString &id);
};

} // namespace ddl::desktop
