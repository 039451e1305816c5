#pragma once

#include "front/router.h"

namespace ddl::server {

class LedgerStore;

// The contribution ledger (docs/owners.md): GET /v1/workers/<id>/ledger for the worker itself
// (its token) and its owner, GET /v1/ledger for an owner's workers summed. A worker that is
// not the caller's is not_found, as if there were none.
class LedgerController
{
public:
    explicit LedgerController(LedgerStore &ledger)
        : m_ledger(ledger)
    {
    }
    void registerRoutes(Router &router);

private:
    HttpReply workerLedger(const HttpRequest &request);
    HttpReply ownerLedger(const HttpRequest &request);

    LedgerStore &m_ledger;
};

} // namespace ddl::server
