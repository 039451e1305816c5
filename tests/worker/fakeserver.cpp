#include "fakeserver.h"

#include <QCryptographicHash>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QJsonDocument>

using namespace Qt::StringLiterals;
using Status = QHttpServerResponse::StatusCode;

namespace {

QHttpServerResponse error(const QString &code, const QString &message, Status status)
{
    return QHttpServerResponse(
        QJsonObject{{u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}}, status);
}

QJsonObject jsonBody(const QHttpServerRequest &request)
{
    return QJsonDocument::fromJson(request.body()).object();
}

} // namespace

FakeServer::FakeServer()
{
    registerRoutes();
    m_port = m_http.listen(QHostAddress::LocalHost, 0);
}

QUrl FakeServer::url() const
{
    return QUrl(u"http://127.0.0.1:%1"_s.arg(m_port));
}

QString FakeServer::addBlob(const QByteArray &bytes)
{
    const QString sha =
        QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    blobs.insert(sha, bytes);
    return sha;
}

bool FakeServer::authorized(const QHttpServerRequest &request) const
{
    return !workerToken.isEmpty() &&
           request.value("Authorization") == "Bearer " + workerToken.toUtf8();
}

void FakeServer::registerRoutes()
{
    using Method = QHttpServerRequest::Method;

    m_http.route(u"/v1/workers/enroll"_s, Method::Post, [this](const QHttpServerRequest &req) {
        const QJsonObject body = jsonBody(req);
        if (body.value(u"enroll_token"_s).toString() != enrollToken)
            return error(u"unauthorized"_s, u"unknown enrollment token"_s, Status::Unauthorized);
        enrollments.append(body);
        ++enrollCount;
        workerToken = u"worker-token-%1"_s.arg(enrollCount);
        return QHttpServerResponse(
            QJsonObject{{u"worker_id"_s, 7}, {u"worker_token"_s, workerToken}}, Status::Created);
    });

    m_http.route(u"/v1/workers/heartbeat"_s, Method::Post, [this](const QHttpServerRequest &req) {
        if (!authorized(req))
            return error(u"unauthorized"_s, u"bad worker token"_s, Status::Unauthorized);
        heartbeats.append(jsonBody(req));
        QJsonArray ids;
        for (qint64 id : std::as_const(cancel))
            ids.append(id);
        return QHttpServerResponse(QJsonObject{{u"cancel"_s, ids}});
    });

    m_http.route(u"/v1/workers/lease"_s, Method::Post, [this](const QHttpServerRequest &req) {
        if (!authorized(req))
            return error(u"unauthorized"_s, u"bad worker token"_s, Status::Unauthorized);
        const QJsonObject body = jsonBody(req);
        leaseRequests.append(body);
        QJsonArray tasks;
        const int free = body.value(u"free_slots"_s).toInt();
        while (!pendingLeases.isEmpty() && tasks.size() < free)
            tasks.append(pendingLeases.takeFirst());
        return QHttpServerResponse(QJsonObject{{u"tasks"_s, tasks}});
    });

    m_http.route(u"/v1/workers/blobs/<arg>"_s,
                 Method::Get,
                 [this](const QString &sha, const QHttpServerRequest &req) {
                     if (!authorized(req))
                         return error(u"unauthorized"_s, u"bad token"_s, Status::Unauthorized);
                     if (!blobs.contains(sha))
                         return error(u"not_found"_s, u"no blob "_s + sha, Status::NotFound);
                     ++blobRequests[sha];
                     const QByteArray &bytes = blobs[sha];
                     const QByteArray range = req.value("Range");
                     if (!range.startsWith("bytes="))
                         return QHttpServerResponse("application/octet-stream", bytes);
                     const QList<QByteArray> ends = range.mid(6).split('-');
                     const qint64 first = ends.value(0).toLongLong();
                     qint64 last =
                         ends.value(1).isEmpty() ? bytes.size() - 1 : ends.value(1).toLongLong();
                     last = std::min<qint64>(last, bytes.size() - 1);
                     if (first > last && !(first == 0 && bytes.isEmpty())) {
                         return error(u"range_not_satisfiable"_s,
                                      u"bad range"_s,
                                      Status::RequestRangeNotSatisfiable);
                     }
                     QHttpServerResponse response("application/octet-stream",
                                                  bytes.mid(first, last - first + 1),
                                                  Status::PartialContent);
                     response.setHeader("Content-Range",
                                        "bytes " + QByteArray::number(first) + '-' +
                                            QByteArray::number(last) + '/' +
                                            QByteArray::number(bytes.size()));
                     return response;
                 });

    m_http.route(u"/v1/workers/tasks/<arg>/log"_s,
                 Method::Post,
                 [this](qint64 id, const QHttpServerRequest &req) {
                     if (!authorized(req))
                         return error(u"unauthorized"_s, u"bad token"_s, Status::Unauthorized);
                     const qint64 offset = req.query().queryItemValue(u"offset"_s).toLongLong();
                     QByteArray &log = logs[id];
                     if (offset != log.size()) {
                         // As ddl-server does: the stored length is a member of the error.
                         return QHttpServerResponse(
                             QJsonObject{{u"error"_s,
                                          QJsonObject{{u"code"_s, u"offset_mismatch"_s},
                                                      {u"message"_s, u"wrong log offset"_s},
                                                      {u"field"_s, u"offset"_s},
                                                      {u"offset"_s, log.size()}}}},
                             Status::Conflict);
                     }
                     log += req.body();
                     events.append(u"log:%1"_s.arg(id));
                     if (std::exchange(loseNextLogAnswer, false))
                         return error(u"internal"_s, u"answer lost"_s, Status::InternalServerError);
                     return QHttpServerResponse(QJsonObject{{u"offset"_s, log.size()}});
                 });

    m_http.route(u"/v1/workers/tasks/<arg>/state"_s,
                 Method::Post,
                 [this](qint64 id, const QHttpServerRequest &req) {
                     if (!authorized(req))
                         return error(u"unauthorized"_s, u"bad token"_s, Status::Unauthorized);
                     const QJsonObject body = jsonBody(req);
                     states[id].append(body);
                     events.append(u"state:%1:%2"_s.arg(id).arg(body.value(u"state"_s).toString()));
                     return QHttpServerResponse(QJsonObject{});
                 });

    m_http.route(u"/v1/workers/tasks/<arg>/artifacts"_s,
                 Method::Post,
                 [this](qint64 id, const QHttpServerRequest &req) {
                     if (!authorized(req))
                         return error(u"unauthorized"_s, u"bad token"_s, Status::Unauthorized);
                     const QJsonArray files = jsonBody(req).value(u"files"_s).toArray();
                     for (const QJsonValue &file : files) {
                         if (!uploaded.contains(file[u"sha256"_s].toString()))
                             return error(
                                 u"bad_request"_s, u"blob not uploaded"_s, Status::BadRequest);
                     }
                     artifacts[id] = files;
                     events.append(u"artifacts:%1"_s.arg(id));
                     return QHttpServerResponse(QJsonObject{});
                 });

    m_http.route(u"/v1/uploads"_s, Method::Post, [this](const QHttpServerRequest &req) {
        if (!authorized(req))
            return error(u"unauthorized"_s, u"bad token"_s, Status::Unauthorized);
        const QJsonObject body = jsonBody(req);
        Upload upload;
        upload.size = body.value(u"size"_s).toInteger();
        upload.sha256 = body.value(u"sha256"_s).toString();
        const bool complete = uploaded.contains(upload.sha256);
        const QString id = QString::number(m_nextId++);
        if (!complete)
            m_uploads.insert(id, upload);
        return QHttpServerResponse(QJsonObject{{u"id"_s, id},
                                               {u"offset"_s, complete ? upload.size : 0},
                                               {u"complete"_s, complete}},
                                   Status::Created);
    });

    m_http.route(
        u"/v1/uploads/<arg>"_s,
        Method::Put,
        [this](const QString &id, const QHttpServerRequest &req) {
            if (!authorized(req))
                return error(u"unauthorized"_s, u"bad token"_s, Status::Unauthorized);
            if (!m_uploads.contains(id))
                return error(u"not_found"_s, u"no upload"_s, Status::NotFound);
            Upload &upload = m_uploads[id];
            const qint64 offset = req.query().queryItemValue(u"offset"_s).toLongLong();
            if (offset != upload.data.size())
                return error(u"offset_mismatch"_s, u"bad offset"_s, Status::Conflict);
            upload.data += req.body();
            const bool complete = upload.data.size() >= upload.size;
            if (complete) {
                const QString sha = QString::fromLatin1(
                    QCryptographicHash::hash(upload.data, QCryptographicHash::Sha256).toHex());
                if (sha != upload.sha256) {
                    m_uploads.remove(id);
                    return error(
                        u"digest_mismatch"_s, u"digest mismatch"_s, Status::UnprocessableEntity);
                }
                const qint64 size = upload.size;
                uploaded.insert(sha, upload.data);
                m_uploads.remove(id);
                return QHttpServerResponse(QJsonObject{{u"offset"_s, size}, {u"complete"_s, true}});
            }
            return QHttpServerResponse(
                QJsonObject{{u"offset"_s, upload.data.size()}, {u"complete"_s, false}});
        });
}
