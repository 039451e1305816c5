#include "uploadexchange.h"

#include "http/requestreader.h"

namespace ddl::server {

UploadExchange::UploadExchange(QSslSocket *socket, UploadService &uploads, QString owner,
                               QString uploadId, const RequestHead &head)
    : DataExchange(socket)
    , m_uploads(uploads)
    , m_owner(std::move(owner))
    , m_uploadId(std::move(uploadId))
    , m_head(head)
{}

DataExchange::Step UploadExchange::fail(const Error &error)
{
    const qint64 left = m_sink ? m_sink->remaining()
                               : (m_head.chunked ? -1 : std::max<qint64>(m_head.contentLength, 0));
    m_sink.reset();
    // A short refused body is read and dropped, so the connection goes on (closing on unread
    // bytes resets it, and the answer can be lost); a longer one is not read: the connection
    // closes after the answer.
    const bool drop = left >= 0 && left <= MaxDroppedBytes;
    write(HttpReply::error(error), m_head.keepAlive && drop);
    if (!drop)
        return Step::DoneClose;
    m_dropping = true;
    m_discard = left;
    return onReadable();
}

DataExchange::Step UploadExchange::start()
{
    if (m_head.chunked || m_head.contentLength < 0) {
        return fail(Error::make(ErrorCode::LengthRequired,
                                QStringLiteral("a chunk needs a Content-Length header (chunked "
                                               "transfer encoding is not taken)")));
    }
    Result<qint64> offset = RequestReader::parseInteger(
        m_head.query.queryItemValue(QStringLiteral("offset")), QStringLiteral("offset"), -1);
    if (!offset || *offset < 0) {
        return fail(Error::make(ErrorCode::BadRequest,
                                QStringLiteral("a chunk needs ?offset=N"),
                                QStringLiteral("offset")));
    }
    const QByteArray crc = m_head.header("ddl-chunk-crc32c");
    if (!crc.isEmpty()) {
        bool ok = false;
        const uint value = crc.toUInt(&ok, 16);
        if (!ok || crc.size() != 8) {
            return fail(Error::make(ErrorCode::BadRequest,
                                    QStringLiteral("DDL-Chunk-CRC32C must be 8 hex digits"),
                                    QStringLiteral("DDL-Chunk-CRC32C")));
        }
        m_expectedCrc = value;
    }
    m_offset = *offset;
    m_sha256 = QString::fromLatin1(m_head.header("ddl-sha256"));
    return begin();
}

DataExchange::Step UploadExchange::begin()
{
    Result<ChunkSink> sink =
        m_uploads.beginChunk(m_owner, m_uploadId, m_offset, m_head.contentLength, m_sha256);
    if (!sink && sink.error().is(ErrorCode::ChunkPending)) {
        // Pipelined: the chunk before this one is still arriving on another connection. This
        // body stays unread (TCP holds the client back) until that chunk ends.
        m_uploads.whenChunkEnds(m_uploadId, [this, alive = std::weak_ptr<bool>(m_alive)] {
            if (alive.lock())
                step(begin());
        });
        return Step::Continue;
    }
    if (!sink)
        return fail(sink.error());
    m_sink.emplace(std::move(*sink));
    if (m_expectedCrc)
        m_sink->checkCrc32c();
    if (m_head.expectContinue)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    return onReadable();
}

DataExchange::Step UploadExchange::onReadable()
{
    if (m_dropping) {
        m_discard -= std::max<qint64>(m_socket->skip(m_discard), 0);
        if (m_discard > 0)
            return Step::Continue;
        return m_head.keepAlive ? Step::Done : Step::DoneClose;
    }
    if (!m_sink)
        return Step::Continue; // waiting for the chunk before this one
    while (m_sink->remaining() > 0 && m_socket->bytesAvailable() > 0) {
        const qsizetype room = m_sink->room();
        if (room == 0) {
            // The disk thread is behind: leave the bytes in the socket (TCP holds the client)
            // until it has room again.
            m_sink->whenRoom([this, alive = std::weak_ptr<bool>(m_alive)] {
                if (alive.lock())
                    step(onReadable());
            });
            return Step::Continue;
        }
        // Straight into the disk thread's buffer: decrypted bytes are copied once more, not twice.
        if (m_sink->receive(*m_socket, room) <= 0)
            break;
    }
    if (m_sink->remaining() > 0)
        return Step::Continue;

    ChunkSink sink = std::move(*m_sink);
    m_sink.reset();
    Result<UploadState> upload = m_uploads.commitChunk(m_owner, m_uploadId, std::move(sink),
                                                       m_expectedCrc);
    if (!upload) {
        write(HttpReply::error(upload.error()), m_head.keepAlive);
    } else {
        HttpReply reply = HttpReply::json(upload->toJson());
        reply.setHeader("Upload-Offset", QByteArray::number(upload->offset));
        write(reply, m_head.keepAlive);
    }
    return m_head.keepAlive ? Step::Done : Step::DoneClose;
}

} // namespace ddl::server
