#include "blobbatchupload.h"

#include "apirequest.h"

#include <QDir>
#include <QFile>
#include <QtConcurrent>

namespace ddl {

QList<QList<ManifestFile>> BlobBatchUpload::plan(const QList<ManifestFile> &files)
{
    QList<QList<ManifestFile>> batches;
    qint64 bytes = 0;
    for (const ManifestFile &file : files) {
        if (batches.isEmpty() || bytes + file.size > BatchBytes
            || batches.last().size() == BatchFiles) {
            batches.append(QList<ManifestFile>());
            bytes = 0;
        }
        batches.last().append(file);
        bytes += file.size;
    }
    return batches;
}

BlobBatchUpload::BlobBatchUpload(ApiClient *client, const QString &folder,
                                 const QList<ManifestFile> &files, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_folder(folder)
    , m_files(files)
{}

BlobBatchUpload::~BlobBatchUpload()
{
    if (m_request) {
        m_request->disconnect(this);
        m_request->abort();
        m_request->deleteLater();
    }
}

// The body: for each file the line "<sha256> <size>\n", then its bytes.
static Result<QByteArray> readBatch(const QString &folder, const QList<ManifestFile> &files)
{
    QByteArray body;
    qint64 bytes = 0;
    for (const ManifestFile &file : files)
        bytes += file.size + 80;
    body.reserve(bytes);
    for (const ManifestFile &file : files) {
        QFile in(QDir(folder).filePath(file.path));
        if (!in.open(QIODevice::ReadOnly)) {
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("cannot read %1: %2").arg(file.path, in.errorString()));
        }
        const QByteArray content = in.read(file.size + 1);
        if (content.size() != file.size) {
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("%1 changed while it was being uploaded (%2 bytes, "
                                              "%3 when it was hashed); upload the folder again")
                                   .arg(file.path)
                                   .arg(content.size())
                                   .arg(file.size));
        }
        body += file.sha256.toLatin1() + ' ' + QByteArray::number(file.size) + '\n' + content;
    }
    return body;
}

void BlobBatchUpload::start()
{
    connect(&m_read, &QFutureWatcher<Result<QByteArray>>::finished, this, &BlobBatchUpload::send);
    m_read.setFuture(QtConcurrent::run(readBatch, m_folder, m_files));
}

void BlobBatchUpload::send()
{
    Result<QByteArray> body = m_read.result();
    if (!body)
        return finish(body.error());
    if (!m_client) {
        return finish(Error::make(ErrorCode::Aborted,
                                  QStringLiteral("the connection to the server was closed")));
    }
    m_request = m_client->storeBlobs(*body);
    connect(m_request, &ApiRequest::finished, this, [this] {
        ApiRequest *request = m_request;
        m_request = nullptr;
        request->deleteLater();
        finish(request->result() ? Status(Ok{}) : Status(request->result().error()));
    });
}

void BlobBatchUpload::finish(const Status &status)
{
    if (isFinished())
        return;
    m_result = status;
    emit finished();
}

} // namespace ddl
