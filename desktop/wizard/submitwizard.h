#pragma once

#include "jobspec/jobspec.h"

#include <QPointer>
#include <QWizard>

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

// Submits a job step by step: project folder → git check and package preview → dataset →
// resources → review of the final JSON → submit with progress (cancel-able; uploads resume).
class SubmitWizard : public QWizard
{
    Q_OBJECT
public:
    enum PageId { ProjectPage, GitPage, DatasetPage, ResourcesPage, ReviewPage, SubmitPage };

    // spec: the job to start from (the editor's, or a template); its kind decides whether a
    // repository is needed.
    SubmitWizard(ApiClient *client, const JobSpec &spec, QWidget *parent = nullptr);

    ApiClient *client() const;
    JobSpec &spec() { return m_spec; }
    // The project's task.yaml, read as ddlcli reads it: its job replaces the one the wizard
    // started from, and its dataset_location is the dataset folder offered.
    void applyProjectConfig(const JobSpec &spec, const QString &datasetFolder);
    // A project without one: back to the job the wizard started from.
    void clearProjectConfig();
    QString projectDatasetFolder() const { return m_projectDatasetFolder; }
    // Changes each time the job to start from changes (a task.yaml read): pages that showed
    // the old one show the new one.
    int specGeneration() const { return m_specGeneration; }
    // The spec as the review shows it: the base spec with the resources page applied.
    JobSpec finalSpec() const;
    QString submittedUuid() const { return m_uuid; }

signals:
    void jobSubmitted(const QString &uuid);

protected:
    void changeEvent(QEvent *event) override;

private:
    friend class SubmitPageWidget;
    void setSubmitted(const QString &uuid);

    QPointer<ApiClient> m_client;
    JobSpec m_spec;
    const JobSpec m_startSpec;
    QString m_projectDatasetFolder;
    int m_specGeneration = 0;
    QString m_uuid;
};

} // namespace ddl::desktop
