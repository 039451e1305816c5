#pragma once

#include "core/sha256stream.h"

#include <QtGlobal>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ddl {

// SHA-256 of a stream of pieces on a thread of its own, so that hashing overlaps the I/O of the
// thread that feeds it (a download verifies while it receives). The feeding thread reads into a
// piece it took (take()) and hands it over (add()); the piece is hashed where it lies, without a
// copy, and becomes free again. At most Pieces pieces of PieceBytes exist: memory is bounded,
// and take() waits while all are queued.
class Sha256Pipeline
{
public:
    static constexpr int Pieces = 8;
    // The hashing thread is woken once this many pieces wait (or when the feeder needs one).
    static constexpr int WakeAfter = 4;

    Sha256Pipeline(Sha256Stream start, qsizetype pieceBytes);
    ~Sha256Pipeline();
    Sha256Pipeline(const Sha256Pipeline &) = delete;
    Sha256Pipeline &operator=(const Sha256Pipeline &) = delete;

    // A free piece of pieceBytes bytes; waits until the hashing thread has freed one.
    char *take();
    // size bytes at the start of piece (from take()), in stream order.
    void add(char *piece, qint64 size);
    // Waits until everything added is hashed; the pipeline must not be used afterwards.
    Sha256Stream finish();

private:
    void run();

    Sha256Stream m_hash;
    std::vector<std::unique_ptr<char[]>> m_storage;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<char *> m_free;
    std::deque<std::pair<char *, qint64>> m_queued;
    bool m_hashing = false; // the thread holds a piece
    bool m_urgent = false;  // hash what is queued without waiting for WakeAfter pieces
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace ddl
