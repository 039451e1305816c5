#include "submitwizard.h"

#include "api/apiclient.h"
#include "wizard/datasetpage.h"
#include "wizard/gitpage.h"
#include "wizard/projectpage.h"
#include "wizard/resourcespage.h"
#include "wizard/reviewpage.h"
#include "wizard/submitpage.h"

#include <QEvent>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

SubmitWizard::SubmitWizard(ApiClient *client, const JobSpec &spec, QWidget *parent)
    : QWizard(parent)
    , m_client(client)
    , m_spec(spec)
    , m_startSpec(spec)
{
    setWindowTitle(tr("Submit a job"));
    setOption(QWizard::NoBackButtonOnLastPage);
    setOption(QWizard::NoCancelButtonOnLastPage);
    setPage(ProjectPage, new class ProjectPage(spec.kind == JobSpec::Kind::Ddl, this));
    setPage(GitPage, new class GitPage(this));
    setPage(DatasetPage, new class DatasetPage(this));
    setPage(ResourcesPage, new class ResourcesPage(this));
    setPage(ReviewPage, new class ReviewPage(this));
    setPage(SubmitPage, new SubmitPageWidget(this));
    resize(720, 560);
}

void SubmitWizard::changeEvent(QEvent *event)
{
    QWizard::changeEvent(event);
    // The pages retranslate themselves; it may be uploading, so it is not rebuilt.
    if (event->type() == QEvent::LanguageChange)
        setWindowTitle(tr("Submit a job"));
}

ApiClient *SubmitWizard::client() const
{
    return m_client;
}

void SubmitWizard::applyProjectConfig(const JobSpec &spec, const QString &datasetFolder)
{
    m_spec = spec;
    m_projectDatasetFolder = datasetFolder;
    ++m_specGeneration;
}

void SubmitWizard::clearProjectConfig()
{
    applyProjectConfig(m_startSpec, QString());
}

JobSpec SubmitWizard::finalSpec() const
{
    JobSpec spec = m_spec;
    spec.kind = JobSpec::Kind(field(u"kind"_s).toInt());
    spec.jobName = field(u"jobName"_s).toString().trimmed();
    spec.retryCount = field(u"retries"_s).toInt();
    if (spec.taskRoles.isEmpty()) {
        TaskRole role;
        role.name = u"worker"_s;
        spec.taskRoles.append(role);
    }
    TaskRole &role = spec.taskRoles.first();
    role.taskNumber = field(u"workers"_s).toInt();
    role.gpuNumber = field(u"gpus"_s).toInt();
    role.cpuNumber = field(u"cpus"_s).toInt();
    role.memoryMB = field(u"memory"_s).toInt();
    // A DDL job runs main.py's main(); a command is what an OpenPAI job runs.
    role.command = spec.kind == JobSpec::Kind::Ddl ? QString()
                                                   : field(u"command"_s).toString().trimmed();
    return spec;
}

void SubmitWizard::setSubmitted(const QString &uuid)
{
    m_uuid = uuid;
    emit jobSubmitted(uuid);
}

} // namespace ddl::desktop
