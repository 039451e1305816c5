#include "ledgercontroller.h"

#include "workers/ledgerstore.h"

using namespace Qt::StringLiterals;

namespace ddl::server {

void LedgerController::registerRoutes(Router &router)
{
    router.route("GET",
                 "/v1/workers/<arg>/ledger",
                 Access::UserOrWorker,
                 [this](const HttpRequest &request) { return workerLedger(request); });
    router.route("GET", "/v1/ledger", Access::User, [this](const HttpRequest &request) {
        return ownerLedger(request);
    });
}

static Result<LedgerPeriod> periodOf(const HttpRequest &request)
{
    return LedgerPeriod::fromText(request.query().queryItemValue(u"since"_s, QUrl::FullyDecoded),
                                  request.query().queryItemValue(u"until"_s, QUrl::FullyDecoded));
}

HttpReply LedgerController::workerLedger(const HttpRequest &request)
{
    bool ok = false;
    const qint64 workerId = request.arg(0).toLongLong(&ok);
    const Error notYours = Error::make(
        ErrorCode::NotFound,
        u"no worker %1 of yours: a worker's ledger is shown to its owner and to the worker "
        "itself"_s.arg(request.arg(0).left(40)),
        u"worker_id"_s);
    if (!ok)
        return HttpReply::error(notYours);
    if (request.caller().worker) {
        if (request.worker().id != workerId)
            return HttpReply::error(notYours);
    } else {
        const Result<std::optional<qint64>> owner = m_ledger.ownerOf(workerId);
        if (!owner)
            return HttpReply::error(owner.error());
        if (!*owner || **owner != request.user())
            return HttpReply::error(notYours);
    }
    const Result<LedgerPeriod> period = periodOf(request);
    if (!period)
        return HttpReply::error(period.error());
    const Result<WorkerLedger> ledger = m_ledger.workerLedger(workerId, *period);
    if (!ledger)
        return HttpReply::error(ledger.error());
    return HttpReply::json(ledger->toJson());
}

HttpReply LedgerController::ownerLedger(const HttpRequest &request)
{
    const Result<LedgerPeriod> period = periodOf(request);
    if (!period)
        return HttpReply::error(period.error());
    const Result<OwnerLedger> ledger = m_ledger.ownerLedger(request.user(), *period);
    if (!ledger)
        return HttpReply::error(ledger.error());
    return HttpReply::json(ledger->toJson());
}

} // namespace ddl::server
