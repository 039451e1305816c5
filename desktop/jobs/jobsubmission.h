#pragma once

#include "jobspec/jobspec.h"
#include "packaging/packagebuilder.h"

#include <QObject>
#include <QPointer>
#include <QTemporaryDir>
#include <memory>
#include <optional>

namespace ddl {
class ApiClient;
class BlobUpload;
class DatasetUpload;
}

namespace ddl::desktop {

// What the person chose to submit.
struct SubmissionRequest
{
    JobSpec spec;
    QString repositoryFolder; // empty: no code package (OpenPAI jobs only)
    QString datasetFolder;    // empty: no dataset
    QString datasetName;      // a dataset already on the server (instead of a folder)
    int priority = 0;
};

// Submits one job: package the code at HEAD (off the GUI thread) and upload it through the
// resumable protocol (a blob the server has is skipped, an interrupted one resumes); send the
// dataset folder as a manifest of its files (DatasetUpload: only the files the server lacks
// travel); then submit the job naming the package and the manifest. Cancel stops the upload where
// it is; a new submission of the same files resumes it (resumed() says by how much).
class JobSubmission : public QObject
{
    Q_OBJECT
public:
    enum class Stage { Idle, Packaging, UploadingCode, ReadingDataset, UploadingDataset,
                       Submitting, Done, Failed, Cancelled };
    Q_ENUM(Stage)

    JobSubmission(ApiClient *client, SubmissionRequest request, QObject *parent = nullptr);
    ~JobSubmission() override;

    void start();
    void cancel();
    Stage stage() const { return m_stage; }
    QString jobUuid() const { return m_uuid; }
    QString errorMessage() const { return m_error; }
    // Bytes the server already had from an earlier, cancelled submission of the same files.
    qint64 resumedBytes() const { return m_resumedBytes; }

signals:
    void stageChanged(ddl::desktop::JobSubmission::Stage stage);
    // Bytes of the current step: read while ReadingDataset, else uploaded (counting what an
    // earlier try had sent already).
    void progress(qint64 done, qint64 total);
    // An upload continues where an earlier try stopped; bytes: all such bytes so far.
    void resumed(qint64 bytes);
    void submitted(const QString &uuid);
    void failed(const QString &message);

private:
    struct Packed
    {
        std::optional<PackageInfo> package;
        Error error;
    };
    void setStage(Stage stage);
    void handlePacked(const Packed &packed);
    void upload(const QString &path, const QString &sha256, Stage stage,
                std::function<void()> next);
    void uploadDataset();
    void post();
    void fail(const QString &message);

    QPointer<ApiClient> m_client;
    SubmissionRequest m_request;
    Stage m_stage = Stage::Idle;
    std::unique_ptr<QTemporaryDir> m_scratch;
    Packed m_packed;
    QPointer<BlobUpload> m_upload;
    QPointer<DatasetUpload> m_datasetUpload;
    QString m_manifestSha256;
    QString m_uuid;
    QString m_error;
    qint64 m_resumedBytes = 0;
};

} // namespace ddl::desktop
