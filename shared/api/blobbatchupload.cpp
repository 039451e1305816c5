#include "blobbatchupload.h"

#include "dataconnection.h"
#include "datatransferpool.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtConcurrent>

namespace ddl {

QList<QList<ManifestFile>> BlobBatchUpload::plan(const QList<ManifestFile> &files)
{
    QList<QList<ManifestFile>> batches;
    qint64 bytes = 0;
    for (const ManifestFile &file : files) {
        if (batches.isEmpty() || bytes + file.size > BatchBytes ||
            batches.last().size() == BatchFiles) {
            batches.append(QList<ManifestFile>());
            bytes = 0;
        }
        batches.last().append(file);
        bytes += file.size;
    }
    return batches;
}

QByteArray BatchBufferPool::take()
{
    QMutexLocker lock(&m_mutex);
    return m_free.isEmpty() ? QByteArray() : m_free.takeLast();
}

void BatchBufferPool::give(QByteArray buffer)
{
    buffer.resize(0); // keeps its capacity
    QMutexLocker lock(&m_mutex);
    if (m_free.size() < MaxKept)
        m_free.append(std::move(buffer));
}

BlobBatchUpload::BlobBatchUpload(ApiClient *client,
                                 const QString &folder,
                                 const QList<ManifestFile> &files,
                                 std::shared_ptr<BatchBufferPool> buffers,
                                 QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_folder(folder)
    , m_files(files)
    , m_buffers(buffers ? std::move(buffers) : std::make_shared<BatchBufferPool>())
{
}

BlobBatchUpload::~BlobBatchUpload()
{
    // The sending thread stops at once (its socket is shut down).
    if (m_control)
        m_control->abort();
}

// The body: for each file the line "<sha256> <size>\n", then its bytes. Each file is read
// straight into the body (one copy, from the page cache), one byte more than its size so that a
// file that grew since it was hashed is noticed.
static Status readBatch(const QString &folder, const QList<ManifestFile> &files, QByteArray &body)
{
    qint64 bytes = 0;
    for (const ManifestFile &file : files)
        bytes += file.size + 80;
    body.reserve(bytes + 1);
    const QDir base(folder);
    for (const ManifestFile &file : files) {
        QFile in(base.filePath(file.path));
        if (!in.open(QIODevice::ReadOnly)) {
            return Error::make(
                ErrorCode::IoError,
                QStringLiteral("cannot read %1: %2").arg(file.path, in.errorString()));
        }
        body.append(file.sha256.toLatin1())
            .append(' ')
            .append(QByteArray::number(file.size))
            .append('\n');
        const qsizetype at = body.size();
        body.resize(at + file.size + 1); // within the reserve: no reallocation
        qint64 read = 0;
        while (read <= file.size) {
            const qint64 n = in.read(body.data() + at + read, file.size + 1 - read);
            if (n < 0) {
                return Error::make(
                    ErrorCode::IoError,
                    QStringLiteral("cannot read %1: %2").arg(file.path, in.errorString()));
            }
            if (n == 0)
                break;
            read += n;
        }
        if (read != file.size) {
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("%1 changed while it was being uploaded (%2 bytes, "
                                              "%3 when it was hashed); upload the folder again")
                                   .arg(file.path)
                                   .arg(read)
                                   .arg(file.size));
        }
        body.resize(at + file.size);
    }
    return Ok{};
}

void BlobBatchUpload::start()
{
    if (!m_client) {
        return finish(Error::make(ErrorCode::Aborted,
                                  QStringLiteral("the connection to the server was closed")));
    }
    m_control = std::make_shared<DataTransferControl>();
    std::shared_ptr<DataTransferControl> control = m_control;
    std::shared_ptr<DataConnectionPool> pool = m_client->dataConnections();
    const QByteArray head =
        m_client->dataRequestHead("POST",
                                  QStringLiteral("/v1/blobs/batch"),
                                  {},
                                  {{"Content-Type", "application/octet-stream"}});
    connect(&m_sent, &QFutureWatcher<Status>::finished, this, &BlobBatchUpload::handleSent);
    m_sent.setFuture(QtConcurrent::run(
        dataTransferThreads(),
        [control, pool, head, folder = m_folder, files = m_files, buffers = m_buffers]() -> Status {
            QByteArray body = buffers->take();
            const Status read = readBatch(folder, files, body);
            Result<DataAnswer> answer =
                read ? pool->request(*control, head, -1, 0, body.size(), {}, {}, {}, {}, body)
                     : Result<DataAnswer>(read.error());
            buffers->give(std::move(body));
            if (!answer)
                return answer.error();
            if (answer->status >= 200 && answer->status < 300)
                return Ok{};
            Error error = Error::fromJson(QJsonDocument::fromJson(answer->body).object());
            if (error.code.isEmpty()) {
                error = Error::httpStatus(answer->status,
                                          QStringLiteral("the server answered HTTP %1 for a batch "
                                                         "of %2 files")
                                              .arg(answer->status)
                                              .arg(files.size()));
            }
            return error;
        }));
}

void BlobBatchUpload::handleSent()
{
    const Status sent = m_sent.result();
    if (!sent && sent.error().is(ErrorCode::Unauthorized) && m_client)
        m_client->reportRefusedToken();
    finish(sent);
}

void BlobBatchUpload::finish(const Status &status)
{
    if (isFinished())
        return;
    m_result = status;
    emit finished();
}

} // namespace ddl
