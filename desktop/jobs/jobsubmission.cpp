#include "jobsubmission.h"

#include "api/apiclient.h"
#include "api/blobupload.h"
#include "api/datasetupload.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "wire/jobmessage.h"

#include <QFutureWatcher>
#include <QJsonObject>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

JobSubmission::JobSubmission(ApiClient *client, SubmissionRequest request, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_request(std::move(request))
{}

JobSubmission::~JobSubmission() = default;

void JobSubmission::setStage(Stage stage)
{
    m_stage = stage;
    emit stageChanged(stage);
}

void JobSubmission::fail(const QString &message)
{
    if (m_stage == Stage::Cancelled || m_stage == Stage::Failed)
        return;
    m_error = message;
    setStage(Stage::Failed);
    emit failed(message);
}

void JobSubmission::cancel()
{
    // Once the job is being posted it may exist on the server: too late to take it back here.
    if (m_stage == Stage::Done || m_stage == Stage::Failed || m_stage == Stage::Cancelled
        || m_stage == Stage::Submitting)
        return;
    // Cancelled first, so that the uploads ending now do not count as failures.
    setStage(Stage::Cancelled);
    // The upload stops where it is; the server keeps the unfinished blob for a later resume.
    if (m_upload)
        m_upload->deleteLater();
    if (m_datasetUpload)
        m_datasetUpload->cancel();
}

void JobSubmission::start()
{
    if (!m_client) {
        fail(tr("Not connected to a server."));
        return;
    }
    m_scratch = std::make_unique<QTemporaryDir>();
    if (!m_scratch->isValid()) {
        fail(tr("Cannot create a temporary folder: %1").arg(m_scratch->errorString()));
        return;
    }
    setStage(Stage::Packaging);
    auto *watcher = new QFutureWatcher<Packed>(this);
    connect(watcher, &QFutureWatcher<Packed>::finished, this, [this, watcher] {
        watcher->deleteLater();
        handlePacked(watcher->result());
    });
    // Packaging reads the whole repository and dataset: never on the GUI thread.
    watcher->setFuture(QtConcurrent::run([request = m_request, dir = m_scratch->path()] {
        Packed packed;
        if (!request.repositoryFolder.isEmpty()) {
            Result<PackageInfo> package =
                PackageBuilder(request.repositoryFolder).build(dir + u"/package.tar.zst"_s);
            if (!package) {
                packed.error = package.error();
                return packed;
            }
            packed.package = *package;
        }
        return packed;
    }));
}

void JobSubmission::handlePacked(const Packed &packed)
{
    if (m_stage == Stage::Cancelled)
        return;
    if (!packed.error.code.isEmpty()) {
        fail(packed.error.is(ErrorCode::DirtyTree)
                 ? tr("The repository has changes that are not committed. Commit them (or "
                      "stash them), then submit again.\n%1")
                       .arg(packed.error.message)
                 : ErrorText::describe(packed.error));
        return;
    }
    m_packed = packed;
    if (m_packed.package)
        upload(m_packed.package->archivePath, m_packed.package->sha256, Stage::UploadingCode,
               [this] { uploadDataset(); });
    else
        uploadDataset();
}

void JobSubmission::uploadDataset()
{
    if (m_stage == Stage::Cancelled || !m_client)
        return;
    if (m_request.datasetFolder.isEmpty() || !m_request.datasetName.isEmpty()) {
        post();
        return;
    }
    setStage(Stage::ReadingDataset);
    auto *dataset = new DatasetUpload(m_client, m_request.datasetFolder, this);
    m_datasetUpload = dataset;
    connect(dataset, &DatasetUpload::hashing, this, &JobSubmission::progress);
    connect(dataset, &DatasetUpload::planned, this, [this] {
        if (m_stage == Stage::ReadingDataset)
            setStage(Stage::UploadingDataset);
    });
    connect(dataset, &DatasetUpload::fileResumed, this, [this](const QString &, qint64 bytes) {
        m_resumedBytes += bytes;
        emit resumed(m_resumedBytes);
    });
    connect(dataset, &DatasetUpload::progress, this, [this](const TransferProgress &sent) {
        emit progress(sent.done, sent.total);
    });
    connect(dataset, &DatasetUpload::finished, this, [this, dataset] {
        dataset->deleteLater();
        if (m_stage == Stage::Cancelled)
            return;
        if (!dataset->result()) {
            fail(ErrorText::describe(dataset->result().error()));
            return;
        }
        m_manifestSha256 = *dataset->result();
        post();
    });
    dataset->start();
}

void JobSubmission::upload(const QString &path, const QString &sha256, Stage stage,
                           std::function<void()> next)
{
    if (m_stage == Stage::Cancelled || !m_client)
        return;
    setStage(stage);
    auto *blob = new BlobUpload(m_client, path, sha256, this);
    m_upload = blob;
    connect(blob, &BlobUpload::progress, this,
            [this, blob, first = true](const TransferProgress &progress) mutable {
                if (first && blob->skippedBytes() > 0) {
                    m_resumedBytes += blob->skippedBytes();
                    emit resumed(m_resumedBytes);
                }
                first = false;
                emit this->progress(progress.done, progress.total);
            });
    connect(blob, &BlobUpload::finished, this, [this, blob, next = std::move(next)] {
        blob->deleteLater();
        if (m_stage == Stage::Cancelled)
            return;
        if (!blob->result()) {
            fail(ErrorText::describe(blob->result().error()));
            return;
        }
        next();
    });
    blob->start();
}

void JobSubmission::post()
{
    if (m_stage == Stage::Cancelled || !m_client)
        return;
    setStage(Stage::Submitting);
    JobSubmit job;
    job.spec = m_request.spec.toJson();
    if (m_request.priority != 0)
        job.priority = m_request.priority;
    if (m_packed.package) {
        job.packageSha256 = m_packed.package->sha256;
        job.packageCommit = m_packed.package->commitId;
    }
    job.datasetName = m_request.datasetName;
    job.datasetManifest = m_manifestSha256;
    whenFinished(m_client->submitJob(job),
                 this,
                 [this](const Result<ApiResponse> &result) {
                     if (m_stage == Stage::Cancelled)
                         return;
                     if (!result) {
                         const Error &error = result.error();
                         fail(error.is(ErrorCode::InvalidSpec)
                                  ? tr("The server refused the job:\n%1").arg(error.message)
                                  : ErrorText::describe(error));
                         return;
                     }
                     const Result<JobMessage> job = JobMessage::fromJson(result->json());
                     if (!job) {
                         fail(ErrorText::describe(job.error()));
                         return;
                     }
                     m_uuid = job->uuid;
                     setStage(Stage::Done);
                     emit submitted(m_uuid);
                 });
}

} // namespace ddl::desktop
