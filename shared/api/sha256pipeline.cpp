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
    if (m_free.empty()) {
        // Every piece is queued: the hashing thread must not wait for more.
        m_urgent = true;
        m_changed.notify_all();
        m_changed.wait(lock, [this] { return !m_free.empty(); });
    }
    char *piece = m_free.back();
    m_free.pop_back();
    return piece;
}

void Sha256Pipeline::add(char *piece, qint64 size)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        m_queued.emplace_back(piece, size);
        wake = m_queued.size() == size_t(WakeAfter);
    }
    // Woken for several pieces at a time: each sleep and wake of a thread costs more than
    // hashing a piece (on a VM, sys time rose by 0.3 s per GiB when woken for every piece).
    if (wake)
        m_changed.notify_all();
}

Sha256Stream Sha256Pipeline::finish()
{
    {
        std::unique_lock lock(m_mutex);
        m_urgent = true;
        m_changed.notify_all();
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
        m_changed.wait(lock, [this] {
            return m_stop || m_queued.size() >= size_t(WakeAfter) ||
                   (m_urgent && !m_queued.empty());
        });
        if (m_queued.empty())
            return; // stopped, and everything added is hashed
        // Once awake, everything queued meanwhile is hashed before sleeping again.
        while (!m_queued.empty()) {
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
        m_urgent = false;
    }
}

} // namespace ddl
