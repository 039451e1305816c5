#include "diskhasher.h"

#include <QCoreApplication>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ddl::server {

// Every 16 MiB of bytes written through the page cache the kernel is asked to start writing
// back, so dirty pages never pile up and the fsync at the end of the chunk waits for little.
static constexpr qint64 WriteBehindBytes = 16LL << 20;

DiskHasher::Buffer DiskHasher::makeBuffer()
{
    Buffer buffer;
    buffer.bytes.reset(static_cast<char *>(std::aligned_alloc(Alignment, BufferBytes)));
    if (!buffer.bytes)
        throw std::bad_alloc();
    return buffer;
}

DiskHasher::DiskHasher(int fd, QString path, qint64 offset, Sha256Stream hash, bool withCrc)
    : m_fd(fd)
    , m_path(std::move(path))
    , m_offset(offset)
    , m_synced(offset)
    , m_hash(hash)
    , m_withCrc(withCrc)
{
#ifdef O_DIRECT
    // Through /proc, so it is surely the same file as fd, whatever happened to the path.
    m_directFd = ::open(QByteArray("/proc/self/fd/" + QByteArray::number(fd)).constData(),
                        O_WRONLY | O_DIRECT | O_CLOEXEC);
#endif
    m_free.reserve(Buffers);
    for (int i = 0; i < Buffers - 1; ++i)
        m_free.push_back(makeBuffer());
    m_current = makeBuffer();
    m_thread = std::thread([this] { run(); });
}

DiskHasher::~DiskHasher()
{
    {
        std::lock_guard lock(m_mutex);
        m_closing = true;
        m_filled.clear();
        m_onRoom = nullptr;
    }
    m_changed.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    if (m_directFd >= 0)
        ::close(m_directFd);
}

qsizetype DiskHasher::room()
{
    std::lock_guard lock(m_mutex);
    const qsizetype current = m_current.bytes ? BufferBytes - m_current.used : 0;
    return qsizetype(m_free.size()) * BufferBytes + current;
}

void DiskHasher::write(QByteArrayView bytes)
{
    while (!bytes.isEmpty()) {
        if (!m_current.bytes && !takeFreeBuffer(true))
            return; // closing
        qsizetype size = 0;
        char *to = space(&size);
        const qsizetype take = std::min(size, bytes.size());
        std::memcpy(to, bytes.data(), size_t(take));
        bytes = bytes.sliced(take);
        commit(take);
    }
}

char *DiskHasher::space(qsizetype *size)
{
    if (!m_current.bytes && !takeFreeBuffer(false)) {
        *size = 0;
        return nullptr;
    }
    *size = BufferBytes - m_current.used;
    return m_current.bytes.get() + m_current.used;
}

void DiskHasher::commit(qsizetype n)
{
    m_current.used += n;
    if (m_current.used < BufferBytes)
        return;
    // A full buffer goes to the disk thread at once; the next one is taken only when bytes
    // come, so the caller never waits here for the disk (room() says 0 meanwhile).
    std::lock_guard lock(m_mutex);
    m_filled.push_back(std::move(m_current));
    m_current = Buffer();
    m_changed.notify_all();
}

bool DiskHasher::takeFreeBuffer(bool wait)
{
    std::unique_lock lock(m_mutex);
    if (wait)
        m_changed.wait(lock, [this] { return !m_free.empty() || m_closing; });
    if (m_free.empty() || m_closing)
        return false;
    m_current = std::move(m_free.back());
    m_free.pop_back();
    m_current.used = 0;
    return true;
}

void DiskHasher::whenRoom(std::function<void()> callback)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_free.empty() && !m_current.bytes) {
            m_onRoom = std::move(callback);
            return;
        }
    }
    post(std::move(callback));
}

void DiskHasher::post(std::function<void()> callback)
{
    QMetaObject::invokeMethod(QCoreApplication::instance(), std::move(callback),
                              Qt::QueuedConnection);
}

Status DiskHasher::finish()
{
    {
        std::unique_lock lock(m_mutex);
        if (m_current.bytes && m_current.used > 0)
            m_filled.push_back(std::move(m_current));
        m_current = Buffer();
        m_finished = true;
        m_changed.notify_all();
    }
    if (m_thread.joinable())
        m_thread.join();
    return m_error;
}

bool DiskHasher::writeAll(int fd, const char *bytes, qsizetype size, qint64 offset)
{
    qsizetype done = 0;
    while (done < size) {
        const ssize_t n = ::pwrite(fd, bytes + done, size_t(size - done), offset + done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO; // no progress and no reason given: not a reason to retry another way
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

bool DiskHasher::writeOut(const Buffer &buffer)
{
    const bool aligned = buffer.used % Alignment == 0 && m_offset % Alignment == 0;
    if (m_directFd >= 0 && aligned) {
        if (writeAll(m_directFd, buffer.bytes.get(), buffer.used, m_offset))
            return true;
        if (errno != EINVAL)
            return false;
        // This file system takes no direct I/O after all: the page cache from here on.
        ::close(std::exchange(m_directFd, -1));
    }
    if (!writeAll(m_fd, buffer.bytes.get(), buffer.used, m_offset))
        return false;
#ifdef __linux__
    if (m_offset + buffer.used - m_synced >= WriteBehindBytes) {
        ::sync_file_range(m_fd, m_synced, m_offset + buffer.used - m_synced,
                          SYNC_FILE_RANGE_WRITE);
        m_synced = m_offset + buffer.used;
    }
#endif
    return true;
}

void DiskHasher::run()
{
    for (;;) {
        Buffer buffer;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] { return !m_filled.empty() || m_closing || m_finished; });
            if (m_closing || (m_filled.empty() && m_finished))
                return;
            buffer = std::move(m_filled.front());
            m_filled.pop_front();
        }
        const QByteArrayView bytes(buffer.bytes.get(), buffer.used);
        m_hash.add(bytes);
        if (m_withCrc)
            m_crc.add(bytes);
        const bool written = writeOut(buffer);
        const int writeErrno = errno;
        if (written)
            m_offset += buffer.used;
        std::function<void()> onRoom;
        {
            std::lock_guard lock(m_mutex);
            if (!written && m_error) {
                m_error = Error::make(
                    ErrorCode::IoError,
                    QStringLiteral("cannot write %1: %2")
                        .arg(m_path, QString::fromLocal8Bit(std::strerror(writeErrno))));
            }
            buffer.used = 0;
            m_free.push_back(std::move(buffer));
            onRoom = std::exchange(m_onRoom, nullptr);
        }
        m_changed.notify_all();
        if (onRoom)
            post(std::move(onRoom));
    }
}

} // namespace ddl::server
