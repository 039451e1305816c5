#pragma once

#include "diskhasher.h"

#include "core/result.h"
#include "core/sha256stream.h"

#include <QIODevice>
#include <QString>

#include <functional>
#include <memory>

namespace ddl::server {

// One chunk of an upload while its bytes arrive, at the upload's offset of the part file. The
// bytes go to a DiskHasher, which hashes them (SHA-256 of the whole upload, and CRC-32C of this
// chunk when the client sent one to check) and writes them on its own thread. Nothing written
// counts until UploadService::commitChunk() records the new offset.
class ChunkSink
{
public:
    ChunkSink(int fd, QString path, qint64 offset, qint64 length, Sha256Stream hash,
              std::function<void()> release);
    ChunkSink(ChunkSink &&other) noexcept;
    ChunkSink &operator=(ChunkSink &&) = delete;
    ~ChunkSink();

    // Before the first write: also compute the chunk's CRC-32C.
    void checkCrc32c() { m_checkCrc = true; }
    // Bytes write() takes without waiting, and a callback (on the event loop) once there is room.
    qsizetype room();
    void whenRoom(std::function<void()> callback);
    Status write(QByteArrayView bytes);
    // Reads at most max bytes of device straight into the disk thread's buffer; the count read.
    qint64 receive(QIODevice &device, qint64 max);
    // Waits for the hashing and writing, then makes the bytes durable (fdatasync).
    Status flushAndSync();

    qint64 offset() const { return m_offset; }
    qint64 length() const { return m_length; }
    qint64 received() const { return m_received; }
    qint64 remaining() const { return m_length - m_received; }
    // Valid after flushAndSync().
    uint32_t crc32c() const { return m_hasher ? m_hasher->crc32c() : 0; }
    Sha256Stream hash() const { return m_hasher ? m_hasher->hash() : m_hash; }

private:
    DiskHasher &hasher();

    int m_fd = -1;
    QString m_path;
    qint64 m_offset = 0;
    qint64 m_length = 0;
    qint64 m_received = 0;
    bool m_checkCrc = false;
    Sha256Stream m_hash; // until the hasher starts with it
    std::unique_ptr<DiskHasher> m_hasher;
    std::function<void()> m_release;
};

} // namespace ddl::server
