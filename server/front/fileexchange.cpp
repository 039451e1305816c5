#include "fileexchange.h"

#include "http/requestreader.h"

namespace ddl::server {

// Pieces small enough to stay in the CPU cache through Qt's copies and the encryption.
static constexpr qint64 ReadBytes = 128 * 1024;
static constexpr qint64 HighWaterBytes = 512 * 1024;

FileExchange::FileExchange(QSslSocket *socket, QString path, const RequestHead &head,
                           QByteArray etag)
    : DataExchange(socket)
    , m_file(path)
    , m_head(head)
    , m_etag(std::move(etag))
{}

DataExchange::Step FileExchange::start()
{
    if (!m_file.open(QIODevice::ReadOnly)) {
        write(HttpReply::error(Error::make(ErrorCode::IoError,
                                           QStringLiteral("cannot read %1: %2")
                                               .arg(m_file.fileName(), m_file.errorString()))),
              m_head.keepAlive, m_head.method != "HEAD");
        return done();
    }
    const qint64 size = m_windowLength >= 0 ? m_windowLength : m_file.size();
    if (m_file.size() < m_windowOffset + size) {
        write(HttpReply::error(Error::make(ErrorCode::IoError,
                                           QStringLiteral("%1 ends before the blob in it does")
                                               .arg(m_file.fileName()))),
              m_head.keepAlive, m_head.method != "HEAD");
        return done();
    }
    ByteRange range{0, size, size, false};
    if (size > 0) {
        Result<ByteRange> asked = RequestReader::parseRange(m_head.header("range"), size, size);
        if (!asked) {
            write(HttpReply::error(asked.error()), m_head.keepAlive, m_head.method != "HEAD");
            return done();
        }
        range = *asked;
    }
    HeaderList headers{{"Content-Type", "application/octet-stream"}, {"Accept-Ranges", "bytes"}};
    if (!m_etag.isEmpty())
        headers.append(qMakePair(QByteArray("ETag"), QByteArray('"' + m_etag + '"')));
    if (range.partial) {
        headers.append(qMakePair(QByteArray("Content-Range"),
                                 "bytes " + QByteArray::number(range.first) + '-'
                                     + QByteArray::number(range.first + range.length - 1) + '/'
                                     + QByteArray::number(range.size)));
    }
    m_socket->write(HttpReply::head(range.partial ? 206 : 200, headers, range.length,
                                    m_head.keepAlive));
    if (m_head.method == "HEAD" || range.length == 0)
        return done();
    if (!m_file.seek(m_windowOffset + range.first)) {
        m_socket->abort();
        return Step::DoneClose;
    }
    m_left = range.length;
    m_length = range.length;
    m_buffer.resize(ReadBytes);
    return pump();
}

DataExchange::Step FileExchange::onWritten()
{
    return pump();
}

DataExchange::Step FileExchange::pump()
{
    while (m_left > 0
           && m_socket->bytesToWrite() + m_socket->encryptedBytesToWrite() < HighWaterBytes) {
        const qint64 n = m_file.read(m_buffer.data(), std::min(m_left, ReadBytes));
        if (n <= 0) {
            // The file shrank under us: the promised length cannot be kept, so end the stream.
            qWarning("cannot read %s: %s", qUtf8Printable(m_file.fileName()),
                     qUtf8Printable(m_file.errorString()));
            m_socket->abort();
            if (m_bodySent)
                std::exchange(m_bodySent, nullptr)(m_length - m_left);
            return Step::DoneClose;
        }
        m_socket->write(m_buffer.constData(), n);
        m_left -= n;
    }
    if (m_left > 0)
        return Step::Continue;
    if (m_bodySent)
        std::exchange(m_bodySent, nullptr)(m_length);
    return done();
}

} // namespace ddl::server
