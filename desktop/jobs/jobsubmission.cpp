#include "jobsubmission.h"

#include "api/apiclient.h"
#include "api/blobupload.h"
#include "core/errortext.h"
#include "core/requestcallback.h"

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
    if (m_stage == Stage::Done || m_stage == Stage::Failed)
        return;
    // The upload stops where it is; the server keeps the unfinished blob for a later resume.
    if (m_upload)
        m_upload->deleteLater();
    setStage(Stage::Cancelled);
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
        if (!request.datasetFolder.isEmpty() && request.datasetName.isEmpty()) {
            Result<ArchiveInfo> dataset =
                DirectoryArchiver().archive(request.datasetFolder, dir + u"/dataset.tar.zst"_s);
            if (!dataset) {
                packed.error = dataset.error();
                return packed;
            }
            packed.dataset = *dataset;
        }
        return packed;
    }));
}

void JobSubmission::handlePacked(const Packed &packed)
{
    if (m_stage == Stage::Cancelled)
        return;
    if (!packed.error.code.isEmpty()) {
        fail(packed.error.code == u"dirty_tree"_s
                 ? tr("The repository has changes that are not committed. Commit them (or "
                      "stash them), then submit again.\n%1").arg(packed.error.message)
                 : ErrorText::describe(packed.error));
        return;
    }
    m_packed = packed;
    auto uploadDataset = [this] {
        if (m_packed.dataset)
            upload(m_packed.dataset->archivePath, m_packed.dataset->sha256,
                   Stage::UploadingDataset, [this] { post(); });
        else
            post();
    };
    if (m_packed.package)
        upload(m_packed.package->archivePath, m_packed.package->sha256, Stage::UploadingCode,
               uploadDataset);
    else
        uploadDataset();
}

void JobSubmission::upload(const QString &path, const QString &sha256, Stage stage,
                           std::function<void()> next)
{
    if (m_stage == Stage::Cancelled || !m_client)
        return;
    setStage(stage);
    auto *blob = new BlobUpload(m_client, path, sha256, this);
    m_upload = blob;
    connect(blob, &BlobUpload::progress, this, [this](const TransferProgress &progress) {
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
    QJsonObject body{{"spec"_L1, m_request.spec.toJson()}};
    if (m_request.priority != 0)
        body.insert("priority"_L1, m_request.priority);
    body.insert("package"_L1,
                m_packed.package
                    ? QJsonValue(QJsonObject{{"sha256"_L1, m_packed.package->sha256},
                                             {"commit"_L1, m_packed.package->commitId}})
                    : QJsonValue(QJsonValue::Null));
    if (!m_request.datasetName.isEmpty())
        body.insert("dataset"_L1, QJsonObject{{"name"_L1, m_request.datasetName}});
    else
        body.insert("dataset"_L1,
                    m_packed.dataset
                        ? QJsonValue(QJsonObject{{"sha256"_L1, m_packed.dataset->sha256}})
                        : QJsonValue(QJsonValue::Null));
    whenFinished(m_client->postJson(u"/v1/jobs"_s, body), this,
                 [this](const Result<ApiResponse> &result) {
                     if (m_stage == Stage::Cancelled)
                         return;
                     if (!result) {
                         const Error &error = result.error();
                         fail(error.code == u"invalid_spec"_s
                                  ? tr("The server refused the job:\n%1").arg(error.message)
                                  : ErrorText::describe(error));
                         return;
                     }
                     m_uuid = result->json().value("uuid"_L1).toString();
                     setStage(Stage::Done);
                     emit submitted(m_uuid);
                 });
}

} // namespace ddl::desktop
