#pragma once

#include "apiclient.h"

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QPair>

#include <atomic>
#include <functional>
#include <memory>

namespace ddl {

// The head (and a short body) of an HTTP answer on a DataConnection.
struct DataAnswer
{
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body; // only when no sink took it, at most MaxBodyBytes
    QByteArray header(const QByteArray &name) const;
};

// One HTTPS/1.1 connection for bulk bytes (chunk uploads, blob downloads), blocking, used on one
// worker thread at a time. It moves bytes between a file and OpenSSL in 256 KiB pieces without
// the Qt network stack, whose HTTP layer writes 16 KiB per event-loop turn and reads ahead
// without bound (docs/benchmarks.md): the bytes are copied once into TLS records, and memory is
// one buffer per connection. Trust is the ApiClient's: its CA certificates, its pinned
// fingerprint, or the system's CAs. Kept alive between requests (DataConnectionPool).
class DataConnection
{
public:
    static constexpr qsizetype MaxBodyBytes = 1 << 20;
    static constexpr qsizetype PieceBytes = 256 * 1024;

    struct Target
    {
        QString host;
        quint16 port = 443;
        ServerTrust trust;
        int timeoutMs = 30000;
    };

    static Result<std::unique_ptr<DataConnection>> open(const Target &target);
    ~DataConnection();

    // Sends head (request line and headers, without the final empty line; Host and
    // Content-Length are added) and bodyLength bytes of the file fd from bodyOffset, then reads
    // the answer. A 2xx body goes to sink piece by piece when one is given (onHead sees the
    // answer's head first and may refuse it); otherwise it is kept in DataAnswer::body.
    // sent(n) is called as body bytes go out. receiveInto, when given and not null, is where
    // the next piece of the answer's body is read (PieceBytes bytes): the sink may keep that
    // piece after it returns (a Sha256Pipeline hashing it), so nothing is copied. With fd < 0
    // and bodyLength >= 0 the body is bodyBytes (bodyLength of them) from memory.
    Result<DataAnswer> request(const QByteArray &head,
                               int fd,
                               qint64 bodyOffset,
                               qint64 bodyLength,
                               const std::function<Status(const DataAnswer &)> &onHead,
                               const std::function<Status(const char *, qint64)> &sink,
                               const std::function<void(qint64)> &sent = {},
                               const std::function<char *()> &receiveInto = {},
                               QByteArrayView bodyBytes = {});
    // From any thread: makes a blocked request() return at once (it fails).
    void abort();
    bool isReusable() const { return m_reusable && !m_aborted; }

private:
    DataConnection() = default;
    Status writeAll(const char *data, qint64 size);
    // Up to max bytes into data; 0 at the end of the stream.
    Result<qint64> readSome(char *data, qint64 max);
    Error ioError(const QString &what) const;

    Target m_target;
    int m_fd = -1;
    void *m_ctx = nullptr; // SSL_CTX
    void *m_ssl = nullptr; // SSL
    QByteArray m_buffer;   // one piece, for the body in either direction
    QByteArray m_pending;  // read past the answer's head
    bool m_reusable = false;
    std::atomic<bool> m_aborted{false};
};

// Lets another thread cancel the request a worker thread is in.
class DataTransferControl
{
public:
    void abort();
    bool isAborted() const { return m_aborted; }

private:
    friend class DataConnectionPool;
    void setCurrent(DataConnection *connection);

    std::atomic<bool> m_aborted{false};
    QMutex m_mutex;
    DataConnection *m_current = nullptr;
};

// Idle DataConnections to one server, for the threads that move bulk bytes: a request takes
// one (or opens one) and gives it back when the answer was read whole.
class DataConnectionPool
{
public:
    static constexpr int MaxIdle = 16;

    explicit DataConnectionPool(const DataConnection::Target &target)
        : m_target(target)
    {
    }
    Result<std::unique_ptr<DataConnection>> take();
    void giveBack(std::unique_ptr<DataConnection> connection);
    // DataConnection::request on a pooled connection; a kept-alive connection that the server
    // closed meanwhile fails before any answer, and the request is sent once more on a new one.
    Result<DataAnswer> request(DataTransferControl &control,
                               const QByteArray &head,
                               int fd,
                               qint64 bodyOffset,
                               qint64 bodyLength,
                               const std::function<Status(const DataAnswer &)> &onHead,
                               const std::function<Status(const char *, qint64)> &sink,
                               const std::function<void(qint64)> &sent = {},
                               const std::function<char *()> &receiveInto = {},
                               QByteArrayView bodyBytes = {});

private:
    DataConnection::Target m_target;
    QMutex m_mutex;
    std::vector<std::unique_ptr<DataConnection>> m_idle;
};

} // namespace ddl
