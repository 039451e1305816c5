#pragma once

#include <QHash>
#include <QHttpServer>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QSet>
#include <QUrl>

// The worker side of the wire protocol (docs/api.md, "Workers" and "Uploads"), served over plain
// HTTP on loopback from the test's own event loop, and recording what the worker sent. A test
// double: it keeps everything in memory and checks only what the worker must get right.
class FakeServer : public QObject
{
public:
    FakeServer();

    QUrl url() const;
    // Serves bytes at /v1/workers/blobs/<sha256>; returns the digest.
    QString addBlob(const QByteArray &bytes);
    void queueLease(const QJsonObject &lease) { pendingLeases.append(lease); }
    // Makes the current worker token invalid: the next worker call gets 401.
    void revokeWorkerToken() { workerToken = QStringLiteral("revoked"); }

    QString enrollToken = QStringLiteral("enroll-secret");
    QString workerToken;
    int enrollCount = 0;
    QList<QJsonObject> enrollments;
    QList<QJsonObject> heartbeats;
    QList<QJsonObject> leaseRequests;
    QList<QJsonObject> pendingLeases;
    QSet<qint64> cancel;
    QHash<QString, QByteArray> blobs;
    QHash<QString, int> blobRequests; // range requests per digest
    QHash<qint64, QByteArray> logs;
    QHash<qint64, QList<QJsonObject>> states;
    QHash<qint64, QJsonArray> artifacts;
    QHash<QString, QByteArray> uploaded; // blobs the worker uploaded, by digest
    QStringList events;                  // "log:17", "artifacts:17", "state:17:RUNNING", ...
    // Stores the next log batch but answers 500, as when an answer is lost on its way back.
    bool loseNextLogAnswer = false;

private:
    struct Upload
    {
        qint64 size = 0;
        QString sha256;
        QByteArray data;
    };

    bool authorized(const QHttpServerRequest &request) const;
    void registerRoutes();

    QHttpServer m_http;
    quint16 m_port = 0;
    QHash<QString, Upload> m_uploads;
    int m_nextId = 1;
};
