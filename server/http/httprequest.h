#pragma once

#include "front/requesthead.h"
#include "workers/workerref.h"

#include <QHostAddress>
#include <QStringList>

#include <atomic>
#include <memory>
#include <optional>

namespace ddl::server {

// Who sent a request, as its route's access rule established before the handler runs.
struct Caller
{
    qint64 userId = 0;               // 0: not a user
    std::optional<WorkerRef> worker; // set: an enrolled worker
    QString uploadOwner;             // "user:<id>" / "worker:<id>" for either
};

// One request as a route's handler sees it: the head the front read, the values of the route's
// <arg> path segments (percent-decoded), the body (read whole for control routes; streaming
// routes read it themselves), the peer's address and the caller.
class HttpRequest
{
public:
    HttpRequest(RequestHead head, QStringList args, QHostAddress peer)
        : m_head(std::move(head))
        , m_args(std::move(args))
        , m_peer(std::move(peer))
    {
    }

    const RequestHead &head() const { return m_head; }
    QString arg(qsizetype index) const { return m_args.value(index); }
    const QUrlQuery &query() const { return m_head.query; }
    QByteArray value(const QByteArray &headerName) const
    {
        return m_head.header(headerName.toLower());
    }
    const QByteArray &body() const { return m_body; }
    QHostAddress remoteAddress() const { return m_peer; }

    // The caller, of the kind the route's access rule asked for.
    qint64 user() const { return m_caller.userId; }
    const WorkerRef &worker() const { return *m_caller.worker; }
    const QString &uploadOwner() const { return m_caller.uploadOwner; }
    const Caller &caller() const { return m_caller; }

    // Set once the client has left before a later reply (HttpReply::later) was sent, so that
    // long work can stop early.
    std::shared_ptr<std::atomic_bool> abandoned() const { return m_abandoned; }

    void setBody(QByteArray body) { m_body = std::move(body); }
    void setCaller(Caller caller) { m_caller = std::move(caller); }

private:
    RequestHead m_head;
    QStringList m_args;
    QHostAddress m_peer;
    QByteArray m_body;
    Caller m_caller;
    std::shared_ptr<std::atomic_bool> m_abandoned = std::make_shared<std::atomic_bool>(false);
};

} // namespace ddl::server
