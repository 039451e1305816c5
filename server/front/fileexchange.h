#pragma once

#include "dataexchange.h"
#include "requesthead.h"

#include <QFile>

#include <functional>

namespace ddl::server {

// GET (or HEAD) of a stored file, or of a window in one: a blob, an artifact. Honours one Range; reads 128 KiB at a
// time and writes only while less than 512 KiB wait in the socket (plain and encrypted), so a slow
// reader holds the server to that much memory.
class FileExchange : public DataExchange
{
public:
    FileExchange(QSslSocket *socket, QString path, const RequestHead &head, QByteArray etag = {});

    // Serves only length bytes from offset of the file (a blob in a pack): sizes and Range
    // requests count within the window, and no byte outside it is read.
    void setWindow(qint64 offset, qint64 length)
    {
        m_windowOffset = offset;
        m_windowLength = length;
    }

    Step start() override;
    Step onWritten() override;
    // Called once with the body bytes written when the body ends, sent whole or cut short by
    // the server (a client that goes away mid-body is not told of).
    void setBodySent(std::function<void(qint64 bytes)> bodySent) { m_bodySent = std::move(bodySent); }

private:
    Step pump();
    Step done() const { return m_head.keepAlive ? Step::Done : Step::DoneClose; }

    QFile m_file;
    RequestHead m_head;
    QByteArray m_etag;
    qint64 m_windowOffset = 0;
    qint64 m_windowLength = -1; // the whole file
    qint64 m_left = 0;
    qint64 m_length = 0;
    QByteArray m_buffer;
    std::function<void(qint64)> m_bodySent;
};

} // namespace ddl::server
