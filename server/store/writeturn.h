#pragma once

namespace ddl::server {

// The store's writers in this process take turns here, in the order they came, before they ask
// SQLite (or PostgreSQL) for its write lock. Batches of small blobs are recorded on their own
// threads with connections of their own; without turns, a write of the event loop that met a
// batch's lock would sleep in SQLite's busy handler (1, 2, 5 ... 100 ms between tries, every
// socket stalled meanwhile) or take PostgreSQL's advisory lock after whoever came next. With
// them it waits only for the writers already ahead of it. Held on one thread, a turn is taken
// again at once (a Transaction's own statements). Another process (`ddl-server token create`)
// still meets SQLite's lock and waits for it in the busy handler.
class WriteTurn
{
public:
    WriteTurn();
    ~WriteTurn();
    WriteTurn(const WriteTurn &) = delete;
    WriteTurn &operator=(const WriteTurn &) = delete;

    // Writers waiting for their turn now (not the one holding it).
    static int waiting();
};

} // namespace ddl::server
