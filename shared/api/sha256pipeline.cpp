#include "sha256pipeline.h"

namespace ddl {

Sha256Pipeline::Sha256Pipeline(Sha256Stream start, qsizetype pieceBytes)
    : m_hash(start)
{
    for (int i = 0; i < Pieces; ++i) {
        m_storage.push_back(std::make_unique<char[]>(size_t(pieceBytes)));
        m_free.push_back(m_storage.back().get());
    }
    m_thread = std::thread([this] { run(); });
}

Sha256Pipeline::~Sha256Pipeline()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

char *Sha256Pipeline::take()
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return !m_free.empty(); });
    char *piece = m_free.back();
    m_free.pop_back();
    return piece;
}

void Sha256Pipeline::add(char *piece, qint64 size)
{
    {
        std::lock_guard lock(m_mutex);
        m_queued.emplace_back(piece, size);
    }
    m_changed.notify_all();
}

Sha256Stream Sha256Pipeline::finish()
{
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_queued.empty() && !m_hashing; });
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
    return m_hash;
}

void Sha256Pipeline::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [this] { return m_stop || !m_queued.empty(); });
        if (m_queued.empty())
            return; // stopped, and everything added is hashed
        const auto [piece, size] = m_queued.front();
        m_queued.pop_front();
        m_hashing = true;
        lock.unlock();
        m_hash.add(QByteArrayView(piece, size));
        lock.lock();
        m_hashing = false;
        m_free.push_back(piece);
        m_changed.notify_all();
    }
}

} // namespace ddl
