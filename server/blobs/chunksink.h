#pragma once

#include "core/crc32c.h"
#include "core/result.h"
#include "core/sha256stream.h"

#include <QString>

#include <functional>

namespace ddl::server {

// One chunk of an upload while its bytes arrive: each piece read from the socket is hashed
// (SHA-256 of the whole upload, and CRC-32C of this chunk when the client sent one to check)
// and written to the part file at once, while it is still in the CPU's cache; the kernel is
// asked to write back early so the fsync at the end is short.
// Nothing it writes counts until UploadService::commitChunk() records the new offset.
class ChunkSink
{
public:
    ChunkSink(int fd, QString path, qint64 offset, qint64 length, Sha256Stream hash,
              std::function<void()> release);
    ChunkSink(ChunkSink &&other) noexcept;
    ChunkSink &operator=(ChunkSink &&) = delete;
    ~ChunkSink();

    void checkCrc32c() { m_checkCrc = true; }
    Status write(QByteArrayView bytes);
    // Makes what was written durable (fdatasync).
    Status flushAndSync();

    qint64 offset() const { return m_offset; }
    qint64 length() const { return m_length; }
    qint64 received() const { return m_received; }
    qint64 remaining() const { return m_length - m_received; }
    uint32_t crc32c() const { return m_crc.value(); }
    const Sha256Stream &hash() const { return m_hash; }

private:
    int m_fd = -1;
    QString m_path;
    qint64 m_offset = 0;
    qint64 m_length = 0;
    qint64 m_received = 0;
    qint64 m_written = 0;
    qint64 m_syncRequested = 0;
    bool m_checkCrc = false;
    Sha256Stream m_hash;
    Crc32c m_crc;
    std::function<void()> m_release;
};

} // namespace ddl::server
