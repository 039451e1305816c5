#include "chunksink.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ddl::server {

// Every 16 MiB the kernel is asked to start writing back, so dirty pages never pile up and the
// final fdatasync waits for little.
static constexpr qint64 WriteBehindBytes = 16LL << 20;

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
    , m_written(other.m_written)
    , m_syncRequested(other.m_syncRequested)
    , m_checkCrc(other.m_checkCrc)
    , m_hash(other.m_hash)
    , m_crc(other.m_crc)
    , m_release(std::exchange(other.m_release, nullptr))
{}

ChunkSink::~ChunkSink()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (m_release)
        m_release();
}

static Error writeError(const QString &path)
{
    return Error::make(QStringLiteral("io_error"),
                       QStringLiteral("cannot write %1: %2")
                           .arg(path, QString::fromLocal8Bit(std::strerror(errno))));
}

Status ChunkSink::write(QByteArrayView bytes)
{
    if (bytes.size() > remaining()) {
        return Error::make(QStringLiteral("payload_too_large"),
                           QStringLiteral("the chunk sends more bytes than its Content-Length"));
    }
    // Hashed and written while the bytes are still in the CPU's cache from the socket read.
    m_hash.add(bytes);
    if (m_checkCrc)
        m_crc.add(bytes);
    m_received += bytes.size();
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pwrite(m_fd, bytes.data() + done, size_t(bytes.size() - done),
                                   m_offset + m_written + done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return writeError(m_path);
        done += n;
    }
    m_written += done;
#ifdef __linux__
    if (m_written - m_syncRequested >= WriteBehindBytes) {
        ::sync_file_range(m_fd, m_offset + m_syncRequested, m_written - m_syncRequested,
                          SYNC_FILE_RANGE_WRITE);
        m_syncRequested = m_written;
    }
#endif
    return Ok{};
}

Status ChunkSink::flushAndSync()
{
    if (::fdatasync(m_fd) != 0)
        return writeError(m_path);
    return Ok{};
}

} // namespace ddl::server
