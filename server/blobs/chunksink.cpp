#include "chunksink.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace ddl::server {

ChunkSink::ChunkSink(int fd, QString path, qint64 offset, qint64 length, Sha256Stream hash,
                     std::function<void()> release)
    : m_fd(fd)
    , m_path(std::move(path))
    , m_offset(offset)
    , m_length(length)
    , m_hash(hash)
    , m_release(std::move(release))
{}

ChunkSink::ChunkSink(ChunkSink &&other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
    , m_path(std::move(other.m_path))
    , m_offset(other.m_offset)
    , m_length(other.m_length)
    , m_received(other.m_received)
    , m_checkCrc(other.m_checkCrc)
    , m_hash(other.m_hash)
    , m_hasher(std::move(other.m_hasher))
    , m_release(std::exchange(other.m_release, nullptr))
{}

ChunkSink::~ChunkSink()
{
    m_hasher.reset(); // stops its thread before the file closes
    if (m_fd >= 0)
        ::close(m_fd);
    if (m_release)
        m_release();
}

DiskHasher &ChunkSink::hasher()
{
    if (!m_hasher)
        m_hasher = std::make_unique<DiskHasher>(m_fd, m_path, m_offset, m_hash, m_checkCrc);
    return *m_hasher;
}

qsizetype ChunkSink::room()
{
    return hasher().room();
}

void ChunkSink::whenRoom(std::function<void()> callback)
{
    hasher().whenRoom(std::move(callback));
}

Status ChunkSink::write(QByteArrayView bytes)
{
    if (bytes.size() > remaining()) {
        return Error::make(ErrorCode::PayloadTooLarge,
                           QStringLiteral("the chunk sends more bytes than its Content-Length"));
    }
    m_received += bytes.size();
    hasher().write(bytes);
    return Ok{};
}

qint64 ChunkSink::receive(QIODevice &device, qint64 max)
{
    qsizetype space = 0;
    char *to = hasher().space(&space);
    if (space == 0)
        return 0; // every buffer is with the disk thread: the caller waits with whenRoom()
    const qint64 n = device.read(to, std::min({max, remaining(), qint64(space)}));
    if (n <= 0)
        return n;
    m_received += n;
    hasher().commit(n);
    return n;
}

Status ChunkSink::flushAndSync()
{
    if (Status written = hasher().finish(); !written)
        return written;
    if (::fdatasync(m_fd) != 0) {
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot write %1: %2")
                               .arg(m_path, QString::fromLocal8Bit(std::strerror(errno))));
    }
    return Ok{};
}

} // namespace ddl::server
