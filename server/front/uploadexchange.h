#pragma once

#include "dataexchange.h"
#include "requesthead.h"

#include "blobs/uploadservice.h"

#include <optional>

namespace ddl::server {

// PUT /v1/uploads/<id>?offset=N: the chunk streams from the socket into a ChunkSink. The offset
// and length (and a DDL-Sha256 header) are checked before any byte of the body is read (and before
// `100 Continue`), the
// socket's read buffer is bounded so a fast client is slowed by TCP instead of filling memory,
// and the answer goes out only after the bytes are durable.
class UploadExchange : public DataExchange
{
public:
    // A refused chunk's body up to this size is read and dropped; a longer one closes the
    // connection instead.
    static constexpr qint64 MaxDroppedBytes = 64 * 1024;

    UploadExchange(QSslSocket *socket, UploadService &uploads, QString owner, QString uploadId,
                   const RequestHead &head);

    Step start() override;
    Step onReadable() override;

private:
    Step fail(const Error &error);
    Step begin();

    UploadService &m_uploads;
    QString m_owner;
    QString m_uploadId;
    RequestHead m_head;
    std::optional<ChunkSink> m_sink;
    std::optional<uint32_t> m_expectedCrc;
    qint64 m_offset = -1;
    QString m_sha256;        // DDL-Sha256: names the digest of an upload created without one
    bool m_dropping = false; // refused: the rest of the body is read and dropped
    qint64 m_discard = 0;
    // Lets a waiting callback know the exchange (and its connection) is gone.
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
};

} // namespace ddl::server
