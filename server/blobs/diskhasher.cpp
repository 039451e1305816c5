#include "diskhasher.h"

#include <QCoreApplication>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ddl::server {

// Every 16 MiB the kernel is asked to start writing back, so dirty pages never pile up and the
// fsync at the end of the chunk waits for little.
static constexpr qint64 WriteBehindBytes = 16LL << 20;

DiskHasher::DiskHasher(int fd, QString path, qint64 offset, Sha256Stream hash, bool withCrc)
    : m_fd(fd)
    , m_path(std::move(path))
    , m_offset(offset)
    , m_synced(offset)
    , m_hash(hash)
    , m_withCrc(withCrc)
{
    m_free.reserve(Buffers);
    for (int i = 0; i < Buffers - 1; ++i) {
        m_free.emplace_back();
        m_free.back().resize(BufferBytes);
    }
    m_current.resize(BufferBytes);
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
}

qsizetype DiskHasher::room()
{
    std::lock_guard lock(m_mutex);
    return qsizetype(m_free.size()) * BufferBytes + (BufferBytes - m_used);
}

void DiskHasher::write(QByteArrayView bytes)
{
    while (!bytes.isEmpty()) {
        const qsizetype take = std::min(BufferBytes - m_used, bytes.size());
        if (take <= 0)
            return; // closing
        std::memcpy(m_current.data() + m_used, bytes.data(), size_t(take));
        bytes = bytes.sliced(take);
        commit(take);
    }
}

char *DiskHasher::space(qsizetype *size)
{
    *size = BufferBytes - m_used;
    return m_current.data() + m_used;
}

void DiskHasher::commit(qsizetype n)
{
    m_used += n;
    if (m_used == BufferBytes)
        handOffCurrent();
}

// Gives the full buffer to the disk thread and takes a free one, waiting when there is none.
void DiskHasher::handOffCurrent()
{
    std::unique_lock lock(m_mutex);
    m_filled.push_back(std::move(m_current));
    m_changed.notify_all();
    m_changed.wait(lock, [this] { return !m_free.empty() || m_closing; });
    if (m_closing)
        return;
    m_current = std::move(m_free.back());
    m_free.pop_back();
    m_used = 0;
}

void DiskHasher::whenRoom(std::function<void()> callback)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_free.empty() && m_used == BufferBytes) {
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
        if (m_used > 0) {
            m_current.resize(m_used);
            m_filled.push_back(std::move(m_current));
        }
        m_current = QByteArray();
        m_finished = true;
        m_changed.notify_all();
    }
    if (m_thread.joinable())
        m_thread.join();
    return m_error;
}

void DiskHasher::run()
{
    for (;;) {
        QByteArray buffer;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] { return !m_filled.empty() || m_closing || m_finished; });
            if (m_closing || (m_filled.empty() && m_finished))
                return;
            buffer = std::move(m_filled.front());
            m_filled.pop_front();
        }
        m_hash.add(buffer);
        if (m_withCrc)
            m_crc.add(buffer);
        qsizetype done = 0;
        bool failed = false;
        while (done < buffer.size()) {
            const ssize_t n = ::pwrite(m_fd, buffer.constData() + done,
                                       size_t(buffer.size() - done), m_offset + done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                failed = true;
                break;
            }
            done += n;
        }
        m_offset += done;
#ifdef __linux__
        if (m_offset - m_synced >= WriteBehindBytes) {
            ::sync_file_range(m_fd, m_synced, m_offset - m_synced, SYNC_FILE_RANGE_WRITE);
            m_synced = m_offset;
        }
#endif
        std::function<void()> onRoom;
        {
            std::lock_guard lock(m_mutex);
            if (failed && m_error) {
                m_error = Error::make(QStringLiteral("io_error"),
                                      QStringLiteral("cannot write %1: %2")
                                          .arg(m_path, QString::fromLocal8Bit(std::strerror(errno))));
            }
            buffer.resize(BufferBytes); // back to full size; the allocation is kept
            m_free.push_back(std::move(buffer));
            onRoom = std::exchange(m_onRoom, nullptr);
        }
        m_changed.notify_all();
        if (onRoom)
            post(std::move(onRoom));
    }
}

} // namespace ddl::server
