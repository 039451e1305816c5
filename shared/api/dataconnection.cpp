#include "dataconnection.h"

#include <QHostAddress>
#include <QMutexLocker>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ddl {

static SSL *ssl(void *p)
{
    return static_cast<SSL *>(p);
}

QByteArray DataAnswer::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

static QString openSslError()
{
    const unsigned long code = ERR_get_error();
    if (code == 0)
        return QStringLiteral("TLS error");
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    ERR_clear_error();
    return QString::fromLatin1(text);
}

Error DataConnection::ioError(const QString &what) const
{
    if (m_aborted)
        return Error::make(ErrorCode::Aborted, QStringLiteral("the transfer was cancelled"));
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return Error::make(ErrorCode::Timeout,
                           QStringLiteral("no answer from %1:%2 within %3 s while %4; check that "
                                          "the server is running and reachable")
                               .arg(m_target.host)
                               .arg(m_target.port)
                               .arg(m_target.timeoutMs / 1000)
                               .arg(what));
    }
    return Error::make(ErrorCode::Network,
                       QStringLiteral("connection to %1:%2 failed while %3: %4")
                           .arg(m_target.host)
                           .arg(m_target.port)
                           .arg(what, openSslError()));
}

Result<std::unique_ptr<DataConnection>> DataConnection::open(const Target &target)
{
    std::unique_ptr<DataConnection> connection(new DataConnection);
    connection->m_target = target;
    const QString where = QStringLiteral("%1:%2").arg(target.host).arg(target.port);

    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (getaddrinfo(target.host.toUtf8().constData(),
                    QByteArray::number(target.port).constData(),
                    &hints,
                    &found) != 0) {
        return Error::make(ErrorCode::Unreachable,
                           QStringLiteral("cannot find the server %1; check the URL").arg(where));
    }
    int fd = -1;
    for (addrinfo *a = found; a && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        // Silence longer than the timeout fails a read or write (and the connect).
        timeval tv{target.timeoutMs / 1000, (target.timeoutMs % 1000) * 1000};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            ::close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0) {
        return Error::make(ErrorCode::Unreachable,
                           QStringLiteral("cannot reach the server at %1 (%2); check the URL and "
                                          "that ddl-server is running")
                               .arg(where, QString::fromLocal8Bit(std::strerror(errno))));
    }
    connection->m_fd = fd;

    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    connection->m_ctx = ctx;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // Read from the socket in big batches rather than a 5-byte header then one 16 KiB record
    // (strace: two read calls per record without it).
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_default_read_buffer_len(ctx, 64 * 1024);
    const bool pinned =
        target.trust.caCertificates.isEmpty() && !target.trust.pinnedSha256Hex.isEmpty();
    if (!target.trust.caCertificates.isEmpty()) {
        X509_STORE *store = SSL_CTX_get_cert_store(ctx);
        for (const QSslCertificate &certificate : target.trust.caCertificates) {
            const QByteArray der = certificate.toDer();
            const unsigned char *p = reinterpret_cast<const unsigned char *>(der.constData());
            if (X509 *x509 = d2i_X509(nullptr, &p, der.size())) {
                X509_STORE_add_cert(store, x509);
                X509_free(x509);
            }
        }
    } else if (!pinned) {
        SSL_CTX_set_default_verify_paths(ctx);
    }
    // A pinned certificate stands in for a CA: checked after the handshake, before any byte.
    SSL_CTX_set_verify(ctx, pinned ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
    SSL *s = SSL_new(ctx);
    connection->m_ssl = s;
    const QByteArray host = target.host.toUtf8();
    if (QHostAddress(target.host).isNull()) {
        SSL_set_tlsext_host_name(s, host.constData());
        SSL_set1_host(s, host.constData());
    } else {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s), host.constData());
    }
    SSL_set_fd(s, fd);
    if (SSL_connect(s) != 1) {
        const long verify = SSL_get_verify_result(s);
        if (verify != X509_V_OK) {
            return Error::make(
                ErrorCode::UntrustedCertificate,
                QStringLiteral("the server at %1 is not trusted (%2); pass "
                               "--ca-cert FILE or set DDL_CA_CERT")
                    .arg(where, QString::fromLatin1(X509_verify_cert_error_string(verify))));
        }
        return Error::make(
            ErrorCode::Network,
            QStringLiteral("TLS handshake with %1 failed: %2").arg(where, openSslError()));
    }
    if (pinned) {
        X509 *peer = SSL_get1_peer_certificate(s);
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        const bool ok = peer && X509_digest(peer, EVP_sha256(), digest, &length) == 1;
        X509_free(peer);
        if (!ok || QByteArray(reinterpret_cast<const char *>(digest), int(length)).toHex() !=
                       target.trust.pinnedSha256Hex.toLower()) {
            return Error::make(
                ErrorCode::CertificateChanged,
                QStringLiteral("the server at %1 presented a certificate that does not match the "
                               "pinned fingerprint; if the server's certificate was replaced on "
                               "purpose, remove the pin from ~/.config/ddl/config.json")
                    .arg(where));
        }
    }
    connection->m_buffer.resize(PieceBytes);
    connection->m_reusable = true;
    return connection;
}

DataConnection::~DataConnection()
{
    if (m_ssl) {
        if (isReusable())
            SSL_shutdown(ssl(m_ssl));
        SSL_free(ssl(m_ssl));
    }
    if (m_ctx)
        SSL_CTX_free(static_cast<SSL_CTX *>(m_ctx));
    if (m_fd >= 0)
        ::close(m_fd);
}

void DataConnection::abort()
{
    m_aborted = true;
    if (m_fd >= 0)
        ::shutdown(m_fd, SHUT_RDWR);
}

Status DataConnection::writeAll(const char *data, qint64 size)
{
    while (size > 0) {
        if (m_aborted)
            return ioError(QStringLiteral("sending"));
        const int n = SSL_write(ssl(m_ssl), data, int(std::min<qint64>(size, 1 << 30)));
        if (n <= 0)
            return ioError(QStringLiteral("sending"));
        data += n;
        size -= n;
    }
    return Ok{};
}

Result<qint64> DataConnection::readSome(char *data, qint64 max)
{
    if (!m_pending.isEmpty()) {
        const qint64 n = std::min<qint64>(max, m_pending.size());
        std::memcpy(data, m_pending.constData(), size_t(n));
        m_pending.remove(0, n);
        return n;
    }
    if (m_aborted)
        return ioError(QStringLiteral("receiving"));
    int n = SSL_read(ssl(m_ssl), data, int(std::min<qint64>(max, 1 << 30)));
    if (n > 0) {
        // One record is at most 16 KiB: take what is already buffered too, so the caller
        // writes and hashes big pieces.
        qint64 total = n;
        while (total < max && SSL_has_pending(ssl(m_ssl))) {
            n = SSL_read(ssl(m_ssl), data + total, int(std::min<qint64>(max - total, 1 << 30)));
            if (n <= 0)
                break;
            total += n;
        }
        return total;
    }
    if (SSL_get_error(ssl(m_ssl), n) == SSL_ERROR_ZERO_RETURN)
        return qint64(0);
    return ioError(QStringLiteral("receiving"));
}

namespace {
// OpenSSL sends with write(), and write() to a connection the server closed raises SIGPIPE,
// which ends the whole program (ddlcli, the desktop, a worker) without a word. SIGPIPE is held
// back on this thread while a request runs, and one the request raised is taken off before it is
// let through again: the write fails with EPIPE, and request() reads the server's answer. A
// guard per thread, not SIG_IGN: the program's signals, and its children's, stay as they were.
class BrokenPipeGuard
{
public:
    BrokenPipeGuard()
    {
        sigemptyset(&m_pipe);
        sigaddset(&m_pipe, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &m_pipe, &m_before);
        sigset_t pending;
        sigpending(&pending);
        m_wasPending = sigismember(&pending, SIGPIPE) == 1;
    }
    ~BrokenPipeGuard()
    {
        sigset_t pending;
        sigpending(&pending);
        if (!m_wasPending && sigismember(&pending, SIGPIPE) == 1) {
            const timespec now{};
            sigtimedwait(&m_pipe, nullptr, &now);
        }
        pthread_sigmask(SIG_SETMASK, &m_before, nullptr);
    }
    BrokenPipeGuard(const BrokenPipeGuard &) = delete;
    BrokenPipeGuard &operator=(const BrokenPipeGuard &) = delete;

private:
    sigset_t m_pipe;
    sigset_t m_before;
    bool m_wasPending = false;
};
} // namespace

Result<DataAnswer> DataConnection::request(const QByteArray &head,
                                           int fd,
                                           qint64 bodyOffset,
                                           qint64 bodyLength,
                                           const std::function<Status(const DataAnswer &)> &onHead,
                                           const std::function<Status(const char *, qint64)> &sink,
                                           const std::function<void(qint64)> &sent,
                                           const std::function<char *()> &receiveInto,
                                           QByteArrayView bodyBytes)
{
    m_reusable = false; // until the answer was read whole
    const BrokenPipeGuard noSigpipe;
    const QByteArray fullHead =
        head + "\r\nHost: " + m_target.host.toUtf8() + ':' + QByteArray::number(m_target.port) +
        (bodyLength >= 0 ? "\r\nContent-Length: " + QByteArray::number(bodyLength) : QByteArray()) +
        "\r\n\r\n";
    // A server may answer before the body is all sent (an upload gone, a token refused) and
    // close: the sending fails, but its answer is there to read, and it says what to do.
    std::optional<Error> sendFailed;
    if (Status written = writeAll(fullHead.constData(), fullHead.size()); !written)
        sendFailed = written.error();
    char *buffer = m_buffer.data();
    for (qint64 done = 0; !sendFailed && fd < 0 && done < bodyLength;) {
        const qint64 n = std::min<qint64>(PieceBytes, bodyLength - done);
        if (bodyBytes.size() < done + n) {
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("a request body of %1 bytes was announced, but "
                                              "only %2 were given")
                                   .arg(bodyLength)
                                   .arg(bodyBytes.size()));
        }
        if (Status written = writeAll(bodyBytes.data() + done, n); !written) {
            sendFailed = written.error();
            break;
        }
        done += n;
        if (sent)
            sent(done);
    }
    for (qint64 done = 0; !sendFailed && fd >= 0 && done < bodyLength;) {
        const ssize_t n = ::pread(
            fd, buffer, size_t(std::min<qint64>(PieceBytes, bodyLength - done)), bodyOffset + done);
        if (n <= 0) {
            return Error::make(
                ErrorCode::IoError,
                QStringLiteral("the file being sent ended early or cannot be "
                               "read (%1); it changed while it was being uploaded: "
                               "upload it again")
                    .arg(QString::fromLocal8Bit(std::strerror(n < 0 ? errno : EIO))));
        }
        if (Status written = writeAll(buffer, n); !written) {
            sendFailed = written.error();
            break;
        }
        done += n;
        if (sent)
            sent(done);
    }
    if (sendFailed && m_aborted)
        return *sendFailed;

    // The answer's head: up to 64 KiB.
    QByteArray received;
    qsizetype headEnd = -1;
    while ((headEnd = received.indexOf("\r\n\r\n")) < 0) {
        if (received.size() > 64 * 1024) {
            return Error::make(ErrorCode::Network,
                               QStringLiteral("the server at %1 sent an answer head over 64 KiB")
                                   .arg(m_target.host));
        }
        Result<qint64> n = readSome(buffer, PieceBytes);
        if (!n)
            return sendFailed ? *sendFailed : n.error();
        if (*n == 0) {
            if (sendFailed)
                return *sendFailed;
            return Error::make(ErrorCode::Unreachable,
                               QStringLiteral("the server at %1 closed the connection before "
                                              "answering; check that ddl-server is running")
                                   .arg(m_target.host));
        }
        received.append(buffer, *n);
    }
    m_pending = received.mid(headEnd + 4);
    const QList<QByteArray> lines = received.left(headEnd).split('\n');
    DataAnswer answer;
    const QList<QByteArray> statusLine = lines.value(0).trimmed().split(' ');
    answer.status = statusLine.value(1).toInt();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines.at(i).indexOf(':');
        if (colon > 0)
            answer.headers.append(
                {lines.at(i).left(colon).trimmed(), lines.at(i).mid(colon + 1).trimmed()});
    }
    // Only a refusal counts as the answer to a body that was not all sent.
    if (sendFailed && answer.status >= 200 && answer.status < 300)
        return *sendFailed;
    if (answer.status < 100) {
        return Error::make(
            ErrorCode::Network,
            QStringLiteral("the server at %1 sent something that is not HTTP").arg(m_target.host));
    }
    bool hasLength = false;
    qint64 length = answer.header("Content-Length").toLongLong(&hasLength);
    const bool closes =
        sendFailed || answer.header("Connection").compare("close", Qt::CaseInsensitive) == 0;
    if (!answer.header("Transfer-Encoding").isEmpty()) {
        return Error::make(ErrorCode::Network,
                           QStringLiteral("the server at %1 sent a chunked answer, which a data "
                                          "transfer does not expect")
                               .arg(m_target.host));
    }
    const bool toSink = sink && answer.status >= 200 && answer.status < 300;
    if (toSink && onHead) {
        if (Status accepted = onHead(answer); !accepted)
            return accepted.error();
    }
    for (qint64 done = 0; !hasLength || done < length;) {
        char *into = toSink && receiveInto ? receiveInto() : nullptr;
        if (!into)
            into = buffer;
        const qint64 wanted = hasLength ? std::min<qint64>(PieceBytes, length - done) : PieceBytes;
        Result<qint64> n = readSome(into, wanted);
        if (!n)
            return n.error();
        if (*n == 0) {
            if (!hasLength)
                break;
            return Error::make(ErrorCode::Network,
                               QStringLiteral("the server at %1 closed the connection in the "
                                              "middle of an answer; try again")
                                   .arg(m_target.host));
        }
        done += *n;
        if (toSink) {
            if (Status taken = sink(into, *n); !taken)
                return taken.error();
        } else if (answer.body.size() + *n <= MaxBodyBytes) {
            answer.body.append(into, *n);
        } else {
            return Error::make(ErrorCode::Network,
                               QStringLiteral("the server at %1 sent an answer over %2 bytes")
                                   .arg(m_target.host)
                                   .arg(MaxBodyBytes));
        }
    }
    m_reusable = hasLength && !closes && m_pending.isEmpty();
    return answer;
}

void DataTransferControl::abort()
{
    m_aborted = true;
    QMutexLocker lock(&m_mutex);
    if (m_current)
        m_current->abort();
}

void DataTransferControl::setCurrent(DataConnection *connection)
{
    QMutexLocker lock(&m_mutex);
    m_current = connection;
    if (connection && m_aborted)
        connection->abort();
}

Result<DataAnswer>
DataConnectionPool::request(DataTransferControl &control,
                            const QByteArray &head,
                            int fd,
                            qint64 bodyOffset,
                            qint64 bodyLength,
                            const std::function<Status(const DataAnswer &)> &onHead,
                            const std::function<Status(const char *, qint64)> &sink,
                            const std::function<void(qint64)> &sent,
                            const std::function<char *()> &receiveInto,
                            QByteArrayView bodyBytes)
{
    for (int attempt = 0;; ++attempt) {
        bool reused = false;
        std::unique_ptr<DataConnection> connection;
        {
            QMutexLocker lock(&m_mutex);
            if (!m_idle.empty() && attempt == 0) {
                connection = std::move(m_idle.back());
                m_idle.pop_back();
                reused = true;
            }
        }
        if (!connection) {
            Result<std::unique_ptr<DataConnection>> opened = DataConnection::open(m_target);
            if (!opened)
                return opened.error();
            connection = std::move(*opened);
        }
        bool answered = false;
        control.setCurrent(connection.get());
        Result<DataAnswer> answer = connection->request(
            head,
            fd,
            bodyOffset,
            bodyLength,
            [&](const DataAnswer &a) {
                answered = true;
                return onHead ? onHead(a) : Status(Ok{});
            },
            sink,
            sent,
            receiveInto,
            bodyBytes);
        control.setCurrent(nullptr);
        if (answer)
            answered = true;
        if (!answer && reused && !answered && !control.isAborted() &&
            !answer.error().is(ErrorCode::IoError)) {
            continue; // a stale kept-alive connection: once more on a new one
        }
        if (answer)
            giveBack(std::move(connection));
        return answer;
    }
}

Result<std::unique_ptr<DataConnection>> DataConnectionPool::take()
{
    {
        QMutexLocker lock(&m_mutex);
        if (!m_idle.empty()) {
            std::unique_ptr<DataConnection> connection = std::move(m_idle.back());
            m_idle.pop_back();
            return connection;
        }
    }
    return DataConnection::open(m_target);
}

void DataConnectionPool::giveBack(std::unique_ptr<DataConnection> connection)
{
    if (!connection || !connection->isReusable())
        return;
    QMutexLocker lock(&m_mutex);
    if (m_idle.size() < MaxIdle)
        m_idle.push_back(std::move(connection));
}

} // namespace ddl
