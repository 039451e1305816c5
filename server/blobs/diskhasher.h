#pragma once

#include "core/crc32c.h"
#include "core/result.h"
#include "core/sha256stream.h"

#include <QByteArray>
#include <QString>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ddl::server {

// The second half of receiving a chunk, on a thread of its own: hashes the bytes (SHA-256,
// CRC-32C when asked) and writes them to the part file, while the server's event loop goes on
// decrypting the next bytes. The two halves meet in a few fixed buffers (4 MiB in all), so
// memory stays bounded; when they are full the loop stops reading the socket until room frees.
//
// Whole, aligned buffers are written with direct I/O (Linux): no copy into the page cache and no
// write-back to wait for at the fsync, which halves the disk thread's kernel time. Pieces that are
// not aligned (a chunk's last bytes, a chunk at an odd offset) and file systems without direct
// I/O go through the page cache, with write-behind so the fsync waits for little.
class DiskHasher
{
public:
    static constexpr int Buffers = 4;
    static constexpr qsizetype BufferBytes = 1024 * 1024;
    static constexpr qsizetype Alignment = 4096;

    DiskHasher(int fd, QString path, qint64 offset, Sha256Stream hash, bool withCrc);
    ~DiskHasher();
    DiskHasher(const DiskHasher &) = delete;
    DiskHasher &operator=(const DiskHasher &) = delete;

    // Bytes space() offers now; 0 while every buffer is with the disk thread.
    qsizetype room();
    // Copies bytes in, waiting for room when there is none (the buffered routes' path).
    void write(QByteArrayView bytes);
    // The free end of the buffer being filled, for reading bytes straight into it (one copy
    // fewer than write()); commit() then takes the n bytes put there.
    char *space(qsizetype *size);
    void commit(qsizetype n);
    // Calls callback on the main event loop once room frees (at once when there is some).
    void whenRoom(std::function<void()> callback);
    // Waits until every byte is hashed and written; the first write error, if any.
    Status finish();

    // Valid after finish().
    const Sha256Stream &hash() const { return m_hash; }
    uint32_t crc32c() const { return m_crc.value(); }

private:
    // BufferBytes on an Alignment boundary, as direct I/O needs; used: the bytes filled.
    struct Buffer
    {
        std::unique_ptr<char, void (*)(void *)> bytes{nullptr, std::free};
        qsizetype used = 0;
    };

    static Buffer makeBuffer();
    void run();
    void post(std::function<void()> callback);
    // Makes a free buffer the current one; with wait, waits for one (false when closing).
    bool takeFreeBuffer(bool wait);
    bool writeOut(const Buffer &buffer);
    bool writeAll(int fd, const char *bytes, qsizetype size, qint64 offset);

    int m_fd;
    int m_directFd = -1; // the same file opened for direct I/O; -1 where it cannot be
    QString m_path;
    qint64 m_offset;  // of the next byte to write
    qint64 m_synced;  // where write-behind was last asked for
    Sha256Stream m_hash;
    Crc32c m_crc;
    bool m_withCrc;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Buffer> m_filled;
    std::vector<Buffer> m_free;
    Buffer m_current; // being filled by the caller's thread; none while all are with the disk
    bool m_closing = false;
    bool m_finished = false;
    Status m_error = Ok{};
    std::function<void()> m_onRoom;
    std::thread m_thread;
};

} // namespace ddl::server
